/**
 * Side harness for one question: does a refresh cost the proxy more CPU when the service is far away, at the same
 * request rate? One proxy child (memory store, or Redis with STORE=redis) against the emulator child; autocannon at a
 * fixed overall rate (RATE req/s over 10 connections) with the emulator's token endpoint delayed 0 ms or RTT_MS ms,
 * the two alternated for ROUNDS rounds (SECONDS each), plus an idle segment per round (no requests: the proxy's
 * fixed CPU per second). Prints the proxy's CPU µs per request for each. Not part of `npm run bench`; run it as
 * `node --import tsx bench/proxy-cpu-rate.ts` (RATE, RTT_MS, ROUNDS, SECONDS, STORE=redis, RATES=a,b,max for several rates, DELAYS;
 * PROFILE=<dir>: a CPU profile of the proxy for each measured segment, the warm-up left out).
 */
import { loadavg } from 'node:os';
import { cannon, mintSessionCookies, percentile, sessionRefreshRequest, startChild, type ChildServer } from './proxy.bench.js';
import { printTable } from './results.js';

/** 'max': no rate limit (as the main bench runs: as fast as 10 connections go). */
const RATES = (process.env.RATES ?? process.env.RATE ?? '100').split(',').map((r) => (r === 'max' ? Number.POSITIVE_INFINITY : Number(r)));
const RTT_MS = Number(process.env.RTT_MS ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = 10;
/** The delays to alternate (default 0 and RTT_MS); one only, e.g. DELAYS=30, to profile one case (BENCH_CHILD_ARGS='--cpu-prof ...'). */
const DELAYS = (process.env.DELAYS ?? `0,${RTT_MS}`).split(',').map(Number);

const { generateCookieKey } = await import('@esign-elements/token-proxy');
const redis = process.env.STORE === 'redis' ? await (await import('../packages/token-proxy/test/proxy-redis-server.js')).startRedisServer() : undefined;
const emulator = await startChild('emulator');
const proxy: ChildServer = await startChild('proxy', {
  BENCH_UPSTREAM: emulator.url,
  BENCH_COOKIE_KEY: generateCookieKey(),
  ...(redis ? { BENCH_STORE: redis.url } : {}),
});
const rows: Array<Record<string, string | number>> = [];
const setDelay = async (ms: number): Promise<void> => {
  await fetch(`${emulator.url}/__emulator/faults`, { method: 'DELETE' });
  if (ms === 0) return;
  const fault = await fetch(`${emulator.url}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: ms, times: 1e9 }),
  });
  if (!fault.ok) throw new Error(`could not add the delay fault: ${fault.status}`);
};
try {
  const cookies = await mintSessionCookies(emulator, proxy, CONNECTIONS * (4 + 3 * ROUNDS * RATES.length));
  const session = sessionRefreshRequest(cookies, '/token');
  // the proxy's main thread (Linux): times put on a CPU, for wake-ups per request
  const slices = async (): Promise<number> => {
    const { readFile } = await import('node:fs/promises');
    return Number((await readFile(`/proc/${proxy.child.pid}/schedstat`, 'utf8').catch(() => '0 0 0')).trim().split(' ')[2]);
  };
  const segment = async (rate: number, delayMs: number, seconds: number) => {
    await setDelay(delayMs);
    const profiling = process.env.PROFILE && rate !== 0 ? await proxy.profile() : undefined;
    const systemBefore = await proxy.systemCpu();
    const before = await proxy.cpu();
    const slicesBefore = await slices();
    const started = process.hrtime.bigint();
    const { result, latencies } =
      rate === 0
        ? { result: undefined, latencies: [] as number[] }
        : await cannon({
            url: proxy.url,
            connections: CONNECTIONS,
            ...(Number.isFinite(rate) ? { overallRate: rate } : {}),
            duration: seconds,
            requests: [session],
          } as Parameters<typeof cannon>[0]);
    if (rate === 0) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const used = (await proxy.cpu()) - before;
    const system = (await proxy.systemCpu()) - systemBefore;
    const woken = (await slices()) - slicesBefore;
    if (profiling) console.log(`profile of the proxy (rate ${rate}, delay ${delayMs} ms): ${await profiling.stop(process.env.PROFILE!)}`);
    return { result, latencies: latencies.sort((a, b) => a - b), used, system, elapsed, woken };
  };
  // warm-up at both delays
  for (const d of DELAYS) await segment(RATES[0]!, d, 3);
  for (let round = 1; round <= ROUNDS; round++) {
    const idle = await segment(0, 0, SECONDS);
    rows.push({
      round,
      segment: 'idle',
      'req/s': 0,
      'p50 ms': '-',
      'p99 ms': '-',
      'proxy CPU µs/s': Math.round(idle.used / idle.elapsed),
      'proxy CPU µs/req': '-',
      'of it kernel': '-',
      'wake-ups/req': '-',
      'non-2xx': 0,
      load: loadavg()[0]!.toFixed(2),
    });
    console.log(JSON.stringify(rows.at(-1)));
    for (const rate of RATES) {
      for (const delayMs of round % 2 ? DELAYS : [...DELAYS].reverse()) {
        const { result, latencies, used, system, elapsed, woken } = await segment(rate, delayMs, SECONDS);
        const requests = result!.requests.total;
        rows.push({
          round,
          segment: `rate ${rate}, delay ${delayMs} ms`,
          'req/s': (requests / elapsed).toFixed(1),
          'p50 ms': percentile(latencies, 50).toFixed(2),
          'p99 ms': percentile(latencies, 99).toFixed(2),
          'proxy CPU µs/s': Math.round(used / elapsed),
          'proxy CPU µs/req': Math.round(used / Math.max(1, requests)),
          'of it kernel': Math.round(system / Math.max(1, requests)),
          'wake-ups/req': (woken / Math.max(1, requests)).toFixed(2),
          'non-2xx': result!.non2xx + result!.errors,
          load: loadavg()[0]!.toFixed(2),
        });
        console.log(JSON.stringify(rows.at(-1)));
      }
    }
  }
  printTable(`one proxy (${redis ? 'Redis' : 'memory'} store), ${CONNECTIONS} connections at a fixed overall rate, ${SECONDS} s per segment`, rows);
} finally {
  await proxy.stop();
  await emulator.stop();
  await redis?.stop();
}
