/**
 * The Redis store (a real redis-server on a free loopback port, started and stopped here) under the
 * token proxy: atomic counters and claims with TTLs under a prefix, sealed replay entries and revoked-session
 * marks (no plaintext token in Redis), two replicas sharing the rate limit, one refresh and a Disconnect (sessions
 * signed in through a replica's login route and callback), and Redis unreachable: 503 with
 * Retry-After, the session cookie kept, recovery when Redis is back.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServeTokenProxyOptions, type ServedTokenProxy } from '../src/node.js';
import { RedisStore } from '../src/redis.js';
import { serveDemoProxy } from '@esign-elements/test-support/oauth-login';
import { connectSession, embeddedStatus, fault, ORIGIN, post, refreshCount, refreshFields } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
/** A page's id for one refresh and its retries (base64url, 22 chars). */
const requestId = (): string => randomBytes(16).toString('base64url');
let redis: RedisServer;
let emulator: Emulator;
const stores: RedisStore[] = [];
const proxies: ServedTokenProxy[] = [];

before(async () => {
  redis = await startRedisServer();
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(stores.map((s) => s.close()));
  await emulator.close();
  await redis.stop();
});
beforeEach(async () => {
  await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
});

async function store(prefix = `t${Math.random().toString(36).slice(2)}:`): Promise<RedisStore> {
  const s = await RedisStore.connect({ url: redis.url, prefix, commandTimeoutMs: 500 });
  stores.push(s);
  return s;
}

/** A replica on its own port (its callback registered at the emulator: a session signs in through any of them). */
async function replica(shared: RedisStore, overrides: Partial<ServeTokenProxyOptions> = {}): Promise<string> {
  const served = await serveDemoProxy(serveTokenProxy, emulator, {
    allowedOrigins: [ORIGIN],
    cookieKeys: [KEY],
    rateLimit: false,
    timeoutMs: 2_000,
    store: shared,
    ...overrides,
  });
  proxies.push(served);
  return served.url.replace('//127.0.0.1:', '//localhost:');
}

/** Every key under a prefix and its value, read with a separate client. */
async function dump(prefix: string): Promise<Map<string, string>> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const out = new Map<string, string>();
    for (const key of await client.keys(`${prefix}*`)) {
      const value = await client.get(key);
      if (value !== null) out.set(key, value);
    }
    return out;
  } finally {
    client.destroy();
  }
}

describe('RedisStore', () => {
  test('counters, claims, values: atomic, with TTLs, under the prefix', async () => {
    const s = await store('unit:');
    assert.deepEqual((await s.hit('c', 300)).count, 1);
    const second = await s.hit('c', 300);
    assert.equal(second.count, 2);
    assert.ok(second.resetMs > 0 && second.resetMs <= 300, `resetMs ${second.resetMs}`);
    // many hits at once: each counted once
    const counts = await Promise.all(Array.from({ length: 50 }, () => s.hit('burst', 10_000)));
    assert.deepEqual(
      counts.map((c) => c.count).sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal(await s.claim('k', 'first', 300), true);
    assert.equal(await s.claim('k', 'second', 300), false, 'already claimed');
    assert.equal(await s.get('k'), 'first');
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => s.claim('race', String(i), 5_000)));
    assert.equal(claims.filter(Boolean).length, 1, 'exactly one claim wins a race');
    await s.set('v', 'x', 5_000);
    assert.equal(await s.get('v'), 'x');
    await s.delete('v');
    assert.equal(await s.get('v'), undefined);
    const keys = await dump('unit:');
    assert.ok(
      [...keys.keys()].every((k) => k.startsWith('unit:')),
      'all under the prefix',
    );
    await new Promise((resolve) => setTimeout(resolve, 350));
    assert.equal(await s.get('k'), undefined, 'the claim expired');
    assert.equal((await s.hit('c', 300)).count, 1, 'a new window');
  });
});

describe('RedisStore: a refresh in two round trips', () => {
  test('claimOrGet counts the hit and claims in one step; over the limit it claims nothing', async () => {
    const s = await store('one:');
    const hit = { key: 'rl:x', windowMs: 10_000, max: 2 };
    const first = await s.claimOrGet('k1', 'p:a', 5_000, hit);
    assert.equal(first.claimed, true);
    assert.equal(first.hit?.count, 1);
    assert.ok(first.hit!.resetMs > 0 && first.hit!.resetMs <= 10_000);
    const second = await s.claimOrGet('k1', 'p:b', 5_000, hit);
    assert.deepEqual({ claimed: second.claimed, value: second.value, count: second.hit?.count }, { claimed: false, value: 'p:a', count: 2 });
    const third = await s.claimOrGet('k2', 'p:c', 5_000, hit);
    assert.deepEqual({ claimed: third.claimed, value: third.value, count: third.hit?.count }, { claimed: false, value: undefined, count: 3 });
    assert.equal(await s.get('k2'), undefined, 'over the limit: nothing claimed');
    const noHit = await s.claimOrGet('k3', 'p:d', 5_000);
    assert.equal(noHit.claimed, true);
    assert.equal(noHit.hit, undefined);
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => s.claimOrGet('race', String(i), 5_000)));
    assert.equal(claims.filter((c) => c.claimed).length, 1, 'exactly one claim wins a race');
    const winner = String(claims.findIndex((c) => c.claimed));
    assert.ok(
      claims.every((c) => c.claimed || c.value === winner),
      "the others read the winner's value",
    );
  });

  test('settle wakes a waiter on another connection (pub/sub), and publishes only when someone waits', async () => {
    const owner = await store('wake:');
    const waiter = await store('wake:');
    const listener = createClient({ url: redis.url });
    await listener.connect();
    const messages: string[] = [];
    await listener.subscribe('wake:settled', (message) => messages.push(message));
    try {
      assert.equal((await owner.claimOrGet('k', 'p:a', 5_000)).claimed, true);
      await owner.settle('k', 'd:quiet', 5_000);
      assert.equal(await owner.get('k'), 'd:quiet');
      assert.equal((await owner.claimOrGet('k2', 'p:a', 5_000)).claimed, true);
      const found = await waiter.claimOrGet('k2', 'p:b', 5_000);
      assert.equal(found.value, 'p:a');
      const started = Date.now();
      const woke = waiter.settled('k2', 5_000);
      setTimeout(() => void owner.settle('k2', 'd:done', 5_000), 50);
      await woke;
      assert.ok(Date.now() - started < 2_000, `woken by the settle, not the 5 s timeout (${Date.now() - started} ms)`);
      assert.equal(await waiter.get('k2'), 'd:done');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(messages, ['wake:k2'], 'one message, for the key someone waited on');
      // settle without a value removes the key
      await owner.settle('k2', undefined, 0);
      assert.equal(await owner.get('k2'), undefined);
    } finally {
      listener.destroy();
    }
  });

  test('a command Redis does not answer within commandTimeoutMs fails as StoreUnavailableError', async () => {
    const s = await store('slow:');
    assert.equal((await s.hit('c', 5_000)).count, 1);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
      const started = Date.now();
      await assert.rejects(s.claimOrGet('k', 'v', 5_000), (error: Error) => error.name === 'StoreUnavailableError' && /in time/.test(error.message));
      const took = Date.now() - started;
      assert.ok(took >= 400 && took < 1_400, `failed after the 500 ms command timeout (${took} ms)`);
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']);
      admin.destroy();
    }
    // the late reply does not shift the answers of later commands
    assert.equal((await s.hit('c', 5_000)).count, 2);
    assert.equal((await s.claimOrGet('k', 'v2', 5_000)).value, 'v');
  });

  test('scripts are loaded again after SCRIPT FLUSH (EVALSHA falls back to EVAL)', async () => {
    const s = await store('flush:');
    assert.equal((await s.hit('c', 5_000)).count, 1);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.scriptFlush();
    admin.destroy();
    assert.equal((await s.hit('c', 5_000)).count, 2);
    assert.equal((await s.claimOrGet('k', 'v', 5_000, { key: 'c', windowMs: 5_000, max: 10 })).hit?.count, 3);
  });
});

describe('token proxy on Redis: two replicas', () => {
  test('concurrent forced refreshes of one session through two replicas: one refresh at the service, same tokens, grant alive', async () => {
    const shared = await store();
    const a = await replica(shared);
    const b = await replica(shared);
    const { jar } = await connectSession(emulator.baseUrl, a);
    // the service is a little slow, so the requests overlap: in flight together, they share the one call across
    // replicas as within one (each page with its own request id)
    await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 150, times: 1 });
    const answers = await Promise.all([a, b, a, b, b].map((url) => post(`${url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(jar))));
    assert.deepEqual(
      answers.map((x) => x.status),
      [200, 200, 200, 200, 200],
      answers.map((x) => x.text).join('\n'),
    );
    assert.equal(new Set(answers.map((x) => x.json.access_token)).size, 1, 'one set of tokens');
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'exactly one refresh at the emulator');
    assert.equal(await embeddedStatus(emulator.baseUrl, answers[0]!.json.access_token), 200);
  });

  test('a lost answer: the retry of the same request (same request_id, old cookie) through the other replica gets the same tokens and the new cookie; another request the access token only', async () => {
    const shared = await store();
    const a = await replica(shared);
    const b = await replica(shared);
    const { jar } = await connectSession(emulator.baseUrl, a);
    const old = new Map(jar);
    const id = requestId();
    // the refresh went through replica a, but its answer (and the rotated cookie) never reached the browser
    const lost = await post(`${a}/token`, refreshFields({ force: '1', request_id: id }), new Map(old));
    assert.equal(lost.status, 200, lost.text);
    const retried = await post(`${b}/token`, refreshFields({ force: '1', request_id: id }), jar);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.json.access_token, lost.json.access_token, 'the same tokens, replayed from the shared store');
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'one refresh at the service');
    assert.equal(await embeddedStatus(emulator.baseUrl, retried.json.access_token), 200);
    assert.equal(retried.setCookies.length, 1, 'the retry gets the rotated cookie');
    // a request that is not that retry, with the same old cookie: the session's access token, never the rotated cookie
    const other = await post(`${b}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(old));
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.access_token, lost.json.access_token);
    assert.equal(other.setCookies.length, 0);
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'still one refresh at the service');
    // the grant is alive: the rotated cookie the retry set refreshes again
    const next = await post(`${a}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(next.status, 200, next.text);
    assert.equal(await refreshCount(emulator.baseUrl), 2);
  });

  test('the replay entries and the revoked-session mark in Redis are sealed: no token or request id in plaintext; a revoke on one replica ends the cookie on the other', async () => {
    const prefix = `sealed${Date.now()}:`;
    const shared = await store(prefix);
    const a = await replica(shared);
    const b = await replica(shared);
    const { jar } = await connectSession(emulator.baseUrl, a);
    const id = requestId();
    const refreshed = await post(`${a}/token`, refreshFields({ force: '1', request_id: id }), jar);
    assert.equal(refreshed.status, 200);
    const entries = await dump(prefix);
    const replay = [...entries].filter(([k]) => k.startsWith(`${prefix}rf:`));
    assert.equal(replay.length, 1, 'one replay entry');
    // owner (the session id), then a sealed value: the tokens and the request id (only its retry is answered) inside it
    assert.match(replay[0]![1], /^d:session:[\w-]+:ev1\.[\w-]+\.[\w-]+\.[\w-]+$/, 'owner and a sealed value');
    for (const value of entries.values()) {
      assert.ok(!value.includes(String(refreshed.json.access_token)), 'no access token');
      assert.ok(!/rt_|at_/.test(value), 'no token of the emulator in plaintext');
      assert.ok(!value.includes(id), 'no request id in plaintext');
    }
    // a copy of the cookie taken before Disconnect
    const copy = new Map(jar);
    assert.equal((await post(`${a}/revoke`, { session: 'open' }, jar)).status, 200);
    const marks = [...(await dump(prefix))].filter(([k]) => k.startsWith(`${prefix}rv:`));
    assert.equal(marks.length, 1, 'one revoked-session mark');
    assert.doesNotMatch(marks[0]![1], /revoked/, 'the mark is sealed');
    const ended = await post(`${b}/token`, refreshFields(), copy);
    assert.equal(ended.status, 401, ended.text);
    assert.equal(ended.json.error, 'session_invalid');
    assert.equal(ended.json.access_token, undefined, 'the other replica serves no copy of a disconnected session');
  });

  test('a refresh over the rate limit claims nothing and calls nothing; the limit counts each request once', async () => {
    const prefix = `limit${Date.now()}:`;
    const shared = await store(prefix);
    const options = { rateLimit: { windowMs: 60_000, max: 4 } };
    const a = await replica(shared, options);
    const b = await replica(shared, options);
    // the login route counts against the address; the page's first token (answered from the sign-in's) and the
    // refreshes against the session
    const { jar } = await connectSession(emulator.baseUrl, a);
    const statuses: number[] = [];
    for (const url of [a, b, a, b]) statuses.push((await post(`${url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(await refreshCount(emulator.baseUrl), 3);
    const entries = await dump(prefix);
    const counter = [...entries].find(([k]) => k.startsWith(`${prefix}rl:{session:`));
    assert.equal(counter?.[1], '5', 'five requests of the session counted (the first token and four refreshes)');
    const refreshes = [...entries].filter(([k]) => k.startsWith(`${prefix}rf:`) && !k.endsWith(':w'));
    assert.equal(refreshes.length, 3, 'a replay entry for each refresh, no claim for the refused one');
    assert.ok(
      refreshes.every(([, v]) => v.startsWith('d:')),
      'no claim left in flight',
    );
  });

  test('a rate limit holds across replicas for one caller, and another caller is unaffected', async () => {
    const shared = await store();
    const options = { rateLimit: { windowMs: 60_000, max: 4 }, trustedProxies: ['127.0.0.1'] };
    const a = await replica(shared, options);
    const b = await replica(shared, options);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(`${i % 2 ? a : b}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': '203.0.113.5' })).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
    assert.equal((await post(`${a}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': '203.0.113.6' })).status, 401, 'another caller');
  });
});

describe('token proxy on Redis: Redis unreachable', () => {
  test('503 with Retry-After, the cookie kept and nothing sent to the service; it recovers when Redis is back', async () => {
    const shared = await store();
    const a = await replica(shared, { rateLimit: { windowMs: 60_000, max: 1_000 } });
    const { jar } = await connectSession(emulator.baseUrl, a);
    const cookieBefore = [...jar.values()][0];
    await redis.stop();
    try {
      for (const fields of [refreshFields(), refreshFields({ force: '1' })]) {
        const down = await post(`${a}/token`, fields, jar);
        assert.equal(down.status, 503, down.text);
        assert.equal(down.json.error, 'temporarily_unavailable');
        assert.ok(Number(down.headers.get('retry-after')) >= 1, 'Retry-After');
        assert.equal(down.setCookies.length, 0, 'the cookie is kept');
      }
      assert.equal([...jar.values()][0], cookieBefore);
      assert.equal(await refreshCount(emulator.baseUrl), 0, 'no refresh reached the service');
    } finally {
      await redis.start();
    }
    const deadline = Date.now() + 10_000;
    let answer = await post(`${a}/token`, refreshFields({ force: '1' }), jar);
    while (answer.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await post(`${a}/token`, refreshFields({ force: '1' }), jar);
    }
    assert.equal(answer.status, 200, answer.text);
    assert.equal(await refreshCount(emulator.baseUrl), 1);
    assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200);
  });
});
