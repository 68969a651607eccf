/**
 * The latency one token proxy adds, measured in pairs: at a fixed rate, each tick starts a refresh straight at the
 * emulator and a forced session refresh through the proxy at the same moment (which of the two is sent first
 * alternates), so both meet the same machine, the same emulator and the same delay; the figure is the distribution
 * of the per-pair difference (proxied minus direct). `npm run bench -- proxy` judges added latency as a difference
 * of percentiles of separate segments, which at p50 agrees with this and at p99 subtracts two independent tails
 * (hence the negative p99s of a loaded machine). Not part of `npm run bench` (not a *.bench.ts).
 *
 *   node --import tsx --expose-gc bench/proxy-latency.ts
 *
 * RATE (100) pairs per second, DURATION (20) s measured after WARMUP (10) s at the same rate, DELAY (30) ms at the
 * emulator's token endpoint (its delay fault), TREES as in proxy-pair.ts (each tree's built proxy, measured in turn
 * against the same emulator, ROUNDS (2) alternating passes). Prints the paired difference's p50/p90/p99, each side's
 * own p50/p99, and the proxy's CPU per refresh (all its threads).
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import type { ChildServer } from './proxy.bench.js';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const trees = (process.env.TREES ?? here).split(',');
const RATE = Number(process.env.RATE ?? 100);
const DURATION = Number(process.env.DURATION ?? 20);
const WARMUP = Number(process.env.WARMUP ?? 10);
const DELAY = Number(process.env.DELAY ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
/** Enough tokens and cookies for the requests in flight at once: RATE × (DELAY + a margin for a slow moment). */
const POOL = Math.max(20, Math.ceil((RATE * (DELAY + 200)) / 1000));

type Bench = typeof import('./proxy.bench.js');
const own: Bench = await import('./proxy.bench.js');
const benches: Bench[] = await Promise.all(trees.map((tree) => import(`${tree}/bench/proxy.bench.ts`) as Promise<Bench>));
const emulator = await own.startChild('emulator');
const proxies: ChildServer[] = [];
for (const bench of benches) proxies.push(await bench.startChild('proxy', { BENCH_UPSTREAM: emulator.url }));
const cookiePools: string[][] = [];
for (const proxy of proxies) cookiePools.push(await own.mintSessionCookies(emulator, proxy, POOL));
const tokens = await own.mintRefreshTokens(emulator.url, POOL);
await own.delayTokenCalls(emulator.url, DELAY);

// one keep-alive client for both sides (node:http, as light as autocannon's), at most as many sockets as a pool holds
const agent = new http.Agent({ keepAlive: true, maxSockets: POOL });
function post(
  base: string,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ ms: number; status: number; body: string; setCookie?: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const started = performance.now();
    const request = http.request(
      { host: url.hostname, port: url.port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ ms: performance.now() - started, status: response.statusCode!, body: text, setCookie: response.headers['set-cookie']?.[0] }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function direct(): Promise<number> {
  const token = tokens.shift()!;
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: DEMO_LOGIN.clientId,
    client_secret: DEMO_LOGIN.clientSecret,
  });
  const answer = await post(emulator.url, '/openapi/v1/oauth/token', form.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
  if (answer.status !== 200) throw new Error(`direct: ${answer.status}`);
  tokens.push((JSON.parse(answer.body) as { refresh_token: string }).refresh_token);
  return answer.ms;
}

async function proxied(side: number): Promise<number> {
  const pool = cookiePools[side]!;
  const cookie = pool.shift()!;
  const answer = await post(proxies[side]!.url, '/token', own.proxyRefreshForm(), {
    'content-type': 'application/x-www-form-urlencoded',
    'x-esign-proxy': '1',
    cookie,
  });
  if (answer.status !== 200 || !answer.setCookie) throw new Error(`proxy: ${answer.status} ${answer.body}`);
  pool.push(answer.setCookie.split(';')[0]!);
  return answer.ms;
}

interface Pairs {
  direct: number[];
  proxied: number[];
  difference: number[];
  cpuMicros: number;
  /** Ticks skipped because every token or cookie was in flight. */
  skipped: number;
}

/** `seconds` of pairs at RATE for the proxy of trees[side], started on a fixed schedule (not after the previous pair). */
async function run(side: number, seconds: number, into?: Pairs): Promise<void> {
  const cpuBefore = await proxies[side]!.cpu();
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < seconds * RATE; i++) {
    const wait = start + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // a pair needs a token and a cookie nobody holds: a tick when every one is in flight (a stall) is skipped, and counted
    if (tokens.length === 0 || cookiePools[side]!.length === 0) {
      if (into) into.skipped += 1;
      continue;
    }
    pending.push(
      (async () => {
        const [d, p] = i % 2 ? await Promise.all([direct(), proxied(side)]) : (await Promise.all([proxied(side), direct()])).reverse();
        if (!into) return;
        into.direct.push(d!);
        into.proxied.push(p!);
        into.difference.push(p! - d!);
      })(),
    );
  }
  await Promise.all(pending);
  if (into) into.cpuMicros += (await proxies[side]!.cpu()) - cpuBefore;
}

const at = (values: number[], p: number): string =>
  own
    .percentile(
      [...values].sort((a, b) => a - b),
      p,
    )
    .toFixed(2);
console.log(`1-minute load before: ${loadavg()[0]!.toFixed(2)}; ${RATE} pairs/s, ${DELAY} ms at the emulator, ${ROUNDS} × ${DURATION} s per tree`);
try {
  const results: Pairs[] = trees.map(() => ({ direct: [], proxied: [], difference: [], cpuMicros: 0, skipped: 0 }));
  for (let side = 0; side < trees.length; side++) await run(side, WARMUP);
  for (let round = 0; round < ROUNDS; round++) {
    const order = trees.map((_, i) => i);
    for (const side of round % 2 ? order.reverse() : order) await run(side, DURATION, results[side]);
  }
  for (let side = 0; side < trees.length; side++) {
    const r = results[side]!;
    console.log(
      [
        trees[side]!.padEnd(24),
        `added (paired) p50 ${at(r.difference, 50)} p90 ${at(r.difference, 90)} p99 ${at(r.difference, 99)} ms`,
        `direct p50 ${at(r.direct, 50)} p99 ${at(r.direct, 99)}`,
        `proxied p50 ${at(r.proxied, 50)} p99 ${at(r.proxied, 99)}`,
        `(difference of percentiles ${(Number(at(r.proxied, 50)) - Number(at(r.direct, 50))).toFixed(2)} / ${(Number(at(r.proxied, 99)) - Number(at(r.direct, 99))).toFixed(2)})`,
        `proxy CPU ${(r.cpuMicros / r.proxied.length).toFixed(0)} µs/refresh`,
        `${r.proxied.length} pairs, ${r.skipped} ticks skipped`,
      ].join('  '),
    );
  }
  console.log(`1-minute load after: ${loadavg()[0]!.toFixed(2)}`);
} finally {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await emulator.stop();
}
process.exit(0);
