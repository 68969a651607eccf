/**
 * Issue 35 over real sockets, with the memory store and with a real redis-server: the sign-in's callback writes
 * nothing for a state the proxy never issued and counts against the caller's rate limit; a Disconnect mark survives a
 * flood of short-lived entries; the browser-held mode's code exchange against a server that advertises RFC 9207 (panva's
 * oidc-provider) takes the page's iss, and a wrong or missing one is its own error, not an outage.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey, type ProxyStore } from '../src/index.js';
import type { ServeTokenProxyOptions, ServedTokenProxy } from '../src/node.js';
import { serveTokenProxy } from '../src/node.js';
import { RedisStore } from '../src/redis.js';
import { MemoryStore } from '../src/store.js';
import { startStandardsServer, type StandardsServer } from '@esign-elements/test-support/oidc-provider';
import { getWithJar, outcomeOf, serveDemoProxy, signInThroughProxy, type Jar } from '@esign-elements/test-support/oauth-login';
import { ORIGIN, post, refreshFields } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

const KEY = generateCookieKey();
let emulator: RunningEmulator;
let redis: RedisServer;
const started: ServedTokenProxy[] = [];
const stores: ProxyStore[] = [];
const clients: Array<{ destroy(): void }> = [];

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  redis = await startRedisServer();
});
after(async () => {
  await Promise.all(started.map((p) => p.close()));
  for (const store of stores) await store.close?.();
  for (const client of clients) client.destroy();
  await emulator.close();
  await redis.stop();
});
beforeEach(() => emulator.reset());

async function startProxy(overrides: Partial<ServeTokenProxyOptions>): Promise<string> {
  const served = await serveDemoProxy(serveTokenProxy, emulator, { allowedOrigins: [ORIGIN], cookieKeys: [KEY], rateLimit: false, ...overrides });
  started.push(served);
  return served.url.replace('//127.0.0.1:', '//localhost:');
}

/** The login route's redirect for a new sign-in: the authorization URL (its state), the pre-login cookie in `jar`. */
async function startLogin(proxy: string, jar: Jar = new Map()): Promise<{ state: string; status: number }> {
  const query = new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: randomBytes(16).toString('base64url') });
  const login = await getWithJar(`${proxy}/login?${query}`, jar);
  return { state: new URL(login.headers.get('location') ?? 'http://x/').searchParams.get('state') ?? '', status: login.status };
}

/** A callback with this state and a code, as the authorization server's redirect would bring it; the outcome's error. */
async function callback(proxy: string, state: string, jar: Jar = new Map()): Promise<string | null> {
  const answer = await getWithJar(`${proxy}/callback?${new URLSearchParams({ state, code: 'x' })}`, jar);
  assert.equal(answer.status, 303);
  return outcomeOf(answer.headers.get('location')!).get('error');
}

const forgedStates = (n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? randomBytes(24).toString('base64url')
      : // shaped like the proxy's own (random, issue time, MAC), with a MAC of no key of it
        `${randomBytes(32).toString('base64url')}.${Date.now().toString(36)}.${randomBytes(32).toString('base64url')}`,
  );

const storeKinds: Array<{ name: string; make: () => Promise<{ store: ProxyStore; size: () => Promise<number> }> }> = [
  {
    name: 'memory store',
    make: async () => {
      const store = new MemoryStore();
      return { store, size: () => Promise.resolve(store.size) };
    },
  },
  {
    name: 'Redis',
    make: async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      clients.push(admin);
      await admin.flushAll();
      const store = await RedisStore.connect({ url: redis.url, prefix: `cb${Date.now()}:` });
      stores.push(store);
      return {
        store,
        size: () => admin.dbSize(),
      };
    },
  },
];

for (const kind of storeKinds) {
  describe(`the callback with a state the proxy never issued (${kind.name})`, () => {
    test('N forged callbacks leave the store as it was and are rate limited; an issued state is still burnt once', async () => {
      const { store, size } = await kind.make();
      const proxy = await startProxy({ store, rateLimit: { windowMs: 60_000, max: 5 } });
      // one sign-in started from this address: its rate-limit counter exists from here on
      const issued = await startLogin(proxy);
      assert.equal(issued.status, 303);
      const before = await size();
      const errors: Array<string | null> = [];
      for (const state of forgedStates(30)) errors.push(await callback(proxy, state));
      assert.equal(await size(), before, 'no store entry for any forged state');
      // the login was hit 1 of 5: four more, then the address is over its limit
      assert.deepEqual(errors.slice(0, 4), ['state_mismatch', 'state_mismatch', 'state_mismatch', 'state_mismatch']);
      assert.ok(
        errors.slice(4).every((e) => e === 'rate_limited'),
        errors.join(','),
      );
      // from another address (the counter of 127.0.0.1 is full): a state the proxy issued, without its pre-login cookie,
      // is burnt, one entry, so the browser that holds the cookie cannot redeem a code with it either
      const other = await startProxy({ store, rateLimit: false });
      const mine = await startLogin(other);
      const sized = await size();
      assert.equal(await callback(other, mine.state), 'state_mismatch');
      assert.equal(await size(), sized + 1, 'one entry: the issued state, burnt');
      assert.equal(await callback(other, mine.state), 'state_mismatch');
      assert.equal(await size(), sized + 1);
    });
  });
}

describe('a Disconnect mark survives a flood', () => {
  const floods: Array<{ name: string; store: () => Promise<ProxyStore>; check?: (store: ProxyStore) => void }> = [
    {
      name: 'memory store with a cap of 20 entries',
      store: () => Promise.resolve(new MemoryStore({ maxKeys: 20 })),
      check: (store) => assert.ok((store as MemoryStore).size <= 20 + 1 + 1, `the short-lived entries stay within their cap (${(store as MemoryStore).size})`),
    },
    { name: 'Redis', store: async () => (await storeKinds[1]!.make()).store },
  ];
  for (const flood of floods) {
    test(`${flood.name}: 120 burnt states later, a copy of the disconnected cookie still gets nothing`, async () => {
      const store = await flood.store();
      const proxy = await startProxy({ store });
      const jar: Jar = new Map();
      const signedIn = await signInThroughProxy({ proxyUrl: proxy, origin: ORIGIN, jar, chooseSpaceId: 'space_acme' });
      assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
      const first = await post(`${proxy}/token`, refreshFields(), jar);
      assert.equal(first.status, 200, first.text);
      const copy: Jar = new Map(jar);
      const disconnected = await post(`${proxy}/revoke`, { session: 'open' }, jar);
      assert.equal(disconnected.status, 200, disconnected.text);
      assert.equal((await post(`${proxy}/token`, refreshFields(), new Map(copy))).status, 401, 'the copy is refused right after');
      // a flood of short-lived entries: sign-ins started and their states burnt by callbacks without the pre-login cookie
      for (let i = 0; i < 120; i++) assert.equal(await callback(proxy, (await startLogin(proxy)).state), 'state_mismatch');
      flood.check?.(store);
      const after = await post(`${proxy}/token`, refreshFields(), new Map(copy));
      assert.equal(after.status, 401, after.text);
      assert.equal(after.json.access_token, undefined);
    });
  }
});

describe('browser-held mode against a server that advertises RFC 9207 (oidc-provider, issuer discovery)', () => {
  let server: StandardsServer;
  let proxy: string;
  const redirectUri = 'http://localhost:6006/';
  before(async () => {
    server = await startStandardsServer({ clientId: 'standards-app', clientSecret: 'standards-secret', redirectUris: [redirectUri] });
    const served = await serveTokenProxy({
      port: 0,
      host: '127.0.0.1',
      clientId: 'standards-app',
      clientSecret: 'standards-secret',
      baseUrl: server.issuer,
      issuer: server.issuer,
      allowedOrigins: [ORIGIN],
      redirectUris: [redirectUri],
      browserHeldRefreshTokens: true,
      rateLimit: false,
    });
    started.push(served);
    proxy = served.url;
  });
  after(() => server.close());

  const exchange = (extra: Record<string, string>) =>
    post(
      `${proxy}/token`,
      { grant_type: 'authorization_code', code: 'not-a-real-code', code_verifier: 'v'.repeat(43), redirect_uri: redirectUri, ...extra },
      new Map(),
    );

  test('no iss, or another issuer: 400 invalid_issuer and nothing sent; the right iss reaches the server (which refuses this code)', async () => {
    const missing = await exchange({});
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.json.error, 'invalid_issuer');
    const other = await exchange({ iss: 'https://attacker.example' });
    assert.equal(other.status, 400, other.text);
    assert.equal(other.json.error, 'invalid_issuer');
    assert.equal(server.events.get('grant.error') ?? 0, 0, 'nothing reached the server');
    const right = await exchange({ iss: server.issuer });
    assert.equal(right.status, 400, right.text);
    assert.equal(right.json.error, 'invalid_grant', 'the server itself answered: not "could not be reached"');
  });
});
