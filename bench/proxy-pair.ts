/**
 * A paired comparison of two trees' token proxies, for a machine shared with other work: one emulator, one proxy of
 * each tree (memory store, the built code of each: bench/serve-child.mjs), and segments that alternate direct, A, B,
 * then B, A, direct, in the same minutes. Prints, per scenario, req/s, p50/p99 and their excess over direct, and the
 * CPU per request of the proxy (all its threads) and of the emulator. Not part of `npm run bench` (not a *.bench.ts).
 *
 *   TREES=/path/to/base,/path/to/this/tree node --import tsx --expose-gc bench/proxy-pair.ts
 *
 * Each tree needs its packages built (`npm run build -w @esign-elements/emulator -w @esign-elements/token-proxy`);
 * this tree's are built at the start. ROUNDS (2) pairs of SEG-second segments (10) per side; POOL (200) sessions per
 * proxy; ONLY=loop or ONLY=30 runs one scenario; BENCH_CHILD_ARGS as in proxy.bench.ts (e.g. `--cpu-prof …`).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AutocannonRequest, ChildServer } from './proxy.bench.js';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const trees = (process.env.TREES ?? here).split(',');
const SEG = Number(process.env.SEG ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const POOL = Number(process.env.POOL ?? 200);
type Bench = typeof import('./proxy.bench.js');
const benches: Bench[] = await Promise.all(trees.map((tree) => import(`${tree}/bench/proxy.bench.ts`) as Promise<Bench>));
const own: Bench = await import('./proxy.bench.js');
const emulator = await own.startChild('emulator');
const proxies: ChildServer[] = [];
for (const bench of benches) proxies.push(await bench.startChild('proxy', { BENCH_UPSTREAM: emulator.url }));
console.log(`pids: emulator ${emulator.child.pid}, proxies ${trees.map((tree, i) => `${tree} ${proxies[i]!.child.pid}`).join(', ')}`);
const sessions: AutocannonRequest[] = [];
for (const proxy of proxies) sessions.push(own.sessionRefreshRequest(await own.mintSessionCookies(emulator, proxy, POOL), '/token'));
const direct = own.refreshRequest(await own.mintRefreshTokens(emulator.url, POOL), 'direct', '/openapi/v1/oauth/token');

const delay = (ms: number): Promise<void> => own.delayTokenCalls(emulator.url, ms);

interface Tally {
  proxyCpu: number;
  emulatorCpu: number;
  requests: number;
  latencies: number[];
}

/** One segment of a side (-1: direct; else the proxy of trees[side]). */
async function segment(side: number, seconds: number, rate?: number): Promise<Tally> {
  const proxy = side < 0 ? undefined : proxies[side]!;
  const [p0, e0] = [(await proxy?.cpu()) ?? 0, await emulator.cpu()];
  const { result, latencies } = await own.cannon({
    url: (proxy ?? emulator).url,
    connections: 10,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    requests: [side < 0 ? direct : sessions[side]!],
  });
  const [p1, e1] = [(await proxy?.cpu()) ?? 0, await emulator.cpu()];
  if (result.non2xx || result.errors) console.log(`side ${side}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { proxyCpu: p1 - p0, emulatorCpu: e1 - e0, requests: result.requests.total, latencies };
}

const sides = [-1, ...trees.map((_, i) => i)];
console.log(`1-minute load before: ${loadavg()[0]!.toFixed(2)}`);
await delay(0);
for (const side of sides) await segment(side, 8);
for (const [label, ms, rate] of [
  ['loopback, as fast as 10 connections go', 0, undefined],
  ['30 ms service round trip, 100 req/s', 30, 100],
] as const) {
  if (process.env.ONLY && !label.startsWith(process.env.ONLY)) continue;
  await delay(ms);
  const tallies = new Map<number, Tally>(sides.map((side) => [side, { proxyCpu: 0, emulatorCpu: 0, requests: 0, latencies: [] }]));
  for (const side of sides) await segment(side, 2, rate);
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const run = await segment(side, SEG, rate);
      const tally = tallies.get(side)!;
      tally.proxyCpu += run.proxyCpu;
      tally.emulatorCpu += run.emulatorCpu;
      tally.requests += run.requests;
      tally.latencies.push(...run.latencies);
    }
  }
  const at = (side: number, p: number): number =>
    own.percentile(
      [...tallies.get(side)!.latencies].sort((a, b) => a - b),
      p,
    );
  console.log(`\n${label} (1-minute load ${loadavg()[0]!.toFixed(2)})`);
  for (const side of sides) {
    const t = tallies.get(side)!;
    console.log(
      [
        (side < 0 ? 'direct' : trees[side]!).padEnd(24),
        `req/s ${(t.requests / (ROUNDS * SEG)).toFixed(0)}`,
        `p50 ${at(side, 50).toFixed(2)} p99 ${at(side, 99).toFixed(2)} ms`,
        side < 0 ? '' : `added ${(at(side, 50) - at(-1, 50)).toFixed(2)} / ${(at(side, 99) - at(-1, 99)).toFixed(2)} ms`,
        side < 0 ? '' : `proxy CPU ${(t.proxyCpu / t.requests).toFixed(0)} µs/refresh`,
        `emulator CPU ${(t.emulatorCpu / t.requests).toFixed(0)} µs/request`,
      ].join('  '),
    );
  }
}
console.log(`\n1-minute load after: ${loadavg()[0]!.toFixed(2)}`);
await Promise.all(proxies.map((proxy) => proxy.stop()));
await emulator.stop();
process.exit(0);
