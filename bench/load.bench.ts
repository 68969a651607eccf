/**
 * Bounded load: 20 s, 50 connections, 127.0.0.1 only, against the emulator and the token proxy at once.
 *
 * - 40 connections: a mix of embedded/views (signature_status and request_signatures) and small JSON uploads
 *   (1 KiB), spread round robin over 2000 access tokens so none reaches the emulator's per-token limit,
 *   raised by its `limits.requestsPerMinute` setting to 120 (default 60): no 429 expected here.
 * - 9 connections: refresh_token calls through the token proxy, each with an unused token from a pool
 *   (the rotated one goes back), as in proxy.bench.ts.
 * - 1 connection: one "hot" token calling embedded/views without pause: 429 expected after exactly 120
 *   successes in the minute, each 429 with Retry-After. The only place a 429 is allowed.
 *
 * Pass: no socket errors, no unexpected non-2xx, and heapUsed (after forced GC, in each server process)
 * grows by less than the bounds below. The servers run in child processes (proxy.bench.ts's server roles)
 * so their heaps hold nothing of autocannon's.
 */
import { loadavg } from 'node:os';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '@esign-elements/test-support/oauth-login';
import { cannon, mintRefreshTokens, percentile, poolEmpty, refreshRequest, startChild, type AutocannonRequest, type AutocannonResult } from './proxy.bench.js';
import { printTable, recordResults } from './results.js';

const DURATION_SECONDS = 20;
const MIX_CONNECTIONS = 40;
const REFRESH_CONNECTIONS = 9;
const HOT_CONNECTIONS = 1;
const RATE_LIMIT_PER_MINUTE = 120;
/** 2000 × 120 = 240 000 requests before any mix token could reach the limit: far more than 20 s can carry. */
const BUSINESS_TOKENS = 2000;
/** Access tokens come from refreshing a few grants over and over: a refresh leaves earlier access tokens valid. */
const MINT_GRANTS = 10;
const UPLOAD_BYTES = 1024;
const MIB = 1024 * 1024;
/**
 * heapUsed growth bounds after GC. The emulator keeps what the load creates (files, one-time Url records,
 * rotated tokens) until they expire, so its bound covers that state; after /__emulator/reset it must be back
 * near the start, which is the leak check.
 */
const BOUNDS = { emulatorLoaded: 50 * MIB, emulatorAfterReset: 10 * MIB, proxy: 10 * MIB };

async function tokenCall(baseUrl: string, form: URLSearchParams): Promise<{ access_token: string; refresh_token: string }> {
  form.set('client_id', DEMO_LOGIN.clientId);
  form.set('client_secret', DEMO_LOGIN.clientSecret);
  const response = await fetch(`${baseUrl}/openapi/v1/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const body = (await response.json()) as { access_token?: string; refresh_token?: string };
  if (response.status !== 200 || !body.access_token || !body.refresh_token) throw new Error(`token endpoint answered ${response.status}`);
  return { access_token: body.access_token, refresh_token: body.refresh_token };
}

/** `count` valid access tokens of Alice in space_acme: a few consents, then refresh chains. */
async function mintAccessTokens(baseUrl: string, count: number): Promise<string[]> {
  const chains = await Promise.all(
    Array.from({ length: MINT_GRANTS }, async (_, chain) => {
      const login = await obtainAuthorizationCode({ baseUrl, chooseSpaceId: 'space_acme' });
      let current = await tokenCall(baseUrl, codeExchangeForm(login));
      const tokens = [current.access_token];
      for (let i = 1; i < Math.ceil(count / MINT_GRANTS) + (chain === 0 ? 1 : 0); i++) {
        current = await tokenCall(baseUrl, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: current.refresh_token }));
        tokens.push(current.access_token);
      }
      return tokens;
    }),
  );
  return chains.flat();
}

function business(path: string, body: unknown, token: () => string): AutocannonRequest {
  return {
    method: 'POST',
    path: `/openapi/v1${path}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${token()}` } }),
  };
}

interface Stream {
  name: string;
  result: AutocannonResult;
  latencies: number[];
}

function statuses(result: AutocannonResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const emulator = await startChild('emulator', { BENCH_RPM: String(RATE_LIMIT_PER_MINUTE) });
  const proxy = await startChild('proxy', { BENCH_UPSTREAM: emulator.url });
  try {
    const tokens = await mintAccessTokens(emulator.url, BUSINESS_TOKENS);
    const hotToken = tokens.pop()!;
    // each in-flight refresh at the end of the run is lost (see proxy.bench.ts), hence 3 per connection
    const pool = await mintRefreshTokens(emulator.url, REFRESH_CONNECTIONS * 3);
    const fileBody = Buffer.alloc(UPLOAD_BYTES, 7).toString('base64');
    const first = await fetch(`${emulator.url}/openapi/v1/files/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[0]}` },
      body: JSON.stringify({ Files: [{ FileName: 'load.pdf', FileBody: fileBody }] }),
    });
    const fileId = ((await first.json()) as { Response: { Data: { Files: Array<{ FileId: string }> } } }).Response.Data.Files[0]!.FileId;
    await fetch(`${emulator.url}/__emulator/requests`, { method: 'DELETE' });

    let next = 0;
    const roundRobin = (): string => tokens[next++ % tokens.length]!;
    const mix = [
      business('/embedded/views', { OperateType: 'signature_status' }, roundRobin),
      business('/embedded/views', { OperateType: 'request_signatures', OperateParam: { FileIds: [fileId] } }, roundRobin),
      business('/files/upload', { Files: [{ FileName: 'load.pdf', FileBody: fileBody }] }, roundRobin),
      business('/embedded/views', { OperateType: 'signature_status' }, roundRobin),
    ];
    const hot = business('/embedded/views', { OperateType: 'signature_status' }, () => hotToken);
    let hotRetryAfterMissing = 0;
    hot.onResponse = (status, _body, _context, headers) => {
      if (status === 429 && !/^\d+$/.test(String(headers['retry-after'] ?? headers['Retry-After'] ?? ''))) hotRetryAfterMissing += 1;
    };

    const memBefore = { emulator: await emulator.memory(), proxy: await proxy.memory() };
    const started = Date.now();
    const [mixRun, refreshRun, hotRun] = await Promise.all([
      cannon({ url: emulator.url, connections: MIX_CONNECTIONS, duration: DURATION_SECONDS, requests: mix }),
      cannon({ url: proxy.url, connections: REFRESH_CONNECTIONS, duration: DURATION_SECONDS, requests: [refreshRequest(pool, 'proxy', '/token')] }),
      cannon({ url: emulator.url, connections: HOT_CONNECTIONS, duration: DURATION_SECONDS, requests: [hot] }),
    ]);
    const wallSeconds = (Date.now() - started) / 1000;
    // let the sockets autocannon closed settle before measuring
    await new Promise((resolve) => setTimeout(resolve, 500));
    const memLoaded = { emulator: await emulator.memory(), proxy: await proxy.memory() };
    const stats = (await (await fetch(`${emulator.url}/__emulator/stats`)).json()) as Record<string, number>;
    const counters = (await (await fetch(`${emulator.url}/__emulator/requests`)).json()) as Record<string, number>;
    await fetch(`${emulator.url}/__emulator/reset`, { method: 'POST' });
    const memReset = await emulator.memory();

    const streams: Stream[] = [
      { name: `emulator mix (views, request_signatures, 1 KiB upload), ${MIX_CONNECTIONS} conn`, ...mixRun },
      { name: `refresh through the proxy, ${REFRESH_CONNECTIONS} conn`, ...refreshRun },
      { name: `hot token on embedded/views (429 expected), ${HOT_CONNECTIONS} conn`, ...hotRun },
    ];
    printTable(
      `load: ${DURATION_SECONDS} s, ${MIX_CONNECTIONS + REFRESH_CONNECTIONS + HOT_CONNECTIONS} connections, 127.0.0.1, emulator requestsPerMinute ${RATE_LIMIT_PER_MINUTE}`,
      streams.map((s) => {
        const sorted = s.latencies.sort((a, b) => a - b);
        return {
          stream: s.name,
          requests: s.result.requests.total,
          'req/s': (s.result.requests.total / s.result.duration).toFixed(0),
          'p50 ms': percentile(sorted, 50).toFixed(2),
          'p99 ms': percentile(sorted, 99).toFixed(2),
          statuses: JSON.stringify(statuses(s.result)),
          'socket errors': s.result.errors,
          timeouts: s.result.timeouts,
        };
      }),
    );

    const hotStatuses = statuses(hotRun.result);
    const problems: string[] = [];
    if (mixRun.result.non2xx > 0) problems.push(`emulator mix: ${mixRun.result.non2xx} non-2xx ${JSON.stringify(statuses(mixRun.result))}`);
    if (refreshRun.result.non2xx > 0) problems.push(`refresh: ${refreshRun.result.non2xx} non-2xx ${JSON.stringify(statuses(refreshRun.result))}`);
    for (const s of streams) if (s.result.errors > 0) problems.push(`${s.name}: ${s.result.errors} socket errors (${s.result.timeouts} timeouts)`);
    const hotOther = Object.entries(hotStatuses).filter(([status]) => status !== '200' && status !== '429');
    if (hotOther.length > 0) problems.push(`hot token: unexpected statuses ${JSON.stringify(hotOther)}`);
    if ((hotStatuses['200'] ?? 0) > RATE_LIMIT_PER_MINUTE)
      problems.push(`hot token: ${hotStatuses['200']} successes, over the limit of ${RATE_LIMIT_PER_MINUTE}`);
    if (hotRun.result.requests.total > RATE_LIMIT_PER_MINUTE && (hotStatuses['200'] ?? 0) !== RATE_LIMIT_PER_MINUTE)
      problems.push(`hot token: ${hotStatuses['200']} successes, expected exactly ${RATE_LIMIT_PER_MINUTE} before the 429s`);
    if (hotRun.result.requests.total <= RATE_LIMIT_PER_MINUTE)
      problems.push(`hot token: only ${hotRun.result.requests.total} requests, never reached the limit`);
    if (hotRetryAfterMissing > 0) problems.push(`hot token: ${hotRetryAfterMissing} 429s without a numeric Retry-After`);
    if (poolEmpty.count > 0) problems.push(`refresh pool found empty ${poolEmpty.count} times`);

    const growth = {
      emulatorLoaded: memLoaded.emulator.heapUsed - memBefore.emulator.heapUsed,
      emulatorAfterReset: memReset.heapUsed - memBefore.emulator.heapUsed,
      proxy: memLoaded.proxy.heapUsed - memBefore.proxy.heapUsed,
    };
    const mib = (n: number): string => (n / MIB).toFixed(1);
    printTable('heapUsed after forced GC, per server process (MiB)', [
      {
        process: 'emulator, after the load',
        before: mib(memBefore.emulator.heapUsed),
        after: mib(memLoaded.emulator.heapUsed),
        growth: mib(growth.emulatorLoaded),
        bound: `< ${mib(BOUNDS.emulatorLoaded)}`,
        'arrayBuffers after': mib(memLoaded.emulator.arrayBuffers),
        rss: mib(memLoaded.emulator.rss),
      },
      {
        process: 'emulator, after /__emulator/reset',
        before: mib(memBefore.emulator.heapUsed),
        after: mib(memReset.heapUsed),
        growth: mib(growth.emulatorAfterReset),
        bound: `< ${mib(BOUNDS.emulatorAfterReset)}`,
        'arrayBuffers after': mib(memReset.arrayBuffers),
        rss: mib(memReset.rss),
      },
      {
        process: 'token proxy, after the load',
        before: mib(memBefore.proxy.heapUsed),
        after: mib(memLoaded.proxy.heapUsed),
        growth: mib(growth.proxy),
        bound: `< ${mib(BOUNDS.proxy)}`,
        'arrayBuffers after': mib(memLoaded.proxy.arrayBuffers),
        rss: mib(memLoaded.proxy.rss),
      },
    ]);
    for (const key of Object.keys(BOUNDS) as Array<keyof typeof BOUNDS>) {
      if (growth[key] >= BOUNDS[key]) problems.push(`heapUsed growth ${key}: ${mib(growth[key])} MiB ≥ bound ${mib(BOUNDS[key])} MiB`);
    }
    console.log(`\nemulator records after the load: ${JSON.stringify(stats)}`);
    const loadAfter = loadavg()[0]!;
    console.log(`1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; wall time ${wallSeconds.toFixed(1)} s`);
    console.log(
      problems.length === 0 ? '\nload: PASS (no errors, 429s only on the hot token, memory within bounds)' : `\nload: FAIL\n  ${problems.join('\n  ')}`,
    );

    recordResults('load', {
      durationSeconds: DURATION_SECONDS,
      connections: { mix: MIX_CONNECTIONS, refreshViaProxy: REFRESH_CONNECTIONS, hot: HOT_CONNECTIONS },
      emulatorRequestsPerMinute: RATE_LIMIT_PER_MINUTE,
      streams: Object.fromEntries(
        streams.map((s, i) => [
          ['mix', 'refreshViaProxy', 'hotToken'][i]!,
          {
            requests: s.result.requests.total,
            rps: Math.round(s.result.requests.total / s.result.duration),
            p50: percentile(s.latencies, 50),
            p99: percentile(s.latencies, 99),
            statuses: statuses(s.result),
            socketErrors: s.result.errors,
            timeouts: s.result.timeouts,
          },
        ]),
      ),
      emulatorRouteCounts: counters,
      emulatorRecords: stats,
      heapUsedGrowthBytes: growth,
      boundsBytes: BOUNDS,
      memory: { before: memBefore, loaded: memLoaded, emulatorAfterReset: memReset },
      loadAverage: { before: loadBefore, after: loadAfter },
      verdict: problems.length === 0 ? 'PASS' : 'FAIL',
      problems,
    });
    if (problems.length > 0) process.exitCode = 1;
  } finally {
    await proxy.stop();
    await emulator.stop();
  }
}

await main();
