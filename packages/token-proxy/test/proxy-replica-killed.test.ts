/**
 * A replica killed mid-refresh (issue 39): three esign-token-proxy processes on a real redis-server in front of the
 * emulator, 30 sessions, the service's token endpoint slow to answer (3 s: each refresh processed at once, its answer
 * held), replica A killed with SIGKILL 1.2 s into 30 forced refreshes it was making. Each page retries as the element
 * does (a lost connection: again after 250 ms, then 1 s, the same request id) through replica B.
 * - A's claims are short leases it renewed while it waited: B takes over within about 2 s of the kill, not at the
 *   end of the longest call.
 * - With the service's reuse grace at 30 s, B's refresh with the token A sent is honoured once more: all 30 sessions
 *   survive (the retry gets working tokens and the next refresh works).
 * - With no grace, the new refresh tokens died with A: every page gets `refresh_interrupted` (never the service's bare
 *   `invalid_grant`) within 5 s of the kill, its cookie cleared.
 * And the same without Redis (one proxy, its memory store): a refresh whose outcome is unknown (the service did not
 * answer in time) leaves its mark; the page's retry gets working tokens (grace) or `refresh_interrupted` (none).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';
import { serveDemoProxy } from '@esign-elements/test-support/oauth-login';
import { startCli, type CliReplica } from './proxy-cli-process.js';
import { connectSession, embeddedStatus, fault, ORIGIN, post, refreshFields, type Answer, type Jar } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
const SESSIONS = 30;
const requestId = (): string => randomBytes(16).toString('base64url');
/** The element's retry delays for a lost connection or a 502/504 (src/core/session/proxy-tokens.ts). */
const RETRY_DELAYS_MS = [250, 1_000];
let redis: RedisServer;
const cleanups: Array<() => Promise<void>> = [];

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await redis.stop();
});

async function emulatorWithGrace(seconds: number): Promise<Emulator> {
  const emulator = await createEmulator({ port: 0, filePort: 0, limits: { refreshReuseGraceSeconds: seconds } });
  cleanups.push(() => emulator.close());
  return emulator;
}

/** What a page saw of one refresh: its last answer, when it came, and the replicas that lost the connection. */
interface PageOutcome {
  answer: Answer;
  at: number;
  lost: number;
}

/** One refresh as the element makes it: to `urls[0]`, and after a lost connection or a 502/504 again (same request id) to the next. */
async function refreshAsPage(urls: string[], jar: Jar): Promise<PageOutcome> {
  const form = refreshFields({ force: '1', request_id: requestId() });
  let lost = 0;
  for (let attempt = 0; ; attempt++) {
    const url = urls[Math.min(attempt, urls.length - 1)]!;
    try {
      const answer = await post(`${url}/token`, form, jar);
      const again = answer.json.error === 'temporarily_unavailable' && answer.status >= 502;
      if (!again || attempt >= RETRY_DELAYS_MS.length) return { answer, at: Date.now(), lost };
    } catch (error) {
      lost++;
      if (attempt >= RETRY_DELAYS_MS.length) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
  }
}

async function grants(emulator: Emulator): Promise<number> {
  return ((await (await fetch(`${emulator.baseUrl}/__emulator/stats`)).json()) as { grants: number }).grants;
}

/** Three replicas, 30 sessions, A killed 1.2 s into 30 slow refreshes; the pages retry through B. */
async function killMidRefresh(emulator: Emulator): Promise<{ pages: PageOutcome[]; killedAt: number; sessions: Jar[]; replicas: CliReplica[] }> {
  const replicas = await Promise.all([0, 1, 2].map(() => startCli(emulator, KEY, ['--store', redis.url, '--rate-limit', 'off', '--timeout-ms', '8000'])));
  cleanups.push(() => Promise.all(replicas.map((r) => r.stop())).then(() => undefined));
  const [a, b] = replicas;
  // five sign-ins at a time, through the three replicas in turn
  const sessions: Jar[] = [];
  for (let i = 0; i < SESSIONS; i += 5) {
    const batch = [0, 1, 2, 3, 4].map((j) => connectSession(emulator.baseUrl, replicas[(i + j) % 3]!.url));
    for (const { jar } of await Promise.all(batch)) sessions.push(jar);
  }
  assert.equal(await grants(emulator), SESSIONS);
  // the next 30 token requests (A's) are processed at once and answered 3 s later
  await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', after: true, delayMs: 3_000, times: SESSIONS });
  const started = Date.now();
  const pages = Promise.all(sessions.map((jar) => refreshAsPage([a!.url, b!.url], jar)));
  await new Promise((resolve) => setTimeout(resolve, 1_200 - (Date.now() - started)));
  // on a busy machine A may still be sending some: the kill comes once all 30 reached the service
  while ((await (await fetch(`${emulator.baseUrl}/__emulator/faults`)).json()).length > 0) {
    assert.ok(Date.now() - started < 2_500, 'A sent its 30 refreshes in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  a!.child.kill('SIGKILL');
  const killedAt = Date.now();
  assert.equal((await a!.exited).signal, 'SIGKILL');
  return { pages: await pages, killedAt, sessions, replicas };
}

describe('a replica killed with SIGKILL mid-refresh (three replicas on Redis, 30 sessions, a slow service)', { timeout: 90_000 }, () => {
  test('with the service reuse grace at 30 s: B takes over in about 2 s and all 30 sessions survive', async () => {
    const emulator = await emulatorWithGrace(30);
    const { pages, killedAt, sessions, replicas } = await killMidRefresh(emulator);
    for (const [i, page] of pages.entries()) {
      assert.equal(page.lost, 1, `page ${i} lost its answer with A once`);
      assert.equal(page.answer.status, 200, `page ${i}: ${page.answer.text}`);
      assert.ok(page.at - killedAt < 5_000, `page ${i} answered ${page.at - killedAt} ms after the kill`);
      assert.equal(await embeddedStatus(emulator.baseUrl, page.answer.json.access_token), 200, `page ${i}: a working token`);
    }
    // the claims were taken over when their 2 s leases lapsed, not at the end of the 8 s call bound
    const first = Math.min(...pages.map((p) => p.at - killedAt));
    assert.ok(first >= 1_000 && first < 3_000, `the first retry answered ${first} ms after the kill`);
    // every session goes on through the third replica, its one grant alive
    for (const [i, jar] of sessions.entries()) {
      const next = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), jar);
      assert.equal(next.status, 200, `session ${i}: ${next.text}`);
      assert.equal(await embeddedStatus(emulator.baseUrl, next.json.access_token), 200, `session ${i} alive`);
    }
    assert.equal(await grants(emulator), SESSIONS, 'no grant revoked, none orphaned');
  });

  test('with no reuse grace: every page gets refresh_interrupted within 5 s of the kill, never a bare invalid_grant', async () => {
    const emulator = await emulatorWithGrace(0);
    const { pages, killedAt, sessions, replicas } = await killMidRefresh(emulator);
    for (const [i, page] of pages.entries()) {
      assert.equal(page.lost, 1, `page ${i} lost its answer with A once`);
      assert.equal(page.answer.status, 401, `page ${i}: ${page.answer.text}`);
      assert.equal(page.answer.json.error, 'refresh_interrupted', `page ${i}: ${page.answer.text}`);
      assert.ok(page.at - killedAt < 5_000, `page ${i} answered ${page.at - killedAt} ms after the kill`);
      assert.ok(
        page.answer.setCookies.some((line) => /^esign_(?!l_)[^=]*=;/.test(line) || /Max-Age=0/i.test(line)),
        `page ${i}: the cookie cleared (${page.answer.setCookies.join(' | ')})`,
      );
    }
    // the session is over: the cleared cookie makes no request to the service
    const next = await post(`${replicas[2]!.url}/token`, refreshFields({ force: '1', request_id: requestId() }), sessions[0]!);
    assert.equal(next.status, 401, next.text);
    assert.equal(next.json.error, 'session_missing', next.text);
  });
});

describe('one proxy on its memory store: a refresh whose outcome is unknown', { timeout: 30_000 }, () => {
  async function proxyOn(emulator: Emulator): Promise<string> {
    const served: ServedTokenProxy = await serveDemoProxy(serveTokenProxy, emulator, {
      allowedOrigins: [ORIGIN],
      cookieKeys: [KEY],
      rateLimit: false,
      timeoutMs: 1_000,
    });
    cleanups.push(() => served.close());
    return served.url.replace('//127.0.0.1:', '//localhost:');
  }

  for (const grace of [30, 0]) {
    test(`the service processed it but did not answer in time; the page's retry ${grace ? 'gets working tokens (grace 30 s)' : 'gets refresh_interrupted (no grace)'}`, async () => {
      const emulator = await emulatorWithGrace(grace);
      const url = await proxyOn(emulator);
      const { jar } = await connectSession(emulator.baseUrl, url);
      await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', after: true, delayMs: 1_500, times: 1 });
      const page = await refreshAsPage([url], jar);
      if (grace) {
        assert.equal(page.answer.status, 200, page.answer.text);
        assert.equal(await embeddedStatus(emulator.baseUrl, page.answer.json.access_token), 200, 'a working token');
        assert.equal(await grants(emulator), 1);
      } else {
        assert.equal(page.answer.status, 401, page.answer.text);
        assert.equal(page.answer.json.error, 'refresh_interrupted', page.answer.text);
      }
    });
  }
});
