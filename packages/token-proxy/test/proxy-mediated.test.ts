/**
 * The token proxy's default, token-mediating mode against the real emulator over real sockets: the sign-in at the
 * proxy's own routes sets the session cookie, and the first access token comes without a refresh token; refresh
 * through the cookie (cached access token, force=1 rotation, one call for concurrent requests); revoke; every way a
 * cookie can be wrong (tampered, expired, other client, Space, slot, rotated and removed keys); the rate limit keyed
 * on session and client address; the refresh replay bound to the retry of its request; exact routes; the
 * browser-held mode only when opted in. The attacks of the security review: proxy-attacks.test.ts.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { createTokenProxy, generateCookieKey, type TokenProxyEvent } from '../src/index.js';
import { serveTokenProxy, type ServeTokenProxyOptions, type ServedTokenProxy } from '../src/node.js';
import { base64url } from '@esign-elements/shared';
import { decodeCookieKey, importCookieKeys, open, seal, webCryptoSealer } from '../src/seal.js';
import { codeExchangeForm, DEMO_LOGIN, driveConsent, obtainAuthorizationCode, signInThroughProxy } from '@esign-elements/test-support/oauth-login';
import { ORIGIN, post as postForm, type Answer, type Jar } from '@esign-elements/test-support/proxy-client';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
/** The id a page keeps in memory for the retries of one refresh. */
const RETRY_ID = 'retry-0123456789abcdef';
const REDIRECT = DEMO_LOGIN.redirectUri;
let emulator: Emulator;
let proxy: Served;
const started: ServedTokenProxy[] = [];

interface Served extends ServedTokenProxy {
  /** The same server reached as http://localhost:<port> (the page's site in these tests). */
  local: string;
}

async function startProxy(overrides: Partial<ServeTokenProxyOptions> = {}): Promise<Served> {
  const served = await serveTokenProxy({
    port: 0,
    clientId: DEMO_LOGIN.clientId,
    clientSecret: DEMO_LOGIN.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: [ORIGIN],
    redirectUris: [REDIRECT],
    cookieKeys: [KEY],
    rateLimit: false,
    timeoutMs: 2_000,
    ...overrides,
  });
  started.push(served);
  // an app the emulator does not know (another client) has nothing to register
  if (served.callbackUrl && !overrides.clientId) emulator.registerRedirectUri(DEMO_LOGIN.clientId, served.callbackUrl);
  return { ...served, local: served.url.replace('//127.0.0.1:', '//localhost:') };
}

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  proxy = await startProxy();
});
after(async () => {
  await Promise.all(started.map((p) => p.close()));
  await emulator.close();
});
beforeEach(async () => {
  await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
});

/** A form post through the shared helper, plus what every answer of the proxy carries: no caching. */
async function post(...args: Parameters<typeof postForm>): Promise<Answer> {
  const answer = await postForm(...args);
  assert.equal(answer.headers.get('cache-control'), 'no-store');
  return answer;
}

async function requests(): Promise<Record<string, number>> {
  return (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
}

async function refreshCount(): Promise<number> {
  return (await requests())['grant:refresh_token'] ?? 0;
}

async function fault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.baseUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

async function embeddedStatus(accessToken: unknown): Promise<number> {
  const response = await fetch(`${emulator.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${String(accessToken)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * Connects one session slot through `base` as a browser does (the proxy's login route, the consent page, its callback),
 * then asks for the first access token as the page does; returns the jar with the cookie, that answer and the
 * callback's Set-Cookie lines.
 */
async function connect(
  base: string,
  slot = 'open',
  options: { chooseSpaceId?: string; designatedSpaceId?: string; jar?: Jar } = {},
): Promise<{ jar: Jar; answer: Answer; setCookies: string[] }> {
  const jar = options.jar ?? new Map<string, string>();
  const signedIn = await signInThroughProxy({
    proxyUrl: base,
    origin: ORIGIN,
    jar,
    slot,
    chooseSpaceId: options.chooseSpaceId ?? 'space_acme',
    ...(options.designatedSpaceId ? { spaceId: options.designatedSpaceId } : {}),
  });
  assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
  const answer = await post(
    `${base}/token`,
    refreshFields({ session: slot, ...(options.designatedSpaceId ? { space_id: options.designatedSpaceId } : {}) }),
    jar,
  );
  assert.equal(answer.status, 200, answer.text);
  return { jar, answer, setCookies: signedIn.callbackSetCookies };
}

const refreshFields = (extra: Record<string, string> = {}): Record<string, string> => ({ grant_type: 'refresh_token', session: 'open', ...extra });

/** The slot's cookie name as the protocol defines it: a hash of client_id, basePath and slot; `__Host-` when Secure. */
async function cookieName(slot: string, prefix = '', basePath = '', clientId: string = DEMO_LOGIN.clientId): Promise<string> {
  const hash = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${clientId}\u0000${basePath}\u0000${slot}`)))).slice(
    0,
    16,
  );
  return `${prefix}esign_${hash}`;
}

/** Opens a cookie with `KEY`, lets `change` edit its payload, and seals it again (what only a key holder can do). */
async function reseal(value: string, name: string, change: (payload: Record<string, unknown>) => void, clientId = DEMO_LOGIN.clientId): Promise<string> {
  const keys = await importCookieKeys([decodeCookieKey(KEY)!]);
  const text = await open(keys, value, `${name}|${clientId}`);
  assert.ok(text, 'the test key opens the cookie');
  const payload = JSON.parse(text) as Record<string, unknown>;
  change(payload);
  return seal(keys, JSON.stringify(payload), `${name}|${clientId}`);
}

describe('token-mediating mode: the session cookie', () => {
  test('the callback sets an HttpOnly SameSite=Strict cookie; the first token answer has no refresh token', async () => {
    const { jar, answer, setCookies } = await connect(proxy.local);
    // never the refresh token; the emulator's optional display names pass through for the page to show
    assert.deepEqual(Object.keys(answer.json).sort(), [
      'access_token',
      'expires_in',
      'login_attempt',
      'scope',
      'space_id',
      'space_name',
      'token_type',
      'user_email',
      'user_name',
    ]);
    assert.equal(answer.json.space_id, 'space_acme');
    assert.equal(answer.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(answer.headers.get('access-control-allow-credentials'), 'true');
    const name = await cookieName('open');
    const line = setCookies.find((c) => c.startsWith(`${name}=`));
    assert.ok(line, `esign_<hash of client, basePath and slot>, no prefix on loopback http: ${setCookies.join(' | ')}`);
    const [pair, ...attributes] = line.split(';').map((p) => p.trim());
    assert.match(pair!.split('=')[1]!, /^v1\.[\w-]+\.[\w-]{16}\.[\w-]+$/, 'v1.<kid>.<iv>.<ciphertext>');
    const attrs = attributes.map((a) => a.toLowerCase());
    assert.ok(attrs.includes('httponly'), 'HttpOnly');
    assert.ok(attrs.includes('samesite=strict'), 'SameSite=Strict');
    assert.ok(attrs.includes('path=/'), 'Path=/');
    // the session's remaining lifetime, counted from the sign-in in whole seconds: 30 days, less the second that may
    // have turned between the two clock reads
    const maxAge = Number(attrs.find((a) => a.startsWith('max-age='))?.slice('max-age='.length));
    assert.ok(maxAge >= 2_592_000 - 1 && maxAge <= 2_592_000, `30 days, got Max-Age=${maxAge}`);
    assert.ok(!attrs.includes('secure'), 'plain http on loopback: not Secure');
    assert.ok(!line.includes(answer.json.access_token as string), 'the cookie is encrypted');
    assert.equal(await embeddedStatus(answer.json.access_token), 200);
    assert.deepEqual([...jar.keys()], [name], 'the pre-login cookie is gone, the session cookie stays');
  });

  test('a refresh with time left on the cached access token answers it without calling the service (reload, second tab)', async () => {
    const { jar, answer } = await connect(proxy.local);
    const before = await requests();
    const again = await post(`${proxy.local}/token`, refreshFields(), jar);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.access_token, answer.json.access_token);
    assert.equal(again.json.space_id, 'space_acme');
    assert.equal(again.json.scope, answer.json.scope);
    assert.ok((again.json.expires_in as number) <= 3600 && (again.json.expires_in as number) > 3500);
    assert.equal(again.json.refresh_token, undefined);
    assert.equal(again.setCookies.length, 0, 'nothing rotated');
    assert.deepEqual(await requests(), before, 'no call to the service');
  });

  test('force=1 rotates: one refresh at the service, a new access token that works, a new cookie', async () => {
    const { jar, answer } = await connect(proxy.local);
    const first = jar.get(await cookieName('open'));
    const forced = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(forced.status, 200, forced.text);
    assert.notEqual(forced.json.access_token, answer.json.access_token);
    assert.equal(forced.json.refresh_token, undefined);
    assert.equal(await refreshCount(), 1);
    assert.notEqual(jar.get(await cookieName('open')), first, 'the cookie was rotated');
    assert.equal(await embeddedStatus(forced.json.access_token), 200);
    // and the rotated cookie serves the next forced refresh (the old refresh token is not in it)
    const next = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(next.status, 200, next.text);
    assert.equal(await refreshCount(), 2);
    assert.equal(await embeddedStatus(next.json.access_token), 200, 'the grant is alive');
  });

  test('concurrent forced refreshes with one cookie: one call to the service, one access token for all (one that came after the rotation too)', async () => {
    const { jar } = await connect(proxy.local);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(`${proxy.local}/token`, refreshFields({ force: '1' }), new Map(jar))));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200],
      answers.map((a) => a.text).join('\n'),
    );
    // those in flight together share the call; one that arrived after it rotated the token gets its access token
    const late = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), new Map(jar));
    assert.equal(late.status, 200, late.text);
    assert.equal(late.setCookies.length, 0, 'no cookie for the late one');
    assert.equal(new Set([...answers, late].map((a) => a.json.access_token)).size, 1, 'one set of tokens');
    assert.equal(await refreshCount(), 1, 'one refresh at the service');
    assert.equal(await embeddedStatus(late.json.access_token), 200);
  });

  test('revoke: revoked at the service and the cookie cleared; again without a cookie is 200 {}', async () => {
    const { jar, answer } = await connect(proxy.local);
    const revoked = await post(`${proxy.local}/revoke`, { session: 'open' }, jar);
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.json, {});
    assert.match(revoked.setCookies[0] ?? '', /Max-Age=0/);
    assert.equal(jar.size, 0, 'the cookie is gone');
    assert.equal((await requests())['POST /openapi/v1/oauth/revoke'], 1);
    assert.equal(await embeddedStatus(answer.json.access_token), 401, 'the grant is revoked at the service');
    const again = await post(`${proxy.local}/revoke`, { session: 'open' }, jar);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, {});
    const refresh = await post(`${proxy.local}/token`, refreshFields(), jar);
    assert.equal(refresh.status, 401);
    assert.equal(refresh.json.error, 'session_missing');
  });

  test('two slots side by side (Open Mode and a designated Space) never overwrite each other', async () => {
    const jar: Jar = new Map();
    const open = await connect(proxy.local, 'open', { jar, chooseSpaceId: 'space_acme' });
    const designated = await connect(proxy.local, 'space:space_alice', { jar, designatedSpaceId: 'space_alice' });
    assert.equal(jar.size, 2);
    assert.equal(designated.answer.json.space_id, 'space_alice');
    const a = await post(`${proxy.local}/token`, refreshFields(), jar);
    const b = await post(`${proxy.local}/token`, refreshFields({ session: 'space:space_alice', space_id: 'space_alice' }), jar);
    assert.equal(a.json.access_token, open.answer.json.access_token);
    assert.equal(b.json.access_token, designated.answer.json.access_token);
    assert.equal(b.json.space_id, 'space_alice');
    // ending one leaves the other
    await post(`${proxy.local}/revoke`, { session: 'open' }, jar);
    assert.equal((await post(`${proxy.local}/token`, refreshFields({ session: 'space:space_alice', space_id: 'space_alice' }), jar)).status, 200);
  });

  test('__Host- prefix (Secure, Path=/, no Domain) for an https public origin; __Secure- with a cookie domain', async () => {
    for (const [cookieDomain, prefix] of [
      [undefined, '__Host-'],
      ['example.com', '__Secure-'],
    ] as const) {
      const handler = createTokenProxy({
        clientId: DEMO_LOGIN.clientId,
        clientSecret: DEMO_LOGIN.clientSecret,
        baseUrl: emulator.baseUrl,
        allowedOrigins: ['https://app.example.com'],
        publicOrigin: 'https://auth.example.com',
        cookieKeys: [KEY],
        basePath: '/api/esign',
        ...(cookieDomain ? { cookieDomain } : {}),
      });
      emulator.registerRedirectUri(DEMO_LOGIN.clientId, 'https://auth.example.com/api/esign/callback');
      const jar: Jar = new Map();
      const browse = async (url: string): Promise<Response> => {
        const response = await handler(new Request(url, { headers: { Cookie: [...jar].map(([n, v]) => `${n}=${v}`).join('; ') } }));
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const [n = '', v = ''] = pair.split('=');
          if (/max-age=0/i.test(line)) jar.delete(n);
          else jar.set(n, v);
        }
        return response;
      };
      const login = await browse(
        `https://auth.example.com/api/esign/login?session=open&origin=${encodeURIComponent('https://app.example.com')}&display=popup&attempt=${'a'.repeat(22)}&scope=envelope:read`,
      );
      assert.equal(login.status, 303, await login.clone().text());
      const preLogin = login.headers.getSetCookie()[0] ?? '';
      assert.ok(preLogin.startsWith(`${prefix}esign_l_`), preLogin.slice(0, 40));
      assert.match(preLogin, /SameSite=Lax/i, "the pre-login cookie comes back on the consent page's redirect");
      const back = await driveConsent(new URL(login.headers.get('location')!), { chooseSpaceId: 'space_acme' });
      const callback = await browse(back);
      assert.equal(callback.status, 303, await callback.clone().text());
      const line = callback.headers.getSetCookie().find((c) => c.startsWith(`${prefix}esign_`) && !c.startsWith(`${prefix}esign_l_`)) ?? '';
      assert.ok(line.startsWith(`${await cookieName('open', prefix, '/api/esign')}=`), line.slice(0, 40));
      const attrs = line
        .split(';')
        .slice(1)
        .map((a) => a.trim().toLowerCase());
      for (const expected of ['secure', 'httponly', 'samesite=strict', 'path=/', ...(cookieDomain ? [`domain=${cookieDomain}`] : [])])
        assert.ok(attrs.includes(expected), `${expected} in ${attrs.join('; ')}`);
      if (!cookieDomain) assert.ok(!attrs.some((a) => a.startsWith('domain=')), 'no Domain on a __Host- cookie');
    }
  });

  test('the sealer opens what it sealed, refuses another AAD, and opens what the old key sealed alone', async () => {
    const raw = [decodeCookieKey(generateCookieKey())!, decodeCookieKey(KEY)!];
    const sealer = webCryptoSealer(raw);
    const text = JSON.stringify({ v: 1, sid: 's', rt: 'rt_x', note: 'ü€' });
    const sealed = await sealer.seal(text, 'n|c');
    assert.match(sealed, /^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]+$/);
    assert.equal(await sealer.open(sealed, 'n|c'), text);
    assert.equal(await sealer.open(sealed, 'm|c'), undefined);
    // the old key (second) still opens what it sealed alone
    const old = webCryptoSealer([raw[1]!]);
    assert.equal(await sealer.open(await old.seal(text, 'a'), 'a'), text);
    // base64url(SHA-256('abc')), the FIPS 180-2 test vector
    assert.equal(await sealer.sha256url('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  test('no cookie: 401 session_missing; a refresh_token field beside session: 400', async () => {
    const missing = await post(`${proxy.local}/token`, refreshFields(), new Map());
    assert.equal(missing.status, 401);
    assert.equal(missing.json.error, 'session_missing');
    const both = await post(`${proxy.local}/token`, refreshFields({ refresh_token: 'rt' }), new Map());
    assert.equal(both.status, 400);
    assert.equal(both.json.error, 'invalid_request');
  });
});

describe('token-mediating mode: a cookie that does not fit is session_invalid and cleared', () => {
  async function expectInvalid(base: string, jar: Jar, fields: Record<string, string>, what: string): Promise<void> {
    const before = await refreshCount();
    const answer = await post(`${base}/token`, fields, jar);
    assert.equal(answer.status, 401, `${what}: ${answer.text}`);
    assert.equal(answer.json.error, 'session_invalid', what);
    assert.ok(
      answer.setCookies.some((c) => /Max-Age=0/.test(c)),
      `${what}: the cookie is cleared`,
    );
    assert.equal(await refreshCount(), before, `${what}: nothing reached the service`);
  }

  test('tampered (one character of the ciphertext changed)', async () => {
    const { jar } = await connect(proxy.local);
    const name = await cookieName('open');
    const value = jar.get(name)!;
    const flipped = value.slice(0, -2) + (value.at(-2) === 'A' ? 'B' : 'A') + value.slice(-1);
    jar.set(name, flipped);
    await expectInvalid(proxy.local, jar, refreshFields({ force: '1' }), 'tampered');
  });

  test('expired (past sessionMaxAgeSeconds)', async () => {
    const { jar } = await connect(proxy.local);
    const name = await cookieName('open');
    jar.set(name, await reseal(jar.get(name)!, name, (p) => (p.iat = Math.floor(Date.now() / 1000) - 31 * 24 * 3600)));
    await expectInvalid(proxy.local, jar, refreshFields(), 'expired');
  });

  test('another client behind the same host (same key, other client_id) neither reads nor clears it', async () => {
    const { jar } = await connect(proxy.local);
    const other = await startProxy({ clientId: 'other-client' });
    // its cookie has another name: the session of this client is not its to see, nor to end
    const answer = await post(`${other.local}/token`, refreshFields(), new Map(jar));
    assert.equal(answer.status, 401);
    assert.equal(answer.json.error, 'session_missing');
    assert.equal(answer.setCookies.length, 0, 'nothing cleared');
    assert.equal((await post(`${proxy.local}/token`, refreshFields(), jar)).status, 200, 'the session lives on');
    // a key holder re-sealing it under the other client's name: the payload's client still does not match
    const name = await cookieName('open');
    const otherName = await cookieName('open', '', '', 'other-client');
    const keys = await importCookieKeys([decodeCookieKey(KEY)!]);
    const payload = await open(keys, jar.get(name)!, `${name}|${DEMO_LOGIN.clientId}`);
    const moved: Jar = new Map([[otherName, await seal(keys, payload!, `${otherName}|other-client`)]]);
    await expectInvalid(other.local, moved, refreshFields(), 'payload of another client');
  });

  test('bound to another Space or slot', async () => {
    const { jar } = await connect(proxy.local, 'open', { chooseSpaceId: 'space_acme' });
    await expectInvalid(proxy.local, new Map(jar), refreshFields({ space_id: 'space_alice' }), 'other Space');
    // the cookie of slot "open" presented as slot "space:space_acme"
    const moved: Jar = new Map([[await cookieName('space:space_acme'), jar.get(await cookieName('open'))!]]);
    await expectInvalid(proxy.local, moved, refreshFields({ session: 'space:space_acme' }), 'other slot');
    // re-sealed by a key holder for another slot: the payload's slot still does not match
    const name = await cookieName('open');
    const otherSlot: Jar = new Map([[name, await reseal(jar.get(name)!, name, (p) => (p.sl = 'space:space_acme'))]]);
    await expectInvalid(proxy.local, otherSlot, refreshFields(), 'payload for another slot');
  });

  test('rotated key: the new key encrypts, the old one still decrypts; a removed key is rejected', async () => {
    const { jar, answer } = await connect(proxy.local);
    const name = await cookieName('open');
    const newKey = generateCookieKey();
    const rotated = await startProxy({ cookieKeys: [newKey, KEY] });
    const cached = await post(`${rotated.local}/token`, refreshFields(), new Map(jar));
    assert.equal(cached.status, 200, 'the old key still opens the old cookie');
    assert.equal(cached.json.access_token, answer.json.access_token);
    const newJar = new Map(jar);
    const forced = await post(`${rotated.local}/token`, refreshFields({ force: '1' }), newJar);
    assert.equal(forced.status, 200, forced.text);
    const [, oldKid] = jar.get(name)!.split('.');
    const [, newKid] = newJar.get(name)!.split('.');
    assert.notEqual(newKid, oldKid, 'sealed with the new key');
    // the proxy that only has the old key cannot open what the new key sealed
    await expectInvalid(proxy.local, new Map(newJar), refreshFields(), 'sealed with a key this proxy does not have');
    // the old key removed: the old cookie is rejected
    const removed = await startProxy({ cookieKeys: [newKey] });
    await expectInvalid(removed.local, new Map(jar), refreshFields(), 'old key removed');
    // and the new cookie works there
    assert.equal((await post(`${removed.local}/token`, refreshFields(), new Map(newJar))).status, 200);
  });
});

/** POST from a chosen loopback source address (127.0.0.2, ...), as another client machine would. */
function postFrom(
  localAddress: string,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Esign-Proxy': '1',
          Origin: ORIGIN,
          'Content-Length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('token-mediating mode: rate limit per caller', () => {
  test('a flood from one address (whatever Origin or X-Forwarded-For it sends) leaves another address and a session at 200', async () => {
    const limited = await startProxy({ rateLimit: { windowMs: 60_000, max: 5 }, allowedOrigins: [ORIGIN, 'http://127.0.0.1:6006'] });
    const { jar } = await connect(limited.local);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      // spoofed headers change nothing: no trusted proxy is configured
      const answer = await postFrom('127.0.0.1', `${limited.url}/token`, refreshFields(), {
        'X-Forwarded-For': `203.0.113.${i}`,
        Origin: i % 2 ? ORIGIN : 'http://127.0.0.1:6006',
      });
      statuses.push(answer.status);
    }
    // one sign-in (its login and callback routes) from 127.0.0.1 already counted: 3 more session_missing, then 429
    assert.deepEqual(statuses.slice(0, 3), [401, 401, 401]);
    assert.ok(
      statuses.slice(3).every((s) => s === 429),
      statuses.join(','),
    );
    // another client address is not affected
    const other = await postFrom('127.0.0.2', `${limited.url}/token`, refreshFields());
    assert.equal(other.status, 401, 'its own bucket (no cookie: session_missing, not 429)');
    // the session established from the flooded address has its own bucket
    const session = await post(`${limited.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(session.status, 200, session.text);
  });

  test('X-Forwarded-For is honoured only from a trusted proxy (right-most untrusted entry)', async () => {
    const limited = await startProxy({ rateLimit: { windowMs: 60_000, max: 2 }, trustedProxies: ['127.0.0.1'] });
    const flood = async (xff: string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < 3; i++) out.push((await postFrom('127.0.0.1', `${limited.url}/token`, refreshFields(), { 'X-Forwarded-For': xff })).status);
      return out;
    };
    assert.deepEqual(await flood('198.51.100.1'), [401, 401, 429]);
    // a client may prepend anything; the entry the trusted proxy appended is what counts
    assert.deepEqual(await flood('198.51.100.99, 198.51.100.1'), [429, 429, 429]);
    assert.deepEqual(await flood('198.51.100.2'), [401, 401, 429], 'another client behind the proxy');
    // from an untrusted address the header is ignored: 127.0.0.2 is its own caller
    assert.deepEqual(
      [await postFrom('127.0.0.2', `${limited.url}/token`, refreshFields(), { 'X-Forwarded-For': '198.51.100.2' })].map((a) => a.status),
      [401],
    );
  });

  test('refreshes of one session are limited per session', async () => {
    const limited = await startProxy({ rateLimit: { windowMs: 60_000, max: 3 } });
    const a = await connect(limited.local);
    // the page's first token after the sign-in was the session's first request
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(`${limited.local}/token`, refreshFields(), a.jar)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.ok(Number((await post(`${limited.local}/token`, refreshFields(), a.jar)).headers.get('retry-after')) >= 1);
  });
});

describe('token-mediating mode: refresh replay bound to the retry of its request', () => {
  test('a lost answer: the retry of the same request (same request_id, old cookie) gets the rotated tokens, one refresh at the service', async () => {
    const events: TokenProxyEvent[] = [];
    const replaying = await startProxy({ onEvent: (e) => events.push(e) });
    const { jar } = await connect(replaying.local);
    const oldJar = new Map(jar);
    await fault({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 600, times: 1 });
    // the fault is used up when the proxy's refresh arrives at the service (which then holds it 600 ms)
    const faultPending = async (): Promise<boolean> => ((await (await fetch(`${emulator.baseUrl}/__emulator/faults`)).json()) as unknown[]).length > 0;
    const gaveUp = new AbortController();
    const dropped = assert.rejects(
      post(`${replaying.local}/token`, refreshFields({ force: '1', request_id: RETRY_ID }), jar, {}, gaveUp.signal),
      'the browser dropped the request',
    );
    // the browser goes away once the proxy's refresh is at the service
    while (await faultPending()) await new Promise((r) => setTimeout(r, 10));
    gaveUp.abort();
    await dropped;
    const deadline = Date.now() + 3_000;
    while ((await refreshCount()) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await refreshCount(), 1, 'the proxy finished the refresh');
    // the browser never got the new cookie: it presents the old one again
    const retried = await post(`${replaying.local}/token`, refreshFields({ force: '1', request_id: RETRY_ID }), oldJar);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(await refreshCount(), 1, 'answered from the replay, not sent again');
    assert.equal(events.at(-1)?.replayed, true);
    assert.equal(await embeddedStatus(retried.json.access_token), 200, 'the grant is alive');
    // the cookie it got carries the rotated refresh token
    assert.equal((await post(`${replaying.local}/token`, refreshFields({ force: '1' }), oldJar)).status, 200);
    assert.equal(await refreshCount(), 2);
  });

  test('another session presenting the old refresh token reaches the service as reuse, and the grant is revoked', async () => {
    const { jar } = await connect(proxy.local);
    const name = await cookieName('open');
    const oldValue = jar.get(name)!;
    const rotated = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(rotated.status, 200);
    assert.equal(await refreshCount(), 1);
    // within the window, the old refresh token under another sid (a stolen copy re-sealed by a key holder)
    const thief: Jar = new Map([[name, await reseal(oldValue, name, (p) => (p.sid = 'another-session-id'))]]);
    const reuse = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), thief);
    assert.equal(await refreshCount(), 2, 'it reached the service');
    assert.equal(reuse.status, 400);
    assert.equal(reuse.json.error, 'invalid_grant');
    assert.equal(await embeddedStatus(rotated.json.access_token), 401, 'reuse detection revoked the grant');
    const owner = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(owner.json.error, 'invalid_grant', 'the session is over');
    assert.ok(
      owner.setCookies.some((c) => /Max-Age=0/.test(c)),
      'and its cookie cleared',
    );
  });

  test('after the window, even the retry of the same request is reuse at the service', async () => {
    const short = await startProxy({ refreshReplayMs: 1_000 });
    const { jar } = await connect(short.local);
    const oldJar = new Map(jar);
    assert.equal((await post(`${short.local}/token`, refreshFields({ force: '1', request_id: RETRY_ID }), jar)).status, 200);
    assert.equal((await post(`${short.local}/token`, refreshFields({ force: '1', request_id: RETRY_ID }), new Map(oldJar))).status, 200, 'within the window');
    await new Promise((r) => setTimeout(r, 1_100));
    const reuse = await post(`${short.local}/token`, refreshFields({ force: '1', request_id: RETRY_ID }), new Map(oldJar));
    assert.equal(reuse.status, 400);
    assert.equal(reuse.json.error, 'invalid_grant');
  });

  test('the service down keeps the cookie (502, Retry-After); its invalid_grant clears it', async () => {
    const { jar } = await connect(proxy.local);
    await fault({ path: '/openapi/v1/oauth/token', kind: 'status', status: 503, retryAfter: 4, times: 1 });
    const down = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(down.status, 502);
    assert.equal(down.json.error, 'temporarily_unavailable');
    assert.equal(down.headers.get('retry-after'), '4');
    assert.equal(down.setCookies.length, 0, 'the cookie is kept');
    const ok = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(ok.status, 200, ok.text);
    await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
    const ended = await post(`${proxy.local}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(ended.status, 400);
    assert.equal(ended.json.error, 'invalid_grant');
    assert.equal(jar.size, 0, 'cleared');
  });
});

describe('token proxy: exact routes and the opt-in browser-held mode', () => {
  test('/anything/token is 404; under basePath /api/esign only /api/esign/token and /api/esign/revoke', async () => {
    for (const path of ['/anything/token', '/token/', '/x/revoke', '/tokens']) {
      const answer = await post(`${proxy.local}${path}`, refreshFields(), new Map());
      assert.equal(answer.status, 404, path);
    }
    const preflight = await fetch(`${proxy.local}/anything/token`, { method: 'OPTIONS', headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 404);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const based = await startProxy({ basePath: '/api/esign' });
    assert.equal((await post(`${based.local}/token`, refreshFields(), new Map())).status, 404);
    assert.equal((await post(`${based.local}/anything/api/esign/token`, refreshFields(), new Map())).status, 404);
    const { jar } = await connect(`${based.local}/api/esign`);
    assert.deepEqual([...jar.keys()], [await cookieName('open', '', '/api/esign')]);
    assert.equal((await post(`${based.local}/api/esign/token`, refreshFields(), jar)).status, 200);
    assert.equal((await post(`${based.local}/api/esign/revoke`, { session: 'open' }, jar)).status, 200);
  });

  test('browser-held requests (no session) are refused when the option is off', async () => {
    const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
    const refused = await post(`${proxy.local}/token`, codeExchangeForm(login));
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'invalid_request');
    assert.match(String(refused.json.error_description), /browserHeldRefreshTokens/);
    assert.equal((await requests())['grant:authorization_code'] ?? 0, 0, 'the code was not redeemed');
    assert.equal((await post(`${proxy.local}/token`, { grant_type: 'refresh_token', refresh_token: 'rt' })).status, 400);
    assert.equal((await post(`${proxy.local}/revoke`, { token: 'rt' })).status, 400);
  });

  test('browser-held mode when on: refresh tokens in the body, no cookie', async () => {
    const held = await startProxy({ browserHeldRefreshTokens: true });
    const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
    const exchanged = await post(`${held.local}/token`, codeExchangeForm(login));
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.equal(typeof exchanged.json.refresh_token, 'string');
    assert.equal(exchanged.setCookies.length, 0);
    const refreshed = await post(`${held.local}/token`, { grant_type: 'refresh_token', refresh_token: exchanged.json.refresh_token as string });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.json.refresh_token, exchanged.json.refresh_token);
    const revoked = await post(`${held.local}/revoke`, { token: refreshed.json.refresh_token as string, token_type_hint: 'refresh_token' });
    assert.equal(revoked.status, 200);
    assert.equal(await embeddedStatus(refreshed.json.access_token), 401);
    // the mediated mode works beside it
    const { jar } = await connect(held.local);
    assert.equal((await post(`${held.local}/token`, refreshFields(), jar)).status, 200);
  });
});
