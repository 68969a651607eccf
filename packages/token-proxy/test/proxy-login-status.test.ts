/**
 * `POST /login/status` (login-status.ts): a popup sign-in's outcome for its page, when the consent page severed the
 * popup from it (Cross-Origin-Opener-Policy). Against the real emulator and the proxy over real sockets: what each
 * step of a sign-in answers, that the answer is bound to the browser's own cookies (never to the attempt id alone),
 * that it holds no secret, and that it refuses what the token calls refuse.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';
import { DEMO_LOGIN, driveConsent, getWithJar, outcomeOf, serveDemoProxy, type Jar } from '@esign-elements/test-support/oauth-login';
import { ORIGIN, post } from '@esign-elements/test-support/proxy-client';

let emulator: RunningEmulator;
let served: ServedTokenProxy;
let proxy: string;

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  served = await serveDemoProxy(serveTokenProxy, emulator, { allowedOrigins: [ORIGIN], cookieKeys: [generateCookieKey()], rateLimit: false });
  proxy = served.url.replace('//127.0.0.1:', '//localhost:');
});
after(async () => {
  await served.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

const newAttempt = (): string => randomBytes(24).toString('base64url');
const status = (attempt: string, jar?: Jar, headers: Record<string, string> = {}) =>
  post(`${proxy}/login/status`, { attempt, session: 'open', client_id: DEMO_LOGIN.clientId }, jar, headers);

/** The popup's first step: the login route, with the jar taking the pre-login cookie. Answers the authorization URL. */
async function startPopup(attempt: string, jar: Jar): Promise<URL> {
  const login = await getWithJar(
    `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: DEMO_LOGIN.scope })}`,
    jar,
  );
  assert.equal(login.status, 303);
  return new URL(login.headers.get('location')!);
}

describe('what a page hears of its popup sign-in', () => {
  test('unknown, then pending while the sign-in page has it, then connected: only with this browser’s cookies', async () => {
    const attempt = newAttempt();
    const jar: Jar = new Map();
    assert.deepEqual((await status(attempt, jar)).json, { attempt, status: 'unknown' });
    const authorizationUrl = await startPopup(attempt, jar);
    const pending = await status(attempt, jar);
    assert.equal(pending.status, 200);
    assert.deepEqual(pending.json, { attempt, status: 'pending' });
    assert.equal(pending.headers.get('cache-control'), 'no-store');
    assert.equal(pending.headers.get('access-control-allow-origin'), ORIGIN);
    // another browser that knows the attempt id (it is in the popup's address) learns nothing
    assert.deepEqual((await status(attempt, new Map())).json, { attempt, status: 'unknown' });
    const callbackUrl = await driveConsent(authorizationUrl, { chooseSpaceId: 'space_acme' });
    const callback = await getWithJar(callbackUrl, jar);
    assert.equal(outcomeOf(callback.headers.get('location')!).get('outcome'), 'connected');
    assert.ok(![...jar.keys()].some((name) => name.includes('esign_l_')), 'the pre-login cookie is gone on success');
    const connected = await status(attempt, jar);
    assert.deepEqual(connected.json, { attempt, status: 'connected' });
    assert.equal(connected.setCookies.length, 0, 'the question writes nothing');
    assert.deepEqual((await status(attempt, new Map())).json, { attempt, status: 'unknown' });
    // another attempt of the same browser is not this one's
    assert.deepEqual((await status(newAttempt(), jar)).json.status, 'unknown');
    // the answer holds nothing but the attempt and its outcome
    const token = await post(`${proxy}/token`, { grant_type: 'refresh_token', session: 'open' }, jar);
    assert.equal(token.status, 200);
    assert.ok(!connected.text.includes(token.json.access_token as string));
  });

  test('an error outcome stays for its page, two minutes, and can neither start nor finish a sign-in', async () => {
    const attempt = newAttempt();
    const jar: Jar = new Map();
    const authorizationUrl = await startPopup(attempt, jar);
    const callbackUrl = await driveConsent(authorizationUrl, { decision: 'deny' });
    const callback = await getWithJar(callbackUrl, jar);
    assert.equal(outcomeOf(callback.headers.get('location')!).get('error'), 'access_denied');
    const line = callback.headers.getSetCookie().at(-1) ?? '';
    assert.match(line, /esign_l_[\w-]{16}=v1\..*Max-Age=120.*HttpOnly/i, line);
    assert.deepEqual((await status(attempt, jar)).json, { attempt, status: 'error', error: 'access_denied' });
    assert.deepEqual((await status(attempt, new Map())).json, { attempt, status: 'unknown' });
    // the same callback again, with the outcome in place of the pre-login cookie: nothing redeemed, no session
    const again = await getWithJar(callbackUrl, jar);
    assert.equal(outcomeOf(again.headers.get('location')!).get('error'), 'state_mismatch');
    assert.ok(![...jar.keys()].some((name) => !name.includes('esign_l_')), 'no session cookie');
  });

  test('refuses what the token calls refuse', async () => {
    const attempt = newAttempt();
    const jar: Jar = new Map();
    await startPopup(attempt, jar);
    const refusedWith = async (answer: Promise<{ status: number; json: Record<string, unknown> }>, code: number): Promise<void> => {
      const { status: got, json } = await answer;
      assert.equal(got, code, JSON.stringify(json));
      assert.notEqual(json['status'], 'pending');
    };
    await refusedWith(status(attempt, jar, { 'X-Esign-Proxy': '' }), 403);
    await refusedWith(status(attempt, jar, { Origin: 'https://evil.example' }), 403);
    await refusedWith(status(attempt, jar, { 'Content-Type': 'text/plain' }), 415);
    await refusedWith(post(`${proxy}/login/status`, new URLSearchParams(`attempt=${attempt}&attempt=${attempt}&session=open`), jar), 400);
    await refusedWith(post(`${proxy}/login/status`, { attempt: 'short', session: 'open' }, jar), 400);
    await refusedWith(post(`${proxy}/login/status`, { attempt }, jar), 400);
    await refusedWith(post(`${proxy}/login/status`, { attempt, session: 'open', client_id: 'another-app' }, jar), 400);
    const get = await fetch(`${proxy}/login/status?attempt=${attempt}&session=open`);
    assert.equal(get.status, 405);
    // a foreign page's preflight gets no CORS answer to read
    const preflight = await fetch(`${proxy}/login/status`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
  });
});

describe("the emulator's consent page with Cross-Origin-Opener-Policy", () => {
  test('sent once asked for, until the next reset', async () => {
    const jar: Jar = new Map();
    const consentPage = async (): Promise<Response> => {
      const auth = await fetch(await startPopup(newAttempt(), jar), { redirect: 'manual' });
      return fetch(new URL(auth.headers.get('location')!), { redirect: 'manual' });
    };
    assert.equal((await consentPage()).headers.get('cross-origin-opener-policy'), null);
    const set = await fetch(`${emulator.baseUrl}/__emulator/consent-page`, { method: 'POST', body: JSON.stringify({ openerPolicy: 'same-origin' }) });
    assert.equal(set.status, 200);
    assert.equal((await consentPage()).headers.get('cross-origin-opener-policy'), 'same-origin');
    const refused = await fetch(`${emulator.baseUrl}/__emulator/consent-page`, { method: 'POST', body: JSON.stringify({ openerPolicy: 'sometimes' }) });
    assert.equal(refused.status, 400);
    emulator.reset();
    assert.equal((await consentPage()).headers.get('cross-origin-opener-policy'), null);
  });
});
