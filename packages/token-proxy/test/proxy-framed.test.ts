/**
 * A page inside another site's frame (issue 49, `framedBy`): partitioned cookies and the one-time handoff that gives
 * the framed page the session its popup's sign-in made (handoff.ts). Against the real emulator and the proxy over real
 * sockets, with two cookie jars per browser as a browser with partitioned cookies keeps them: the frame's (partitioned
 * by the framing site) and the popup's (top level). Each property of docs/security.md "Inside another site's frame"
 * is one test; the same in real browsers: test/browser/framed-page.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { createTokenProxy, generateCookieKey, MemoryStore, tokenProxyOptionsFromEnv } from '../src/index.js';
import { parseCli, readServeOptions } from '../src/cli-options.js';
import { RedisStore } from '../src/redis.js';
import { startRedisServer } from '@esign-elements/test-support/redis-server';
import type { ProxyStore } from '../src/store.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';
import { DEMO_LOGIN, driveConsent, getWithJar, outcomeOf, serveDemoProxy, type Jar } from '@esign-elements/test-support/oauth-login';
import { ORIGIN, post } from '@esign-elements/test-support/proxy-client';

const FRAMER = 'https://admin.shop.example';

/** The proxy's store, with the time to live of each handoff result it keeps (and a way to let one expire). */
class WatchedStore extends MemoryStore {
  readonly handoffTtls = new Map<string, number>();
  override async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (key.startsWith('ho:')) this.handoffTtls.set(key, ttlMs);
    return super.set(key, value, ttlMs);
  }
  /** What the store does when a handoff's time is up. */
  async expireHandoffs(): Promise<void> {
    for (const key of this.handoffTtls.keys()) await this.delete(key);
  }
}

let emulator: RunningEmulator;
let served: ServedTokenProxy;
let plain: ServedTokenProxy;
let proxy: string;
let store: WatchedStore;

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  store = new WatchedStore();
  served = await serveDemoProxy(serveTokenProxy, emulator, {
    allowedOrigins: [ORIGIN],
    cookieKeys: [generateCookieKey()],
    rateLimit: false,
    framedBy: [FRAMER],
    store,
    loginTimeoutSeconds: 60,
  });
  plain = await serveDemoProxy(serveTokenProxy, emulator, { allowedOrigins: [ORIGIN], cookieKeys: [generateCookieKey()], rateLimit: false });
  proxy = served.url.replace('//127.0.0.1:', '//localhost:');
});
after(async () => {
  await served.close();
  await plain.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

/** One browser: its jar inside the framing site's frame (partitioned) and its popup's top-level jar. */
interface Browser {
  frame: Jar;
  popup: Jar;
}
const browser = (): Browser => ({ frame: new Map(), popup: new Map() });
const newAttempt = (): string => randomBytes(24).toString('base64url');
const slot = { session: 'open', client_id: DEMO_LOGIN.clientId };

/** The framed page asks for its handoff: a partitioned cookie in the frame's jar, a ticket for the popup. */
async function handoff(attempt: string, who: Browser, base = proxy): Promise<string> {
  const answer = await post(`${base}/login/handoff`, { attempt, ...slot }, who.frame);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.attempt, attempt);
  return answer.json.handoff as string;
}

/** The popup's login route with a ticket; a page of the proxy's site opened it unless `site` says otherwise. */
function login(attempt: string, ticket: string, who: Browser, site: string | null = 'same-origin'): Promise<Response> {
  const query = new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: DEMO_LOGIN.scope, handoff: ticket });
  return getWithJar(`${proxy}/login?${query}`, who.popup, site ? { 'Sec-Fetch-Site': site } : {});
}

/** The whole popup: login route, consent (as `email`), callback. Answers the callback's outcome and its answer. */
async function popupSignIn(attempt: string, ticket: string, who: Browser, email?: string): Promise<{ outcome: URLSearchParams; callback: Response }> {
  const started = await login(attempt, ticket, who);
  assert.equal(started.status, 303);
  const callbackUrl = await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme', ...(email ? { email } : {}) });
  const callback = await getWithJar(callbackUrl, who.popup);
  return { outcome: outcomeOf(callback.headers.get('location')!), callback };
}

const status = (attempt: string, jar: Jar) => post(`${proxy}/login/status`, { attempt, ...slot }, jar);
const token = (jar: Jar, base = proxy) => post(`${base}/token`, { grant_type: 'refresh_token', ...slot }, jar);

describe('the setting', () => {
  test('the same in the CLI (repeatable), the environment (comma-separated) and the options, checked', () => {
    const parsed = parseCli(['--framed-by', 'https://admin.shopify.com', '--framed-by', 'https://teams.microsoft.com']);
    assert.ok('values' in parsed);
    const cli = readServeOptions(parsed.values, { ESIGN_CLIENT_ID: 'c', ESIGN_CLIENT_SECRET: 's', ESIGN_BASE_URL: 'https://esign.example.com' });
    assert.ok('options' in cli, JSON.stringify(cli));
    assert.deepEqual(cli.options.framedBy, ['https://admin.shopify.com', 'https://teams.microsoft.com']);
    const fromEnv = tokenProxyOptionsFromEnv({ ESIGN_FRAMED_BY: 'https://admin.shopify.com, https://teams.microsoft.com' });
    assert.deepEqual(fromEnv.framedBy, ['https://admin.shopify.com', 'https://teams.microsoft.com']);
    assert.equal(tokenProxyOptionsFromEnv({}).framedBy, undefined);
    const base = { clientId: 'c', clientSecret: 's', baseUrl: 'https://esign.example.com', allowedOrigins: [] };
    assert.throws(() => createTokenProxy({ ...base, framedBy: ['*'] }), /framedBy: "\*" is not allowed/);
    assert.throws(() => createTokenProxy({ ...base, framedBy: ['https://admin.shopify.com/apps'] }), /framedBy: expected scheme:\/\/host/);
    assert.throws(
      () =>
        createTokenProxy({ ...base, browserHeldRefreshTokens: true, redirectUris: ['https://app.example.com/cb'], framedBy: ['https://admin.shopify.com'] }),
      /framedBy needs the token-mediating mode/,
    );
    createTokenProxy({ ...base, cookieKeys: [generateCookieKey()], publicOrigin: 'https://app.example.com', framedBy: ['https://admin.shopify.com'] });
  });
});

describe('cookies of a proxy that serves framed pages', () => {
  test('every cookie is Partitioned; SameSite=None; Secure; HttpOnly: handoff, pre-login, session, Disconnect', async () => {
    const who = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, who);
    const lines: string[] = [];
    const started = await login(attempt, ticket, who);
    lines.push(...started.headers.getSetCookie());
    const callbackUrl = await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme' });
    const callback = await getWithJar(callbackUrl, who.popup);
    lines.push(...callback.headers.getSetCookie());
    const claimed = await status(attempt, who.frame);
    lines.push(...claimed.setCookies);
    const revoked = await post(`${proxy}/revoke`, slot, who.frame);
    assert.equal(revoked.status, 200, revoked.text);
    lines.push(...revoked.setCookies);
    assert.ok(lines.length >= 5, lines.join('\n'));
    for (const line of lines) {
      for (const attribute of [/; Partitioned/, /; SameSite=None/, /; Secure/, /; HttpOnly/, /; Path=\//]) assert.match(line, attribute, line);
      assert.doesNotMatch(line, /SameSite=(Strict|Lax)/, line);
    }
  });

  test('the same proxy still serves the app opened on its own: a top-level sign-in without a handoff', async () => {
    const jar: Jar = new Map();
    const attempt = newAttempt();
    const query = new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: DEMO_LOGIN.scope });
    const started = await getWithJar(`${proxy}/login?${query}`, jar);
    const callback = await getWithJar(await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme' }), jar);
    assert.equal(outcomeOf(callback.headers.get('location')!).get('outcome'), 'connected');
    assert.match(callback.headers.getSetCookie().find((line) => /esign_[\w-]{16}=v1\./.test(line)) ?? '', /Partitioned/);
    assert.deepEqual((await status(attempt, jar)).json, { attempt, status: 'connected' });
    assert.equal((await token(jar)).status, 200);
  });

  test('a proxy without framedBy is unchanged: no Partitioned, SameSite=Strict, and no handoff', async () => {
    const refused = await post(`${plain.url}/login/handoff`, { attempt: newAttempt(), ...slot }, new Map());
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'framing_not_allowed');
    assert.match(refused.json.error_description as string, /--framed-by/);
    assert.equal(refused.setCookies.length, 0);
    const query = new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: newAttempt(), scope: DEMO_LOGIN.scope });
    const started = await getWithJar(`${plain.url}/login?${query}`, new Map());
    const line = started.headers.getSetCookie()[0] ?? '';
    assert.match(line, /SameSite=Lax/);
    assert.doesNotMatch(line, /Partitioned|SameSite=None/);
    // a ticket on such a proxy starts no sign-in
    const withTicket = await getWithJar(`${plain.url}/login?${query}&handoff=x`, new Map(), { 'Sec-Fetch-Site': 'same-origin' });
    assert.equal(outcomeOf(withTicket.headers.get('location')!).get('error'), 'framing_not_allowed');
  });

  test('a framed page that names a framing site the proxy does not allow is told which setting to change', async () => {
    const answer = await post(`${proxy}/login/handoff`, { attempt: newAttempt(), ...slot, top: 'https://other.example' }, new Map());
    assert.equal(answer.status, 400);
    assert.equal(answer.json.error, 'framing_not_allowed');
    assert.match(answer.json.error_description as string, /--framed-by https:\/\/other\.example/);
    assert.equal((await post(`${proxy}/login/handoff`, { attempt: newAttempt(), ...slot, top: FRAMER }, new Map())).status, 200);
  });
});

describe('the handoff', () => {
  test('the framed page claims its popup’s sign-in once; the popup keeps no session of its own', async () => {
    const who = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, who);
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'ready' });
    const started = await login(attempt, ticket, who);
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'pending' });
    const callbackUrl = await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme' });
    const callback = await getWithJar(callbackUrl, who.popup);
    const outcome = outcomeOf(callback.headers.get('location')!);
    assert.equal(outcome.get('outcome'), 'connected');
    assert.equal(outcome.get('attempt'), attempt);
    assert.ok(!callback.headers.getSetCookie().some((line) => /esign_[\w-]{16}=v1\./.test(line)), 'no session cookie for the popup');
    assert.deepEqual([...who.popup.keys()], [], 'nothing left in the popup’s jar');
    assert.notEqual((await token(who.popup)).status, 200, 'the popup’s top-level jar holds no session');
    // the result waits seconds, not minutes
    assert.deepEqual([...store.handoffTtls.values()].at(-1), 30_000);
    const claimed = await status(attempt, who.frame);
    assert.deepEqual(claimed.json, { attempt, status: 'connected' });
    const first = await token(who.frame);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.login_attempt, attempt);
    assert.equal(typeof first.json.access_token, 'string');
    // asked again, the page hears connected from its session cookie; nothing is claimed twice
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'connected' });
  });

  test('an attacker never claims a victim’s sign-in, even with the same attempt id and its ticket', async () => {
    const victim = browser();
    const attacker = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, victim);
    // the attacker holds a handoff cookie of its own for the very attempt id (it is in the popup's address)
    await handoff(attempt, attacker);
    await popupSignIn(attempt, ticket, victim);
    const tried = await status(attempt, attacker.frame);
    assert.notEqual(tried.json.status, 'connected');
    assert.ok(!tried.setCookies.some((line) => /esign_[\w-]{16}=v1\./.test(line)));
    assert.notEqual((await token(attacker.frame)).status, 200);
    assert.deepEqual((await status(attempt, victim.frame)).json, { attempt, status: 'connected' });
    assert.equal((await token(victim.frame)).status, 200);
  });

  test('a victim’s page never claims an attacker’s sign-in', async () => {
    const victim = browser();
    const attacker = browser();
    const attempt = newAttempt();
    await handoff(attempt, victim);
    // the attacker signs in in its own browser, with its own ticket
    const attackerTicket = await handoff(attempt, attacker);
    await popupSignIn(attempt, attackerTicket, attacker);
    const tried = await status(attempt, victim.frame);
    assert.equal(tried.json.status, 'ready', 'the victim’s own popup never started');
    assert.notEqual((await token(victim.frame)).status, 200);
  });

  test('a link that carries someone else’s ticket signs no one in: only a page of the proxy’s site opens it', async () => {
    const attacker = browser();
    const victim = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, attacker);
    // the victim follows the attacker's link from a mail (none), another site (cross-site) or a browser without the header
    for (const [site, error] of [
      ['none', 'state_mismatch'],
      ['cross-site', 'cookie_blocked'],
      [null, 'state_mismatch'],
    ] as const) {
      const started = await login(attempt, ticket, victim, site);
      assert.equal(started.status, 303);
      assert.equal(outcomeOf(started.headers.get('location')!).get('error'), error, String(site));
      assert.deepEqual([...victim.popup.keys()], [], 'no pre-login cookie: no consent page reached');
    }
    // a ticket of another attempt, or a forged one, is refused too
    const other = await login(newAttempt(), ticket, victim);
    assert.equal(outcomeOf(other.headers.get('location')!).get('error'), 'state_mismatch');
    const forged = await login(attempt, `${ticket.slice(0, -4)}AAAA`, victim);
    assert.equal(outcomeOf(forged.headers.get('location')!).get('error'), 'state_mismatch');
    assert.deepEqual((await status(attempt, attacker.frame)).json, { attempt, status: 'ready' }, 'no sign-in started for the attacker’s ticket');
  });

  test('a handoff is good once: a copy of the handoff cookie claims nothing after the page did', async () => {
    const who = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, who);
    const copy: Jar = new Map(who.frame);
    await popupSignIn(attempt, ticket, who);
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'connected' });
    const replay = await status(attempt, copy);
    assert.deepEqual(replay.json, { attempt, status: 'unknown' });
    assert.equal(replay.setCookies.length, 0);
    assert.notEqual((await token(copy)).status, 200);
    // a second sign-in with the same ticket keeps nothing either (its new grant is revoked)
    const again = await popupSignIn(attempt, ticket, browser());
    assert.equal(again.outcome.get('error'), 'state_mismatch');
  });

  test('a handoff nobody claimed in time is gone; an expired ticket starts no sign-in', async () => {
    const who = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, who);
    await popupSignIn(attempt, ticket, who);
    await store.expireHandoffs();
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'pending' });
    assert.notEqual((await token(who.frame)).status, 200);

    const short = await serveDemoProxy(serveTokenProxy, emulator, {
      allowedOrigins: [ORIGIN],
      cookieKeys: [generateCookieKey()],
      rateLimit: false,
      framedBy: [FRAMER],
      loginTimeoutSeconds: 1,
    });
    try {
      const late = browser();
      const lateAttempt = newAttempt();
      const lateTicket = await handoff(lateAttempt, late, short.url);
      // the ticket's own expiry (loginTimeoutSeconds) passes: a wait for time itself, not for the machine
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const query = new URLSearchParams({
        session: 'open',
        origin: ORIGIN,
        display: 'popup',
        attempt: lateAttempt,
        scope: DEMO_LOGIN.scope,
        handoff: lateTicket,
      });
      const started = await getWithJar(`${short.url}/login?${query}`, late.popup, { 'Sec-Fetch-Site': 'same-origin' });
      assert.equal(outcomeOf(started.headers.get('location')!).get('error'), 'login_expired');
    } finally {
      await short.close();
    }
  });

  test('an error in the popup reaches the framed page through its handoff', async () => {
    const who = browser();
    const attempt = newAttempt();
    const ticket = await handoff(attempt, who);
    const started = await login(attempt, ticket, who);
    const callbackUrl = await driveConsent(new URL(started.headers.get('location')!), { decision: 'deny' });
    await getWithJar(callbackUrl, who.popup);
    assert.deepEqual((await status(attempt, who.frame)).json, { attempt, status: 'error', error: 'access_denied' });
  });
});

describe('replicas sharing a store', () => {
  for (const kind of ['memory', 'redis'] as const)
    test(`the handoff made at one replica, the sign-in at another, the claim at a third: once (${kind})`, async () => {
      const redis = kind === 'redis' ? await startRedisServer() : undefined;
      const shared: ProxyStore = redis ? await RedisStore.connect({ url: redis.url, prefix: 'framed:' }) : new MemoryStore();
      const key = generateCookieKey();
      const replicas = await Promise.all(
        [0, 1, 2].map(() =>
          serveDemoProxy(serveTokenProxy, emulator, { allowedOrigins: [ORIGIN], cookieKeys: [key], rateLimit: false, framedBy: [FRAMER], store: shared }),
        ),
      );
      try {
        const [a, b, c] = replicas.map((r) => r.url);
        const who = browser();
        const attempt = newAttempt();
        const ticket = await handoff(attempt, who, a);
        const query = new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: DEMO_LOGIN.scope, handoff: ticket });
        const started = await getWithJar(`${b}/login?${query}`, who.popup, { 'Sec-Fetch-Site': 'same-origin' });
        const callback = await getWithJar(await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme' }), who.popup);
        assert.equal(outcomeOf(callback.headers.get('location')!).get('outcome'), 'connected');
        const copy: Jar = new Map(who.frame);
        const claimed = await post(`${c}/login/status`, { attempt, ...slot }, who.frame);
        assert.deepEqual(claimed.json, { attempt, status: 'connected' });
        assert.equal((await token(who.frame, a)).status, 200);
        assert.deepEqual((await post(`${a}/login/status`, { attempt, ...slot }, copy)).json, { attempt, status: 'unknown' });
      } finally {
        await Promise.all(replicas.map((r) => r.close()));
        await shared.close?.();
        await redis?.stop();
      }
    });
});

describe('cross-site request forgery with SameSite=None cookies', () => {
  test('every token call without Origin, with a foreign Origin, without the proxy header or as a simple request is refused', async () => {
    const who = browser();
    const attempt = newAttempt();
    await popupSignIn(attempt, await handoff(attempt, who), who);
    assert.equal((await status(attempt, who.frame)).json.status, 'connected');
    for (const route of ['/token', '/revoke', '/login/status', '/login/handoff']) {
      const fields = { grant_type: 'refresh_token', attempt, ...slot };
      const refused = async (headers: Record<string, string>, code: number): Promise<void> => {
        const answer = await post(`${proxy}${route}`, fields, new Map(who.frame), headers);
        assert.equal(answer.status, code, `${route} ${JSON.stringify(headers)}: ${answer.text}`);
        assert.equal(answer.setCookies.length, 0);
        if (headers['Origin'] !== undefined) assert.equal(answer.headers.get('access-control-allow-origin'), null);
      };
      await refused({ Origin: FRAMER }, 403);
      await refused({ Origin: 'null' }, 403);
      await refused({ 'X-Esign-Proxy': '' }, 403);
      await refused({ 'Content-Type': 'text/plain' }, 415);
      // no Origin at all (a request a browser never sends as a POST; a server's, with a copied cookie)
      const bare = await fetch(`${proxy}${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Cookie: [...who.frame].map(([n, v]) => `${n}=${v}`).join('; ') },
        body: new URLSearchParams(fields).toString(),
      });
      assert.equal(bare.status, 403, `${route} without Origin`);
      assert.deepEqual(bare.headers.getSetCookie(), []);
      assert.equal(((await bare.json()) as { error: string }).error, 'access_denied');
    }
    // the session is still the page's: nothing above ended it
    assert.equal((await token(who.frame)).status, 200);
  });
});
