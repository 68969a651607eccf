/**
 * Three token-proxy processes (the esign-token-proxy CLI, --store redis-cluster://) on loopback in front of the
 * emulator, sharing a real Redis Cluster of 3 primaries with 1 replica each (Debian's redis-server, `redis-cli
 * --cluster create`), requests spread across them (issue 39):
 * 1. sign-in and refresh work through every replica (no MOVED, no CROSSSLOT), and /ready says the cluster is ok;
 * 2. five pages of one session through three replicas make one refresh at the service;
 * 3. the rate limit (the login route's counter and the token route's) and Disconnect hold across the replicas for
 *    callers and sessions whose keys live on each of the three primaries;
 * 4. a primary killed (SIGKILL) during traffic is replaced by its replica: 503s with Retry-After in between (the
 *    cookie kept), /ready says why, and every session refreshes afterwards without a proxy restart.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { signInThroughProxy } from '@esign-elements/test-support/oauth-login';
import { startCli, type CliReplica } from './proxy-cli-process.js';
import {
  applyCookies,
  connectSession,
  embeddedStatus,
  fault,
  ORIGIN,
  post,
  refreshCount,
  refreshFields,
  type Jar,
} from '@esign-elements/test-support/proxy-client';
import { startRedisCluster, type RedisCluster } from '@esign-elements/test-support/redis-cluster';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const run = promisify(execFile);
const KEY = generateCookieKey();
const requestId = (): string => randomBytes(16).toString('base64url');
let cluster: RedisCluster;
let emulator: Emulator;
const running = new Set<CliReplica>();

async function startReplicas(extra: string[]): Promise<CliReplica[]> {
  const replicas = await Promise.all([0, 1, 2].map(() => startCli(emulator, KEY, ['--store', cluster.url, ...extra])));
  for (const r of replicas) running.add(r);
  return replicas;
}

async function stopReplicas(replicas: CliReplica[]): Promise<void> {
  await Promise.all(replicas.map((r) => (running.delete(r), r.stop())));
}

/** The primaries now, by port. */
async function primaries(): Promise<number[]> {
  const ports: number[] = [];
  for (const node of cluster.nodes) if ((await node.role()) === 'master') ports.push(node.port);
  return ports;
}

/** The keys matching `pattern` that a node holds (a key lives on the primary of its slot only, and its replica). */
async function keysOn(port: number, pattern: string): Promise<string[]> {
  const { stdout } = await run('/usr/bin/redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--scan', '--pattern', pattern], { timeout: 10_000 });
  return stdout.split('\n').filter(Boolean);
}

/** Which primary holds a key matching `pattern` that is not in `known`; adds the keys found to `known`. */
async function newKeyNode(pattern: string, known: Set<string>): Promise<number | undefined> {
  let found: number | undefined;
  for (const port of await primaries()) {
    for (const key of await keysOn(port, pattern)) {
      if (known.has(key)) continue;
      known.add(key);
      found = port;
    }
  }
  return found;
}

// the whole file is bounded: the cluster's start (its own deadlines: 30 s), each suite's timeout, each CLI's 60 s
before(
  async () => {
    cluster = await startRedisCluster(1_000);
    emulator = await createEmulator({ port: 0, filePort: 0 });
  },
  { timeout: 90_000 },
);
after(async () => {
  await Promise.all([...running].map((r) => r.stop()));
  await emulator?.close();
  await cluster?.stop();
});

describe('three proxy replicas on a Redis Cluster (3 primaries, 1 replica each)', { timeout: 120_000 }, () => {
  let replicas: CliReplica[] = [];
  before(async () => {
    replicas = await startReplicas(['--rate-limit', 'off']);
  });
  after(async () => {
    await stopReplicas(replicas);
  });

  test('sign-in and refresh work through every replica; /ready reports the cluster ok', async () => {
    for (const [i, replica] of replicas.entries()) {
      const ready = await fetch(`${replica.url}/ready`);
      assert.equal(ready.status, 200, await ready.clone().text());
      assert.deepEqual(await ready.json(), { status: 'ok', store: 'ok' });
      const { jar, answer } = await connectSession(emulator.baseUrl, replica.url);
      assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200);
      // the next replica refreshes it, then the one after
      for (const other of [replicas[(i + 1) % 3]!, replicas[(i + 2) % 3]!]) {
        const refreshed = await post(`${other.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
        assert.equal(refreshed.status, 200, refreshed.text);
        assert.equal(await embeddedStatus(emulator.baseUrl, refreshed.json.access_token), 200, 'a working token');
      }
    }
    assert.match(replicas[0]!.stdout(), /store: redis redis-cluster:\/\/127\.0\.0\.1:/);
  });

  test('five pages of one session through three replicas: one refresh at the service', async () => {
    await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
    const { jar } = await connectSession(emulator.baseUrl, replicas[1]!.url);
    await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 800, times: 1 });
    const pages = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => post(`${replicas[i % 3]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), new Map(jar))),
    );
    assert.deepEqual(
      pages.map((p) => p.status),
      [200, 200, 200, 200, 200],
      pages.map((p) => p.text).join('\n'),
    );
    assert.equal(await refreshCount(emulator.baseUrl), 1, 'exactly one refresh reached the service');
    assert.equal(new Set(pages.map((p) => p.json.access_token)).size, 1, 'one set of tokens');
    const next: Jar = new Map(jar);
    applyCookies(next, pages[4]!.setCookies);
    const again = await post(`${replicas[0]!.url}/token`, refreshFields({ force: '1' }), next);
    assert.equal(again.status, 200, again.text);
    assert.equal(await embeddedStatus(emulator.baseUrl, again.json.access_token), 200, 'the grant is alive');
  });

  test('Disconnect through one replica ends every copy of the cookie on the others, for sessions on each primary', async () => {
    const known = new Set(await Promise.all((await primaries()).map((p) => keysOn(p, '*rv:*'))).then((l) => l.flat()));
    const covered = new Set<number>();
    for (let i = 0; covered.size < 3; i++) {
      assert.ok(i < 40, `40 sessions landed on ${covered.size} primaries only`);
      const through = replicas[i % 3]!;
      const { jar } = await connectSession(emulator.baseUrl, through.url);
      const copy: Jar = new Map(jar);
      const revoked = await post(`${through.url}/revoke`, { session: 'open' }, jar);
      assert.equal(revoked.status, 200, revoked.text);
      const node = await newKeyNode('*rv:*', known);
      assert.ok(node !== undefined, 'the Disconnect mark is in the cluster');
      covered.add(node);
      for (const other of [replicas[(i + 1) % 3]!, replicas[(i + 2) % 3]!]) {
        const refused = await post(`${other.url}/token`, refreshFields(), new Map(copy));
        assert.equal(refused.status, 401, refused.text);
        assert.equal(refused.json.error, 'session_invalid');
        assert.equal(refused.json.access_token, undefined);
      }
    }
  });

  test('a primary killed during traffic: 503 while its replica takes over, then every session refreshes, no restart', async () => {
    await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
    const before = await primaries();
    // sessions until one's keys live on each primary (its refresh's replay entry tells where)
    const known = new Set<string>();
    const sessions: Array<{ jar: Jar; node: number }> = [];
    while (new Set(sessions.map((s) => s.node)).size < 3 || sessions.length < 6) {
      assert.ok(sessions.length < 40, 'sessions on every primary');
      const { jar } = await connectSession(emulator.baseUrl, replicas[sessions.length % 3]!.url);
      const first = await post(`${replicas[(sessions.length + 1) % 3]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
      assert.equal(first.status, 200, first.text);
      const node = await newKeyNode('*rf:{session:*', known);
      assert.ok(node !== undefined);
      sessions.push({ jar, node });
    }
    const victim = sessions[0]!.node;
    const statuses = new Map<number, number>();
    const readiness = new Set<string>();
    const started = Date.now();
    let killedAt = 0;
    const traffic = sessions.map(async ({ jar }, s) => {
      let i = s;
      let id = requestId();
      while (Date.now() - started < 5_000) {
        const answer = await post(`${replicas[i++ % 3]!.url}/token`, refreshFields({ force: '1', request_id: id }), jar);
        if (answer.status === 200) id = requestId();
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        assert.ok(answer.status === 200 || answer.status === 503, `only 200 or 503, got ${answer.status}: ${answer.text}`);
        if (answer.status === 503) {
          assert.equal(answer.json.error, 'temporarily_unavailable');
          assert.match(String(answer.json.error_description), /shared store/);
          assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'Retry-After');
          assert.equal(answer.setCookies.length, 0, 'the cookie is kept');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    });
    const chaos = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      cluster.nodes.find((n) => n.port === victim)!.kill();
      killedAt = Date.now();
      while (Date.now() - started < 5_000) {
        const ready = await fetch(`${replicas[0]!.url}/ready`);
        const body = (await ready.json()) as Record<string, string>;
        readiness.add(ready.status === 200 ? 'ok' : body.reason!);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await Promise.all([...traffic, chaos]);
    assert.ok(killedAt > 0);
    assert.ok((statuses.get(503) ?? 0) > 0, `the lost primary was missed: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(200) ?? 0) > 0);
    assert.ok(
      [...readiness].some((r) => r.startsWith('store: ')),
      `/ready said why meanwhile: ${[...readiness].join(' | ')}`,
    );
    // its replica is a primary now
    const after = await primaries();
    assert.equal(after.length, 3, `three primaries again: ${after.join(', ')}`);
    assert.ok(!after.includes(victim) && before.includes(victim));
    // every session refreshes through every replica, its grant alive, without a proxy restart
    const deadline = Date.now() + 30_000; // the clients find the new primary within seconds; a loaded machine (npm test runs suites side by side) slows that
    for (const [s, { jar }] of sessions.entries()) {
      for (const replica of replicas) {
        let answer = await post(`${replica.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
        while (answer.status === 503 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          answer = await post(`${replica.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
        }
        assert.equal(answer.status, 200, `session ${s}: ${answer.text}`);
        assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200, `session ${s} alive`);
      }
    }
    const ready = await fetch(`${replicas[2]!.url}/ready`);
    assert.equal(ready.status, 200, await ready.text());
    assert.ok(
      replicas.every((r) => r.child.exitCode === null),
      'no replica restarted',
    );
    // no refresh token spent twice (the service would have revoked its grant), none orphaned: one grant per session
    const stats = (await (await fetch(`${emulator.baseUrl}/__emulator/stats`)).json()) as { grants: number };
    assert.equal(stats.grants, sessions.length);
  });
});

describe('three proxy replicas on a Redis Cluster: a replica killed mid-refresh', { timeout: 90_000 }, () => {
  test('its leases lapse in about 2 s; each page retrying through another replica gets refresh_interrupted (no reuse grace)', async () => {
    await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
    const replicas = await startReplicas(['--rate-limit', 'off', '--timeout-ms', '8000']);
    try {
      // sessions until one's keys live on each primary
      const known = new Set<string>();
      const sessions: Jar[] = [];
      const nodes = new Set<number>();
      while (nodes.size < 3 || sessions.length < 6) {
        assert.ok(sessions.length < 40, 'sessions on every primary');
        const { jar } = await connectSession(emulator.baseUrl, replicas[1]!.url);
        const first = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
        assert.equal(first.status, 200, first.text);
        nodes.add((await newKeyNode('*rf:{session:*', known))!);
        sessions.push(jar);
      }
      // the service processes each refresh at once and answers 3 s later; replica 0 is killed 1.2 s in
      await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', after: true, delayMs: 3_000, times: sessions.length });
      const pages = sessions.map(async (jar) => {
        const form = refreshFields({ force: '1', request_id: requestId() });
        await assert.rejects(post(`${replicas[0]!.url}/token`, form, jar), 'the answer lost with the replica');
        // the element's retry after a lost connection: 250 ms later, the same request id, another replica
        await new Promise((resolve) => setTimeout(resolve, 250));
        return { answer: await post(`${replicas[1]!.url}/token`, form, jar), at: Date.now() };
      });
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      replicas[0]!.child.kill('SIGKILL');
      const killedAt = Date.now();
      for (const [i, { answer, at }] of (await Promise.all(pages)).entries()) {
        assert.equal(answer.status, 401, `session ${i}: ${answer.text}`);
        assert.equal(answer.json.error, 'refresh_interrupted', `session ${i}: ${answer.text}`);
        assert.ok(at - killedAt < 5_000, `session ${i} answered ${at - killedAt} ms after the kill`);
      }
    } finally {
      await stopReplicas(replicas);
    }
  });
});

describe('three proxy replicas on a Redis Cluster: rate limits', { timeout: 60_000 }, () => {
  test('the login route and token route counters hold across replicas for callers on each primary', async () => {
    const replicas = await startReplicas(['--rate-limit', '5', '--trusted-proxy', '127.0.0.1']);
    try {
      // callers (X-Forwarded-For) until one's counter lives on each primary
      const known = new Set<string>();
      const byNode = new Map<number, string>();
      for (let i = 1; byNode.size < 3; i++) {
        assert.ok(i < 60, 'callers on every primary');
        const address = `203.0.113.${i}`;
        const first = await post(`${replicas[0]!.url}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': address });
        assert.equal(first.status, 401, first.text);
        const node = await newKeyNode('*rl:{addr:*', known);
        assert.ok(node !== undefined);
        if (!byNode.has(node)) byNode.set(node, address);
      }
      for (const address of byNode.values()) {
        const statuses: number[] = [];
        for (let i = 1; i < 8; i++)
          statuses.push((await post(`${replicas[i % 3]!.url}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': address })).status);
        // one counted above; 401 (no session) until the fifth, then 429 whichever replica answers
        assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429, 429], address);
      }
      // the login route: a fresh caller's sign-ins, through the replicas in turn, stop at the fifth
      const outcomes: string[] = [];
      for (let i = 0; i < 7; i++) {
        const signedIn = await signInThroughProxy({
          proxyUrl: replicas[i % 3]!.url,
          origin: ORIGIN,
          jar: new Map(),
          chooseSpaceId: 'space_acme',
          headers: { 'X-Forwarded-For': '198.51.100.9' },
        });
        outcomes.push(signedIn.outcome.get('outcome') === 'connected' ? 'connected' : (signedIn.outcome.get('error') ?? 'other'));
      }
      assert.deepEqual(outcomes.slice(5), ['rate_limited', 'rate_limited'], outcomes.join(', '));
      assert.ok(
        outcomes.slice(0, 2).every((o) => o === 'connected'),
        outcomes.join(', '),
      );
    } finally {
      await stopReplicas(replicas);
    }
  });
});
