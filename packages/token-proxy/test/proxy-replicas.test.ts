/**
 * Three token-proxy processes (the esign-token-proxy CLI, --store redis://) on loopback in front of the
 * emulator, sharing a real redis-server, requests spread across them (issue 12). A session signs in through one
 * replica (its login route and callback); its cookie then serves on all three:
 * 1. five pages whose access token expired together refresh through different replicas: exactly one
 *    refresh reaches the emulator, every page gets a working token, the grant stays alive; a page that comes
 *    with the old cookie just after the rotation gets the same access token, no cookie, and nothing reaches the
 *    service (issue 35: one refresh for N pages, whenever within the replay window each arrives);
 * 2. a rate limit of N per minute for one caller holds across the replicas; another caller is unaffected;
 * 3. a replica killed in the middle of a refresh: the retry (same request id) through another replica
 *    succeeds, nothing is revoked;
 * 4. Redis stopped and started again during traffic: 503s meanwhile, no session lost, all recover.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient } from '@redis/client';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { applyCookies, connectSession, embeddedStatus, fault, post, refreshCount, refreshFields, type Jar } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const KEY = generateCookieKey();
let redis: RedisServer;
/** A page's id for one refresh and its retries (base64url, 22 chars). */
const requestId = (): string => randomBytes(16).toString('base64url');
let emulator: Emulator;
const running = new Set<Replica>();

interface Replica {
  /** http://localhost:<port> */
  url: string;
  /** Its callback (http://localhost:<port>/callback, the default public origin on loopback), registered at the emulator. */
  callbackUrl: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

async function startReplica(emu: Emulator, extra: string[] = []): Promise<Replica> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ESIGN_') && k !== 'PORT' && k !== 'HOST'));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--store', redis.url, ...extra], {
    env: {
      ...clean,
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emu.baseUrl,
      ESIGN_ALLOWED_ORIGINS: 'http://localhost:6006',
      ESIGN_COOKIE_KEYS: KEY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (child.exitCode !== null || Date.now() > deadline) {
      // one that is slow to start is stopped, or its pipes would keep this file's process (and the node suite) open
      child.kill('SIGKILL');
      throw new Error(`replica did not start: ${out}`);
    }
    if (!url) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const callbackUrl = /redirect URI to register at the service: (\S+)/.exec(out)?.[1];
  if (!callbackUrl) {
    child.kill('SIGKILL');
    throw new Error(`replica printed no callback: ${out}`);
  }
  // the sign-in a page starts through this replica comes back to its callback
  emu.registerRedirectUri(DEMO_LOGIN.clientId, callbackUrl);
  const replica: Replica = {
    url: url.replace('//127.0.0.1:', '//localhost:'),
    callbackUrl,
    child,
    output: () => out,
    stop: async () => {
      running.delete(replica);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  running.add(replica);
  return replica;
}

async function flushRedis(): Promise<void> {
  const client = createClient({ url: redis.url });
  await client.connect();
  await client.flushAll();
  client.destroy();
}

/**
 * Waits until no refresh is in flight in the store. The replica that rotated answers first and settles its claim
 * (the replay entry) just after, without the answer waiting for it (refresh.ts): a request that still finds the claim
 * shares that call, as a page that raced it does, and gets the new cookie. "After the rotation" means after the settle.
 */
async function refreshesSettled(): Promise<void> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const keys = await client.keys('esign-proxy:rf:*');
      const values = keys.length > 0 ? await client.mGet(keys) : [];
      const inFlight = values.filter((value) => value?.startsWith('p:')).length;
      if (inFlight === 0 && values.some((value) => value?.startsWith('d:'))) return;
      if (Date.now() > deadline) throw new Error(`the rotation never settled in the store: ${inFlight} claim(s) in flight, ${values.length} entries`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    client.destroy();
  }
}

before(async () => {
  redis = await startRedisServer();
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await Promise.all([...running].map((r) => r.stop()));
  await emulator.close();
  await redis.stop();
});
beforeEach(async () => {
  await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
  await flushRedis();
});

describe('three proxy replicas on Redis', () => {
  let replicas: Replica[] = [];
  before(async () => {
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(emulator, ['--rate-limit', 'off'])));
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
  });

  test('five pages whose access token expired together, through different replicas: exactly one refresh at the emulator', async () => {
    const { jar, answer } = await connectSession(emulator.baseUrl, replicas[0]!.url);
    emulator.advanceClock(3_601);
    assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 401, 'the access token expired at the service');
    // the service takes its time: all five requests are surely in flight together, whichever replica they reach
    await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 800, times: 1 });
    // each page saw its token refused: force=1, all at once, one page per replica in turn, each with its own request id
    const pages = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => post(`${replicas[i % 3]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(jar))),
    );
    // in flight together, they share the one call, across replicas as within one (the waiters on the claim in Redis too)
    assert.deepEqual(
      pages.map((p) => p.status),
      [200, 200, 200, 200, 200],
      pages.map((p) => p.text).join('\n'),
    );
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'exactly one refresh reached the emulator');
    assert.equal(new Set(pages.map((p) => p.json.access_token)).size, 1, 'one set of tokens');
    for (const page of pages) assert.equal(await embeddedStatus(emulator.baseUrl, page.json.access_token), 200, 'every page has a working token');
    // the grant lives on: the next refresh (with any page's new cookie) rotates again
    const next: Jar = new Map(jar);
    applyCookies(next, pages[3]!.setCookies);
    const again = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1' }), next);
    assert.equal(again.status, 200, again.text);
    assert.equal(await refreshCount(emulator.baseUrl), 2);
  });

  test('a page that comes after the rotation with the old cookie, through another replica: the same access token, no cookie, no second refresh', async () => {
    const { jar } = await connectSession(emulator.baseUrl, replicas[0]!.url);
    const old: Jar = new Map(jar);
    const rotated = await post(`${replicas[0]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(await refreshCount(emulator.baseUrl), 1);
    await refreshesSettled();
    // inside the replay window, another request (its own id) with the pre-rotation cookie: the session's new access token only
    for (const replica of [replicas[1]!, replicas[2]!]) {
      const late = await post(`${replica.url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(old));
      assert.equal(late.status, 200, late.text);
      assert.equal(late.json.access_token, rotated.json.access_token);
      assert.equal(late.setCookies.length, 0, 'no cookie for it: the rotated refresh token stays with the request that rotated it');
    }
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'the old refresh token never went to the service again');
    // the page that holds the rotated cookie goes on
    const next = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1' }), jar);
    assert.equal(next.status, 200, next.text);
    assert.equal(await embeddedStatus(emulator.baseUrl, next.json.access_token), 200, 'the grant is alive');
  });

  test('five pages of one session through three replicas, some in flight together with a slow service, some just after: one refresh, one access token', async () => {
    const { jar, answer } = await connectSession(emulator.baseUrl, replicas[0]!.url);
    emulator.advanceClock(3_601);
    await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 600, times: 1 });
    // three pages at once; two more sent with the same (old) cookie once the first answer is back: their requests
    // left before the browser stored the new cookie, the case that used to answer 409 and rotate again on force=1
    const first = [0, 1, 2].map((i) => post(`${replicas[i]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(jar)));
    await Promise.race(first);
    const late = [3, 4].map((i) => post(`${replicas[i % 3]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(jar)));
    const pages = await Promise.all([...first, ...late]);
    assert.deepEqual(
      pages.map((p) => p.status),
      [200, 200, 200, 200, 200],
      pages.map((p) => p.text).join('\n'),
    );
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'exactly one refresh at the service');
    assert.equal(new Set(pages.map((p) => p.json.access_token)).size, 1, 'all end with the same access token');
    assert.notEqual(pages[0]!.json.access_token, answer.json.access_token);
    assert.equal(await embeddedStatus(emulator.baseUrl, pages[4]!.json.access_token), 200);
    // the browser's cookie jar holds the rotated cookie (from a page that shared the call): the next page is served from it
    const next: Jar = new Map(jar);
    applyCookies(next, pages.find((p) => p.setCookies.length > 0)!.setCookies);
    const cached = await post(`${replicas[1]!.url}/token`, refreshFields(), next);
    assert.equal(cached.status, 200, cached.text);
    assert.equal(cached.json.access_token, pages[0]!.json.access_token);
    assert.equal(await refreshCount(emulator.baseUrl), 1);
  });

  test('Redis stopped and started again during traffic: 503 meanwhile, no session lost, every session recovers', async () => {
    const sessions: Jar[] = [];
    for (let i = 0; i < 5; i++) sessions.push((await connectSession(emulator.baseUrl, replicas[i % 3]!.url)).jar);
    const statuses = new Map<number, number>();
    let stopAt = Date.now() + 700;
    let restarted = false;
    const started = Date.now();
    let stopped = false;
    // each session refreshes again and again through the replicas in turn, while Redis goes away and comes back
    const traffic = sessions.map(async (jar, s) => {
      let i = s;
      // as a page does: one request id per refresh, the same one on the retries of a 503
      let id = requestId();
      while (Date.now() - started < 3_500) {
        const answer = await post(`${replicas[i++ % 3]!.url}/token`, refreshFields({ force: '1', request_id: id }), jar);
        if (answer.status === 200) id = requestId();
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        assert.ok(answer.status === 200 || answer.status === 503, `only 200 or 503, got ${answer.status}: ${answer.text}`);
        if (answer.status === 503) {
          assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'Retry-After');
          assert.equal(answer.setCookies.length, 0, 'the cookie is kept');
        }
      }
    });
    const chaos = (async () => {
      await new Promise((resolve) => setTimeout(resolve, stopAt - Date.now()));
      await redis.stop();
      stopped = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await redis.start();
      restarted = true;
      stopAt = 0;
    })();
    await Promise.all([...traffic, chaos]);
    assert.ok(stopped && restarted);
    assert.ok((statuses.get(503) ?? 0) > 0, `Redis was missed: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(200) ?? 0) > 0);
    // afterwards every session refreshes through every replica, and its grant is alive
    for (const [s, jar] of sessions.entries()) {
      const deadline = Date.now() + 10_000;
      let answer = await post(`${replicas[s % 3]!.url}/token`, refreshFields({ force: '1' }), jar);
      while (answer.status === 503 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await post(`${replicas[s % 3]!.url}/token`, refreshFields({ force: '1' }), jar);
      }
      assert.equal(answer.status, 200, `session ${s}: ${answer.text}`);
      assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200, `session ${s} alive`);
    }
  });
});

describe('three proxy replicas on Redis: rate limit', () => {
  test('N per minute for one caller holds across the replicas; another caller is unaffected', async () => {
    const replicas = await Promise.all([0, 1, 2].map(() => startReplica(emulator, ['--rate-limit', '5', '--trusted-proxy', '127.0.0.1'])));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++)
        statuses.push((await post(`${replicas[i % 3]!.url}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': '203.0.113.7' })).status);
      // no cookie: session_missing (401) until the limit, then 429 whichever replica answers
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429]);
      for (const replica of replicas) {
        assert.equal((await post(`${replica.url}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': '203.0.113.8' })).status, 401, 'another caller');
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });
});

describe('three proxy replicas on Redis: a replica killed mid-refresh', () => {
  test('the retry through another replica succeeds and nothing is revoked', async () => {
    // a service with a reuse grace, as real ones offer: the refresh the dead replica sent was processed,
    // and only the service can honour its old refresh token once more
    const graceful = await createEmulator({ port: 0, filePort: 0, limits: { refreshReuseGraceSeconds: 30 } });
    const replicas = await Promise.all([0, 1, 2].map(() => startReplica(graceful, ['--rate-limit', 'off', '--timeout-ms', '1500'])));
    try {
      const { jar } = await connectSession(graceful.baseUrl, replicas[0]!.url);
      await fault(graceful.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 600, times: 1 });
      const id = requestId();
      const doomed = post(`${replicas[0]!.url}/token`, refreshFields({ force: '1', request_id: id }), new Map(jar)).then(
        () => 'answered',
        () => 'connection lost',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      replicas[0]!.child.kill('SIGKILL');
      assert.equal(await doomed, 'connection lost', 'the page lost its answer with the replica');
      // the page retries the same request (same request id) with the cookie it has, through another replica
      const retried = await post(`${replicas[1]!.url}/token`, refreshFields({ force: '1', request_id: id }), jar);
      assert.equal(retried.status, 200, retried.text);
      assert.equal(await embeddedStatus(graceful.baseUrl, retried.json.access_token), 200, 'a working token');
      // nothing revoked: the session goes on through the third replica
      const next = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1' }), jar);
      assert.equal(next.status, 200, next.text);
      assert.equal(await embeddedStatus(graceful.baseUrl, next.json.access_token), 200, 'the grant is alive');
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await graceful.close();
    }
  });
});
