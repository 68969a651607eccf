/**
 * A replica stopped the way an orchestrator stops it (SIGTERM) in the middle of refreshes, under load: three
 * esign-token-proxy processes on a real redis-server in front of the emulator, sessions refreshing through them in
 * turn, as behind a load balancer that sends a refused connection to the next replica (same request, same request
 * id). The refreshes in flight on the stopped replica finish and their answers and rotated cookies reach the page;
 * the replica stops accepting, exits 0 within its bound; no session ends and no grant is orphaned (each session's
 * cookie still holds the newest refresh token of its one grant: its next refresh works and the service has exactly
 * one grant per session).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { startCli, type CliReplica } from './proxy-cli-process.js';
import { connectSession, embeddedStatus, fault, post, refreshFields, type Answer, type Jar } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
const requestId = (): string => randomBytes(16).toString('base64url');
let redis: RedisServer;
let emulator: Emulator;
let replicas: CliReplica[] = [];

before(async () => {
  redis = await startRedisServer();
  emulator = await createEmulator({ port: 0, filePort: 0 });
  replicas = await Promise.all([0, 1, 2].map(() => startCli(emulator, KEY, ['--store', redis.url, '--rate-limit', 'off', '--timeout-ms', '3000'])));
});
after(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await emulator.close();
  await redis.stop();
});

/**
 * One refresh as a page behind a load balancer makes it: to `first`, and on a refused or dropped connection to the
 * next replica, the same request id each time. Returns the answer and the replicas that refused it.
 */
async function refreshBehindBalancer(jar: Jar, first: number, gone: Set<number>): Promise<{ answer: Answer; refusedBy: number[] }> {
  const id = requestId();
  const refusedBy: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) {
    const index = (first + attempt) % replicas.length;
    if (gone.has(index)) continue;
    try {
      return { answer: await post(`${replicas[index]!.url}/token`, refreshFields({ force: '1', request_id: id }), jar), refusedBy };
    } catch {
      refusedBy.push(index);
    }
  }
  throw new Error(`no replica answered (refused by ${refusedBy.join(', ')})`);
}

describe('a replica stopped with SIGTERM mid-refresh, under load', () => {
  test('the refreshes in flight finish with their cookies, the replica exits 0 in time, no session ends, no grant is orphaned', async (t) => {
    const stopped = replicas[0]!;
    const sessions: Jar[] = [];
    for (let i = 0; i < 6; i++) sessions.push((await connectSession(emulator.baseUrl, replicas[i % 3]!.url)).jar);
    const grantsBefore = ((await (await fetch(`${emulator.baseUrl}/__emulator/stats`)).json()) as { grants: number }).grants;
    assert.equal(grantsBefore, sessions.length);

    // background load: four sessions refresh again and again through the replicas in turn (replica 0 included)
    const statuses: number[] = [];
    let refusals = 0;
    let loadEnds = Date.now() + 60_000;
    // paused while the two refreshes below are sent, so that the service's delay is surely theirs
    let paused = false;
    let active = 0;
    const load = sessions.slice(2).map(async (jar, s) => {
      let i = s;
      while (Date.now() < loadEnds) {
        if (paused) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        active++;
        try {
          const { answer, refusedBy } = await refreshBehindBalancer(jar, i++ % 3, new Set());
          refusals += refusedBy.length;
          statuses.push(answer.status);
        } finally {
          active--;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    try {
      await checkStop();
    } finally {
      // a failure above must not leave the load running past the test
      loadEnds = 0;
      await Promise.allSettled(load);
    }

    async function checkStop(): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 400));
      paused = true;
      while (active > 0) await new Promise((resolve) => setTimeout(resolve, 5));

      // two sessions' refreshes go to replica 0 while the service takes its time: both are surely in flight at the SIGTERM
      await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 900, times: 2 });
      const before0 = sessions.slice(0, 2).map((jar) => new Map(jar));
      const inFlight = sessions.slice(0, 2).map((jar) => post(`${stopped.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar));
      const faultsLeft = async (): Promise<number> => ((await (await fetch(`${emulator.baseUrl}/__emulator/faults`)).json()) as unknown[]).length;
      const deadline = Date.now() + 5_000;
      while ((await faultsLeft()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(await faultsLeft(), 0, 'both refreshes are at the service');
      const signalledAt = Date.now();
      stopped.child.kill('SIGTERM');
      // the load goes on meanwhile: its requests to the stopping replica are refused and go to the next one
      paused = false;

      // the refreshes in flight are answered, with their rotated cookies
      const answers = await Promise.all(inFlight);
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.headers.get('connection'), 'close', 'the connection ends with the answer');
        assert.ok(
          answer.setCookies.some((line) => /^esign_(?!l_)/.test(line)),
          'the rotated session cookie reached the page',
        );
        assert.notEqual(
          sessions[i]!.get([...sessions[i]!.keys()].find((name) => /^esign_(?!l_)/.test(name))!),
          before0[i]!.get([...before0[i]!.keys()].find((name) => /^esign_(?!l_)/.test(name))!),
          'a new cookie',
        );
        assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200, 'a working access token');
      }
      // it stops accepting, and exits 0 within its bound (--timeout-ms 3000 + 5 s)
      const exit = await stopped.exited;
      const tookMs = Date.now() - signalledAt;
      assert.deepEqual(exit, { code: 0, signal: null }, stopped.stderr());
      assert.ok(tookMs < 8_000, `exited after ${tookMs} ms`);
      await assert.rejects(fetch(`${stopped.url}/health`), 'no longer accepting');
      const said = stopped.lines().map((line) => line.msg);
      assert.ok(said.includes('shutting down') && said.includes('stopped'), stopped.stdout());

      // the load went on through the others meanwhile
      await new Promise((resolve) => setTimeout(resolve, 500));
      loadEnds = 0;
      await Promise.all(load);
      assert.ok(statuses.length > 10, `load: ${statuses.length} refreshes`);
      assert.deepEqual(
        [...new Set(statuses)],
        [200],
        `every refresh of the load succeeded (${statuses.length}, ${refusals} refused connections retried elsewhere)`,
      );
      t.diagnostic(
        `load: ${statuses.length} refreshes, all 200; ${refusals} connections refused by the stopping replica and retried on another; exit after ${tookMs} ms`,
      );
    }

    // no session ended, no grant orphaned: every session refreshes once more through the survivors with the cookie it
    // holds (a lost answer would leave it an old refresh token: the service would see reuse and revoke the grant)
    for (const [s, jar] of sessions.entries()) {
      const { answer } = await refreshBehindBalancer(jar, 1 + (s % 2), new Set([0]));
      assert.equal(answer.status, 200, `session ${s}: ${answer.text}`);
      assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200, `session ${s} alive`);
    }
    const grants = ((await (await fetch(`${emulator.baseUrl}/__emulator/stats`)).json()) as { grants: number }).grants;
    assert.equal(grants, sessions.length, 'one grant per session, none extra');
    for (const replica of replicas) assert.ok(!(replica.stdout() + replica.stderr()).includes(DEMO_LOGIN.clientSecret), 'the secret is never printed');
  });
});
