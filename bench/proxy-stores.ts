/**
 * Where the three-replica gap of proxy.bench.ts comes from: the same forced session refreshes (30 ms service round
 * trip, 10 connections) through 1 or 3 proxies, each on its own memory store or on one shared redis-server, the four
 * set-ups alternated for a few rounds. Not part of `npm run bench` (it answers one question and takes about four
 * minutes); run it as `node --import tsx bench/proxy-stores.ts` (ROUNDS, SECONDS and RTT_MS to change it).
 *
 * Three proxies on memory stores do not share a refresh in flight (each session here is refreshed by one request at a
 * time, so nothing needs sharing): they show what three processes cost, apart from what the store costs.
 */
import { cannon, mintSessionCookies, percentile, sessionRefreshRequest, startChild, type ChildServer } from './proxy.bench.js';
import { printTable } from './results.js';

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SECONDS = Number(process.env.SECONDS ?? 15);
const WARMUP_SECONDS = 3;
const CONNECTIONS = 10;
const RTT_MS = Number(process.env.RTT_MS ?? 30);
const SETUPS = [
  { name: '1 proxy, memory store', replicas: 1, redis: false },
  { name: '3 proxies, memory stores', replicas: 3, redis: false },
  { name: '1 proxy, Redis store', replicas: 1, redis: true },
  { name: '3 proxies, Redis store', replicas: 3, redis: true },
] as const;

const { startRedisServer } = await import('@esign-elements/test-support/redis-server');
const { generateCookieKey } = await import('@esign-elements/token-proxy');
const redis = await startRedisServer();
const emulator = await startChild('emulator');
const rows: Array<Record<string, string | number>> = [];
try {
  const delay = await fetch(`${emulator.url}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: RTT_MS, times: 1e9 }),
  });
  if (!delay.ok) throw new Error(`could not add the delay fault: ${delay.status}`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const setup of SETUPS) {
      const env = { BENCH_UPSTREAM: emulator.url, BENCH_COOKIE_KEY: generateCookieKey(), ...(setup.redis ? { BENCH_STORE: redis.url } : {}) };
      const proxies: ChildServer[] = await Promise.all(Array.from({ length: setup.replicas }, () => startChild('proxy', env)));
      try {
        const session = sessionRefreshRequest(await mintSessionCookies(emulator, proxies[0]!, CONNECTIONS * 6), '/token');
        const run = (seconds: number) =>
          Promise.all(
            proxies.map((proxy, i) =>
              cannon({
                url: proxy.url,
                connections: Math.floor(CONNECTIONS / proxies.length) + (i < CONNECTIONS % proxies.length ? 1 : 0),
                duration: seconds,
                requests: [session],
              }),
            ),
          );
        await run(WARMUP_SECONDS);
        const cpu = async (): Promise<number> => (await Promise.all(proxies.map((p) => p.cpu()))).reduce((a, b) => a + b, 0);
        const before = await cpu();
        const done = await run(SECONDS);
        const used = (await cpu()) - before;
        const requests = done.reduce((n, d) => n + d.result.requests.total, 0);
        const latencies = done.flatMap((d) => d.latencies).sort((a, b) => a - b);
        rows.push({
          round,
          'set-up': setup.name,
          'req/s': (requests / SECONDS).toFixed(1),
          'p50 ms': percentile(latencies, 50).toFixed(2),
          'p90 ms': percentile(latencies, 90).toFixed(2),
          'proxy CPU µs/refresh': Math.round(used / Math.max(1, requests)),
          'non-2xx': done.reduce((n, d) => n + d.result.non2xx + d.result.errors, 0),
        });
        console.log(JSON.stringify(rows.at(-1)));
      } finally {
        await Promise.all(proxies.map((p) => p.stop()));
      }
    }
  }
  printTable(`forced session refreshes, ${RTT_MS} ms service round trip, ${CONNECTIONS} connections, ${SECONDS} s each`, rows);
} finally {
  await emulator.stop();
  await redis.stop();
}
