/**
 * The security review's attacks on the default session, each against the real emulator and the token proxy over
 * real sockets (the attacks that need a page, a script in it and a popup are driven in Chromium too:
 * test/browser/token-mediation.test.ts). What an attacker can reach is what these tests hold: a code from a URL, a
 * verifier it made itself, a pre-login cookie its own server asked for, a copy of a cookie, a cookie planted from a
 * sibling subdomain, a write to the shared store.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey, type ProxyStore } from '../src/index.js';
import { serveTokenProxy, type ServeTokenProxyOptions, type ServedTokenProxy } from '../src/node.js';
import { decodeCookieKey, importCookieKeys, open, seal } from '../src/seal.js';
import { MemoryStore } from '../src/store.js';
import {
  createPkcePair,
  DEMO_LOGIN,
  driveConsent,
  getWithJar,
  outcomeOf,
  serveDemoProxy,
  signInThroughProxy,
  type Jar,
} from '@esign-elements/test-support/oauth-login';
import { counters, embeddedStatus, ORIGIN, post, refreshFields } from '@esign-elements/test-support/proxy-client';

const KEY = generateCookieKey();
let emulator: RunningEmulator;
const started: ServedTokenProxy[] = [];
let proxy: string;

async function startProxy(overrides: Partial<ServeTokenProxyOptions> = {}): Promise<string> {
  const served = await serveDemoProxy(serveTokenProxy, emulator, { allowedOrigins: [ORIGIN], cookieKeys: [KEY], rateLimit: false, ...overrides });
  started.push(served);
  return served.url.replace('//127.0.0.1:', '//localhost:');
}

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  proxy = await startProxy();
});
after(async () => {
  await Promise.all(started.map((p) => p.close()));
  await emulator.close();
});
beforeEach(() => emulator.reset());

const codesRedeemed = async (): Promise<number> => (await counters(emulator.baseUrl))['grant:authorization_code'] ?? 0;
const revocations = async (): Promise<number> => (await counters(emulator.baseUrl))['POST /openapi/v1/oauth/revoke'] ?? 0;

async function connect(base = proxy, jar: Jar = new Map()): Promise<{ jar: Jar; accessToken: string }> {
  const signedIn = await signInThroughProxy({ proxyUrl: base, origin: ORIGIN, jar, chooseSpaceId: 'space_acme' });
  assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
  const first = await post(`${base}/token`, refreshFields(), jar);
  assert.equal(first.status, 200, first.text);
  return { jar, accessToken: first.json.access_token as string };
}

/** The payload of the session cookie in `jar`, as only a key holder can read it (the test is one). */
async function payloadOf(jar: Jar): Promise<{ name: string; payload: Record<string, unknown> }> {
  const [name, value] = [...jar].find(([n]) => !n.includes('esign_l_'))!;
  const text = await open(await importCookieKeys([decodeCookieKey(KEY)!]), value, `${name}|${DEMO_LOGIN.clientId}`);
  return { name, payload: JSON.parse(text!) as Record<string, unknown> };
}

async function resealed(jar: Jar, change: (payload: Record<string, unknown>) => void): Promise<Jar> {
  const { name, payload } = await payloadOf(jar);
  change(payload);
  return new Map([[name, await seal(await importCookieKeys([decodeCookieKey(KEY)!]), JSON.stringify(payload), `${name}|${DEMO_LOGIN.clientId}`)]]);
}

describe('attack 1: a script takes what the page holds during a sign-in and redeems it elsewhere', () => {
  test('the proxy redeems no code a page (or a server) sends in the default mode: no session, no redemption', async () => {
    // what a page script could hand its server at best: a code for the proxy's callback and a verifier of its own
    const pkce = createPkcePair();
    const signedIn = await signInThroughProxy({ proxyUrl: proxy, origin: ORIGIN, chooseSpaceId: 'space_acme' });
    const code = new URL(signedIn.callbackUrl).searchParams.get('code')!;
    const before = await codesRedeemed();
    // from the attacker's server: the proxy header, an allowed Origin (a server sends whatever it likes), no cookie
    const exchanged = await post(
      `${proxy}/token`,
      { grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: signedIn.callbackUrl.split('?')[0]!, session: 'open' },
      new Map(),
    );
    assert.equal(exchanged.status, 400, exchanged.text);
    assert.equal(exchanged.json.error, 'unsupported_grant_type');
    assert.equal(exchanged.setCookies.length, 0, 'no session cookie');
    assert.equal(await codesRedeemed(), before, 'nothing was redeemed');
  });

  test("the code in the callback's URL is never in a document: the callback answers with a redirect to a URL without it", async () => {
    const signedIn = await signInThroughProxy({ proxyUrl: proxy, origin: ORIGIN, chooseSpaceId: 'space_acme' });
    assert.match(signedIn.callbackUrl, /[?&]code=/);
    const final = new URL(signedIn.finalUrl);
    assert.equal(final.pathname, '/login/done');
    for (const secret of ['code', 'state']) assert.ok(!signedIn.finalUrl.includes(`${secret}=`), `${secret} in ${signedIn.finalUrl}`);
    assert.ok(!signedIn.finalUrl.includes(new URL(signedIn.callbackUrl).searchParams.get('code')!));
  });
});

describe("attack 2: the script sends the person through a sign-in of its own server's making", () => {
  test("the victim's browser brings the code to the callback without that sign-in's pre-login cookie: not redeemed, not shown, and burnt for the attacker too", async () => {
    // the attacker's server asks the proxy for a sign-in of its own (its own state, verifier and pre-login cookie)
    const attackerJar: Jar = new Map();
    const started = await getWithJar(
      `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: 'attacker-attempt-0001', scope: DEMO_LOGIN.scope })}`,
      attackerJar,
    );
    assert.equal(started.status, 303);
    assert.equal(attackerJar.size, 1, 'the attacker holds a pre-login cookie');
    // the hijacked click: the victim consents on the attacker's authorization URL; the browser comes back with the code
    const callbackUrl = await driveConsent(new URL(started.headers.get('location')!), { chooseSpaceId: 'space_acme' });
    const victimJar: Jar = new Map();
    const before = await codesRedeemed();
    const atVictim = await getWithJar(callbackUrl, victimJar);
    assert.equal(atVictim.status, 303, 'a redirect, never a page at the URL with the code');
    const location = atVictim.headers.get('location')!;
    assert.ok(!location.includes('code='), location);
    assert.equal(outcomeOf(location).get('error'), 'state_mismatch');
    assert.equal(victimJar.size, 0, 'no session cookie');
    // even if the script had read the code, the server that holds the matching pre-login cookie redeems nothing
    const atAttacker = await getWithJar(callbackUrl, attackerJar);
    assert.equal(atAttacker.status, 303);
    assert.equal(outcomeOf(atAttacker.headers.get('location')!).get('outcome'), 'error');
    assert.ok(![...attackerJar.keys()].some((n) => !n.includes('esign_l_')), 'no session cookie for the attacker');
    assert.equal(await codesRedeemed(), before, 'the code was never redeemed');
  });

  test("a sign-in's callback is redeemed once: a copy of the request (same pre-login cookie) gets nothing", async () => {
    const jar: Jar = new Map();
    const login = await getWithJar(
      `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: 'first-attempt-00001', scope: DEMO_LOGIN.scope })}`,
      jar,
    );
    const copy = new Map(jar);
    const callbackUrl = await driveConsent(new URL(login.headers.get('location')!), { chooseSpaceId: 'space_acme' });
    const first = await getWithJar(callbackUrl, jar);
    assert.equal(outcomeOf(first.headers.get('location')!).get('outcome'), 'connected');
    const again = await getWithJar(callbackUrl, copy);
    assert.equal(outcomeOf(again.headers.get('location')!).get('error'), 'state_mismatch');
    assert.ok(![...copy.keys()].some((n) => !n.includes('esign_l_')), 'no second session');
    assert.equal(await codesRedeemed(), 1);
  });

  test('the login route starts sign-ins only for allowed pages, and sends a tab back only to its own origin', async () => {
    const foreign = await getWithJar(
      `${proxy}/login?${new URLSearchParams({ session: 'open', origin: 'https://evil.example', display: 'popup', attempt: 'a'.repeat(22) })}`,
      new Map(),
    );
    assert.equal(foreign.status, 403);
    const elsewhere = await getWithJar(
      `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'page', return: 'https://evil.example/steal', attempt: 'a'.repeat(22) })}`,
      new Map(),
    );
    assert.equal(elsewhere.status, 400, 'no open redirect');
    // a page on another site would never get the cookie back: refused before the consent page
    const crossSite = await getWithJar(
      `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: 'a'.repeat(22) })}`,
      new Map(),
      { 'Sec-Fetch-Site': 'cross-site' },
    );
    assert.equal(outcomeOf(crossSite.headers.get('location')!).get('error'), 'cookie_blocked');
  });
});

describe('sign-ins started and abandoned', () => {
  test('their pre-login cookies do not pile up: past five, the older ones are cleared', async () => {
    const jar: Jar = new Map();
    for (let i = 0; i < 7; i++) {
      const started = await getWithJar(
        `${proxy}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: `abandoned-attempt-${i}00000`, scope: DEMO_LOGIN.scope })}`,
        jar,
      );
      assert.equal(started.status, 303);
      assert.ok(jar.size <= 5, `${jar.size} pre-login cookies after ${i + 1} sign-ins`);
    }
    // the newest still completes
    const last = await signInThroughProxy({ proxyUrl: proxy, origin: ORIGIN, jar, chooseSpaceId: 'space_acme' });
    assert.equal(last.outcome.get('outcome'), 'connected');
  });
});

describe('attack 3: cookie tossing from a sibling subdomain', () => {
  test('two cookies of the session name: refused with session_conflict, neither used nor cleared, nothing sent to the service', async () => {
    const { jar } = await connect();
    const { name } = await payloadOf(jar);
    const before = await counters(emulator.baseUrl);
    // what a browser sends when a sibling planted one with a longer Path: both, the planted one first
    const planted = `${name}=v1.planted.value.xxxxxxxxxxxxxxxxxxxxxx; ${name}=${jar.get(name)}`;
    for (const junk of [planted, `${name}=junk; ${name}=${jar.get(name)}`]) {
      const answer = await post(`${proxy}/token`, refreshFields({ force: '1' }), undefined, { Cookie: junk });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.error, 'session_conflict');
      assert.equal(answer.setCookies.length, 0, 'the real cookie is not deleted');
      const revoked = await post(`${proxy}/revoke`, { session: 'open' }, undefined, { Cookie: junk });
      assert.equal(revoked.json.error, 'session_conflict', 'not even a revoke picks one');
    }
    assert.deepEqual(await counters(emulator.baseUrl), before, 'nothing reached the service');
    assert.equal((await post(`${proxy}/token`, refreshFields(), jar)).status, 200, 'the session lives on');
  });
});

describe('attack 4: Secure behind a TLS-terminating reverse proxy', () => {
  test('an https public origin makes every cookie Secure and __Host-, whatever Host the request names', async () => {
    const behind = await startProxy({ publicOrigin: 'https://app.example.com' });
    // nginx's default: Host is the upstream's (127.0.0.1:port), plain http, no X-Forwarded-Proto
    const login = await getWithJar(
      `${behind.replace('localhost', '127.0.0.1')}/login?${new URLSearchParams({ session: 'open', origin: 'https://app.example.com', display: 'popup', attempt: 'a'.repeat(22), scope: DEMO_LOGIN.scope })}`,
      new Map(),
    );
    assert.equal(login.status, 303);
    const line = login.headers.getSetCookie()[0] ?? '';
    assert.ok(line.startsWith('__Host-'), line.slice(0, 30));
    assert.match(line, /; Secure/);
    assert.equal(
      new URL(login.headers.get('location')!).searchParams.get('redirect_uri'),
      'https://app.example.com/callback',
      'the callback is the public one',
    );
  });

  test("a page on the public origin is the proxy's own origin behind TLS termination; the Host header's origin is not", async () => {
    const behind = await startProxy({ publicOrigin: 'https://app.example.com', allowedOrigins: [] });
    const direct = behind.replace('localhost', '127.0.0.1');
    const own = await post(`${direct}/token`, refreshFields(), new Map(), { Origin: 'https://app.example.com' });
    assert.equal(own.status, 401, 'past the origin check (no cookie: session_missing)');
    assert.equal(own.json.error, 'session_missing');
    const hostOrigin = await post(`${direct}/token`, refreshFields(), new Map(), { Origin: direct });
    assert.equal(hostOrigin.status, 403, "the origin the Host header names is not the proxy's own");
  });

  test('the default mode refuses to start without a public origin (no Host header decides)', async () => {
    const { createTokenProxy } = await import('../src/index.js');
    assert.throws(
      () => createTokenProxy({ clientId: 'c', clientSecret: 's', baseUrl: emulator.baseUrl, allowedOrigins: [], cookieKeys: [KEY] }),
      (error: Error & { code?: string }) => error.code === 'invalid_config' && /publicOrigin/.test(error.message),
    );
  });
});

describe('attack 5: a copied cookie rides the replay window', () => {
  test('within the window, a copy of the pre-rotation cookie without the request id gets the access token only, never the rotated refresh token; the retry with it does', async () => {
    const refreshes = async (): Promise<number> => (await counters(emulator.baseUrl))['grant:refresh_token'] ?? 0;
    const { jar } = await connect();
    const copy = new Map(jar);
    const rotated = await post(`${proxy}/token`, refreshFields({ force: '1', request_id: 'page-request-0000001' }), jar);
    assert.equal(rotated.status, 200);
    assert.equal(await refreshes(), 1);
    for (const requestId of [undefined, 'thief-guess-00000001']) {
      const stolen = await post(`${proxy}/token`, refreshFields({ force: '1', ...(requestId ? { request_id: requestId } : {}) }), new Map(copy));
      // what a page that lost the race needs (the session's current access token), and nothing more: no cookie, so
      // the copy keeps the old refresh token, which after the window is reuse at the service
      assert.equal(stolen.status, 200, stolen.text);
      assert.equal(stolen.json.access_token, rotated.json.access_token);
      assert.equal(stolen.json.refresh_token, undefined);
      assert.equal(stolen.setCookies.length, 0, 'no new cookie');
    }
    assert.equal(await refreshes(), 1, 'no new rotation for the copy');
    const retry = await post(`${proxy}/token`, refreshFields({ force: '1', request_id: 'page-request-0000001' }), new Map(copy));
    assert.equal(retry.status, 200, 'the lost answer of the page itself');
    assert.equal(retry.json.access_token, rotated.json.access_token);
    assert.equal(retry.setCookies.length, 1, 'the retry gets the new cookie');
  });
});

describe('attack 6: a writer of the shared store injects tokens', () => {
  test('an unsealed replay entry in a shared store is ignored; the refresh goes to the service', async () => {
    /** A shared store (not this process's memory) in which someone wrote an unsealed "replay" for every refresh. */
    class PoisonedStore implements ProxyStore {
      readonly #inner = new MemoryStore();
      #owner = '';
      hit(key: string, windowMs: number) {
        return this.#inner.hit(key, windowMs);
      }
      async claim(key: string, value: string, ttlMs: number) {
        if (!key.startsWith('rf:')) return this.#inner.claim(key, value, ttlMs);
        this.#owner = value.slice(2);
        return false;
      }
      async get(key: string) {
        if (!key.startsWith('rf:')) return this.#inner.get(key);
        const injected = JSON.stringify({ access_token: 'injected-token', token_type: 'Bearer', expires_in: 3600 });
        return `d:${this.#owner}:-:m${injected}`;
      }
      set(key: string, value: string, ttlMs: number) {
        return this.#inner.set(key, value, ttlMs);
      }
      delete(key: string) {
        return this.#inner.delete(key);
      }
    }
    const poisoned = await startProxy({ store: new PoisonedStore() });
    const { jar } = await connect(poisoned);
    const answer = await post(`${poisoned}/token`, refreshFields({ force: '1' }), jar);
    assert.notEqual(answer.json.access_token, 'injected-token');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200, 'a real token from the service');
  });
});

describe('attack 10: Disconnect and idleness end every copy, and no grant is left behind', () => {
  test('after Disconnect, a copy of the cookie gets no cached access token', async () => {
    const { jar } = await connect();
    const copy = new Map(jar);
    assert.equal((await post(`${proxy}/revoke`, { session: 'open' }, jar)).status, 200);
    const answer = await post(`${proxy}/token`, refreshFields(), copy);
    assert.equal(answer.status, 401, answer.text);
    assert.equal(answer.json.error, 'session_invalid');
    assert.equal(answer.json.access_token, undefined);
  });

  test('a session unused past the idle timeout ends, and its grant is revoked at the service first', async () => {
    const { jar, accessToken } = await connect();
    const idle = await resealed(jar, (p) => (p.lat = Math.floor(Date.now() / 1000) - 24 * 3600 - 5));
    const before = await revocations();
    const answer = await post(`${proxy}/token`, refreshFields(), idle);
    assert.equal(answer.status, 401, answer.text);
    assert.equal(answer.json.error, 'session_invalid');
    assert.equal(await revocations(), before + 1, 'revoked at the service');
    assert.equal(await embeddedStatus(emulator.baseUrl, accessToken), 401, 'no orphaned grant');
  });

  test('a new sign-in into the same slot revokes the grant it replaces, and a copy of the old cookie gets nothing', async () => {
    const jar: Jar = new Map();
    const first = await connect(proxy, jar);
    const oldCopy = new Map(jar);
    const second = await connect(proxy, jar);
    assert.equal(await embeddedStatus(emulator.baseUrl, first.accessToken), 401, 'the first grant is revoked');
    assert.equal(await embeddedStatus(emulator.baseUrl, second.accessToken), 200);
    const stale = await post(`${proxy}/token`, refreshFields(), oldCopy);
    assert.equal(stale.status, 401, stale.text);
    assert.equal(stale.json.access_token, undefined, 'not even its cached access token');
  });
});

describe('bug 11: two pages of one site', () => {
  test("no page's URL is bound to the session: refreshes naming any redirect_uri, or none, keep it", async () => {
    const { jar } = await connect();
    for (const page of ['http://localhost:6006/a.html', 'http://localhost:6006/b.html']) {
      const answer = await post(`${proxy}/token`, refreshFields({ force: '1', redirect_uri: page }), jar);
      assert.equal(answer.status, 200, `${page}: ${answer.text}`);
    }
    assert.equal((await post(`${proxy}/token`, refreshFields({ force: '1' }), jar)).status, 200);
  });
});

describe('a session cookie sealed by an older proxy (no refresh token id, rk)', () => {
  test('it refreshes, its copies agree on the refresh (one rotation, the copy a latecomer), and its next cookie has a new rk', async () => {
    const refreshes = async (): Promise<number> => (await counters(emulator.baseUrl))['grant:refresh_token'] ?? 0;
    const { jar } = await connect();
    const { payload: current } = await payloadOf(jar);
    assert.equal(typeof current.rk, 'string', 'this proxy seals the refresh token id');
    // two seals of the same older payload (two ciphertexts of one refresh token, as an older proxy's rewrites made)
    const older = await resealed(jar, (p) => delete p.rk);
    const copy = await resealed(jar, (p) => delete p.rk);
    assert.notEqual([...older.values()][0], [...copy.values()][0]);
    const rotated = await post(`${proxy}/token`, refreshFields({ force: '1', request_id: 'page-request-0000002' }), older);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.setCookies.length, 1);
    const { payload: next } = await payloadOf(older);
    assert.equal(typeof next.rk, 'string');
    assert.notEqual(next.rk, current.rk, 'a new refresh token, a new id');
    const late = await post(`${proxy}/token`, refreshFields({ force: '1', request_id: 'page-request-0000003' }), copy);
    assert.equal(late.status, 200, late.text);
    assert.equal(late.json.access_token, rotated.json.access_token, 'the same refresh, not a second one');
    assert.equal(late.setCookies.length, 0, 'no cookie for the copy');
    assert.equal(await refreshes(), 1, 'one rotation at the service');
    const again = await post(`${proxy}/token`, refreshFields({ force: '1' }), older);
    assert.equal(again.status, 200, 'the session goes on with its new cookie');
  });
});
