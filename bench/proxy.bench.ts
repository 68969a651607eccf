/**
 * Token proxy overhead: refresh-token calls through the proxy against the same calls made straight to the
 * emulator's token endpoint, with autocannon, in one run (target: proxy req/s ≥ 0.7 × direct).
 *
 * Refresh tokens rotate and a reused one revokes its grant, so every request needs a token nobody used:
 * a pool of refresh tokens from grants minted once through the consent forms; `setupRequest` takes the
 * next token from the pool and `onResponse` puts the rotated one back. No token is ever sent twice, and a
 * non-2xx answer (which a reuse would cause) is counted.
 *
 * The emulator and the proxy each run in their own child process (like a service and a customer's
 * server), autocannon in this one; all on 127.0.0.1. Segments run direct, proxy, proxy, direct (ABBA) so
 * the emulator's growing token store does not favour one side.
 *
 * BENCH_CHILD_ARGS adds Node flags to both children, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a
 * refresh spends its CPU (this session's profile of the proxy: a third of its CPU is the two writev calls per
 * request, its own code about 6%).
 *
 * Besides req/s it reports the CPU time (user + system, all threads) each process spent per request,
 * read from the children over IPC between segments: req/s on a shared 2-core machine moves with whatever
 * else runs, CPU per request much less, so it shows where the proxy's cost is and whether a change helped.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '../test/helpers/oauth-login.js';
import { printTable, recordResults } from './results.js';

/** 10 s segments: with 5 s the loopback ratio moved between 0.67 and 0.90 from one run to the next on this 2-CPU machine. */
const SEGMENT_SECONDS = 10;
const WARMUP_SECONDS = 2;
const CONNECTIONS = 10;
/**
 * autocannon stops a run with one request in flight per connection: the emulator rotates that token but
 * its answer is dropped, so each run loses CONNECTIONS tokens (2 warm-ups + 4 segments), plus a margin.
 */
const POOL_GRANTS = CONNECTIONS * 14;
/** The second scenario: every token call waits this long at the emulator, standing in for the Internet round trip to the real service. */
const SERVICE_ROUND_TRIP_MS = 30;
const TARGET_RATIO = 0.7;

// --- the child roles -------------------------------------------------------------------------------

/** Child: runs a server, tells its URL over IPC, answers {cmd:'mem'} (after GC), {cmd:'cpu'} and {cmd:'stop'}. */
async function serveChild(role: string): Promise<void> {
  let close: () => Promise<void>;
  let url: string;
  if (role === 'emulator') {
    const { createEmulator } = await import('../src/emulator/index.js');
    const emu = await createEmulator({ port: 0, filePort: 0, limits: { requestsPerMinute: Number(process.env.BENCH_RPM ?? 60) } });
    url = emu.baseUrl;
    close = () => emu.close();
  } else {
    const { serveTokenProxy } = await import('../src/proxy/node.js');
    const { generateCookieKey } = await import('../src/proxy/index.js');
    const served = await serveTokenProxy({
      port: 0,
      clientId: DEMO_LOGIN.clientId,
      clientSecret: DEMO_LOGIN.clientSecret,
      baseUrl: process.env.BENCH_UPSTREAM!,
      allowedOrigins: [],
      redirectUris: [DEMO_LOGIN.redirectUri],
      // the limiter stays in the path, with a ceiling this load never reaches
      rateLimit: { windowMs: 60_000, max: 1e9 },
      cookieKeys: [process.env.BENCH_COOKIE_KEY ?? generateCookieKey()],
      // load.bench.ts refreshes with tokens in the form (the opt-in mode); this bench with session cookies
      browserHeldRefreshTokens: true,
    });
    url = served.url;
    close = () => served.close();
  }
  process.on('message', async (message: { cmd: string }) => {
    if (message.cmd === 'mem') {
      globalThis.gc?.();
      globalThis.gc?.();
      process.send!({ mem: process.memoryUsage() });
    } else if (message.cmd === 'cpu') {
      // user + system time of this process so far, in µs: robust to other load on the machine, unlike req/s
      const { user, system } = process.cpuUsage();
      process.send!({ cpu: user + system });
    } else if (message.cmd === 'stop') {
      await close();
      process.exit(0);
    }
  });
  process.send!({ url });
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  memory(): Promise<NodeJS.MemoryUsage>;
  /** CPU time (user + system) the child has used so far, in µs. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts this file in a child process in the given role. */
export function startChild(file: string, role: 'emulator' | 'proxy', env: Record<string, string> = {}): Promise<ChildServer> {
  const child = fork(file, [`--serve-${role}`], { execArgv: ['--import', 'tsx', '--expose-gc', ...(process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : [])], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>): void => {
        if (key in m) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(m[key] as T);
        }
      };
      const onExit = (code: number | null): void => reject(new Error(`${role} child exited (${code}) before answering ${key}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return next<string>('url').then((url) => ({
    url,
    child,
    memory: () => {
      const answer = next<NodeJS.MemoryUsage>('mem');
      child.send({ cmd: 'mem' });
      return answer;
    },
    cpu: () => {
      const answer = next<number>('cpu');
      child.send({ cmd: 'cpu' });
      return answer;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ cmd: 'stop' });
      }),
  }));
}

// --- autocannon, typed for what we use -------------------------------------------------------------

export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
}

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  stop(): void;
}

type Autocannon = (
  options: { url: string; connections: number; duration: number; pipelining?: number; timeout?: number; requests: AutocannonRequest[] },
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

// autocannon ships CommonJS without types
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Runs autocannon and also keeps every response time, so segments can be merged into one percentile. */
export function cannon(options: Parameters<Autocannon>[0]): Promise<{ result: AutocannonResult; latencies: number[] }> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve({ result, latencies })));
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

// --- the benchmark ---------------------------------------------------------------------------------

/** Mints `count` grants through the consent forms (as a user would) and returns their refresh tokens. */
export async function mintRefreshTokens(baseUrl: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const login = await obtainAuthorizationCode({ baseUrl, chooseSpaceId: 'space_acme' });
    const form = codeExchangeForm(login, DEMO_LOGIN.clientId);
    form.set('client_secret', DEMO_LOGIN.clientSecret);
    const response = await fetch(`${baseUrl}/openapi/v1/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    const body = (await response.json()) as { refresh_token?: string };
    if (response.status !== 200 || !body.refresh_token) throw new Error(`code exchange answered ${response.status}`);
    tokens.push(body.refresh_token);
  }
  return tokens;
}

/** Connects `count` sessions through the proxy (token-mediating mode) and returns their cookies (`name=value`). */
export async function mintSessionCookies(emulatorUrl: string, proxyUrl: string, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const login = await obtainAuthorizationCode({ baseUrl: emulatorUrl, chooseSpaceId: 'space_acme' });
    const form = codeExchangeForm(login, DEMO_LOGIN.clientId);
    form.set('session', 'open');
    const response = await fetch(`${proxyUrl}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' }, body: form.toString() });
    const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
    await response.arrayBuffer();
    if (response.status !== 200 || !cookie) throw new Error(`code exchange through the proxy answered ${response.status}`);
    cookies.push(cookie);
  }
  return cookies;
}

/**
 * A forced refresh of a session (token-mediating mode): the cookie comes from the pool, the rotated one
 * (Set-Cookie) goes back. force=1 so that every request is a real refresh at the service, not a cached answer.
 */
export function sessionRefreshRequest(pool: string[], path: string): AutocannonRequest {
  const body = new URLSearchParams({ grant_type: 'refresh_token', session: 'open', redirect_uri: DEMO_LOGIN.redirectUri, force: '1' }).toString();
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esign-proxy': '1' },
    setupRequest: (request) => {
      const cookie = pool.shift();
      if (cookie === undefined) poolEmpty.count += 1;
      return { ...request, body, headers: { ...request.headers, cookie: cookie ?? 'esign_s_none=x' } };
    },
    onResponse: (status, _body, _context, headers) => {
      if (status !== 200) return;
      const name = Object.keys(headers).find((h) => h.toLowerCase() === 'set-cookie');
      const value = name ? headers[name] : undefined;
      const line = Array.isArray(value) ? value[0] : value;
      if (line) pool.push(line.split(';')[0]!);
    },
  };
}

/** How often a request found the pool empty (must stay 0). */
export const poolEmpty = { count: 0 };

/** A refresh request whose token comes from the pool; the rotated token goes back into it. */
export function refreshRequest(pool: string[], target: 'direct' | 'proxy', path: string): AutocannonRequest {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (target === 'proxy') headers['x-esign-proxy'] = '1';
  return {
    method: 'POST',
    path,
    headers,
    setupRequest: (request) => {
      // an empty pool would mean tokens were lost to errors; this one fails visibly as a non-2xx
      const token = pool.shift();
      if (token === undefined) poolEmpty.count += 1;
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token ?? 'rt_pool_exhausted' });
      if (target === 'direct') {
        form.set('client_id', DEMO_LOGIN.clientId);
        form.set('client_secret', DEMO_LOGIN.clientSecret);
      }
      return { ...request, body: form.toString() };
    },
    onResponse: (status, body) => {
      if (status !== 200) return;
      const next = (JSON.parse(body) as { refresh_token?: string }).refresh_token;
      if (next) pool.push(next);
    },
  };
}

interface Side {
  /** CPU time (user + system, all threads) each process spent during this side's segments, µs. */
  cpu: { emulator: number; proxy: number; autocannon: number };
  requests: number;
  seconds: number;
  latencies: number[];
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

/** CPU µs per request of each process: unlike req/s, barely moved by other load on the machine. */
type CpuPerRequest = { emulator: number; proxy: number; autocannon: number };
type Summary = { rps: number; p50: number; p99: number; requests: number; seconds: number; non2xx: number; errors: number; statuses: Record<string, number>; cpuMicrosPerRequest: CpuPerRequest };

/** One ABBA measurement of direct against proxy; `roundTripMs` > 0 delays every token call at the emulator. */
async function scenario(
  children: { emulator: ChildServer; proxy: ChildServer },
  emulatorUrl: string,
  targets: Record<'direct' | 'proxy', { url: string; request: AutocannonRequest }>,
  roundTripMs: number,
): Promise<{ summary: Record<'direct' | 'proxy', Summary>; ratio: number }> {
  await fetch(`${emulatorUrl}/__emulator/faults`, { method: 'DELETE' });
  if (roundTripMs > 0) {
    // the same delay for both sides: the emulator's own fault injection on its token endpoint
    const fault = await fetch(`${emulatorUrl}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: roundTripMs, times: 1e9 }),
    });
    if (!fault.ok) throw new Error(`could not add the delay fault: ${fault.status}`);
  }
  const sides: Record<'direct' | 'proxy', Side> = {
    direct: { cpu: { emulator: 0, proxy: 0, autocannon: 0 }, requests: 0, seconds: 0, latencies: [], non2xx: 0, errors: 0, statuses: {} },
    proxy: { cpu: { emulator: 0, proxy: 0, autocannon: 0 }, requests: 0, seconds: 0, latencies: [], non2xx: 0, errors: 0, statuses: {} },
  };
  for (const name of ['direct', 'proxy'] as const) {
    await cannon({ url: targets[name].url, connections: CONNECTIONS, duration: WARMUP_SECONDS, requests: [targets[name].request] });
  }
  for (const name of ['direct', 'proxy', 'proxy', 'direct'] as const) {
    // CPU is read between segments (over IPC), outside the measured window
    const emulatorCpu = await children.emulator.cpu();
    const proxyCpu = await children.proxy.cpu();
    const ownCpu = process.cpuUsage();
    const { result, latencies } = await cannon({ url: targets[name].url, connections: CONNECTIONS, duration: SEGMENT_SECONDS, requests: [targets[name].request] });
    const ownUsed = process.cpuUsage(ownCpu);
    const side = sides[name];
    side.cpu.emulator += (await children.emulator.cpu()) - emulatorCpu;
    side.cpu.proxy += (await children.proxy.cpu()) - proxyCpu;
    side.cpu.autocannon += ownUsed.user + ownUsed.system;
    side.requests += result.requests.total;
    side.seconds += result.duration;
    side.latencies.push(...latencies);
    side.non2xx += result.non2xx;
    side.errors += result.errors;
    for (const [status, { count }] of Object.entries(result.statusCodeStats)) side.statuses[status] = (side.statuses[status] ?? 0) + Number(count);
  }
  await fetch(`${emulatorUrl}/__emulator/faults`, { method: 'DELETE' });
  const summary = Object.fromEntries(
    (['direct', 'proxy'] as const).map((name) => {
      const side = sides[name];
      const sorted = side.latencies.sort((a, b) => a - b);
      const perRequest = (micros: number): number => Math.round(micros / Math.max(1, side.requests));
      const cpuMicrosPerRequest = { emulator: perRequest(side.cpu.emulator), proxy: perRequest(side.cpu.proxy), autocannon: perRequest(side.cpu.autocannon) };
      return [name, { rps: side.requests / side.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), requests: side.requests, seconds: side.seconds, non2xx: side.non2xx, errors: side.errors, statuses: side.statuses, cpuMicrosPerRequest }];
    }),
  ) as Record<'direct' | 'proxy', Summary>;
  return { summary, ratio: summary.proxy.rps / summary.direct.rps };
}

function printScenario(title: string, summary: Record<'direct' | 'proxy', Summary>, ratio: number): void {
  printTable(title, [
    ...(['direct', 'proxy'] as const).map((name) => ({
      target: name === 'direct' ? 'emulator token endpoint' : 'token proxy → emulator',
      'req/s': summary[name].rps.toFixed(0),
      'p50 ms': summary[name].p50.toFixed(2),
      'p99 ms': summary[name].p99.toFixed(2),
      requests: summary[name].requests,
      'non-2xx': summary[name].non2xx,
      errors: summary[name].errors,
    })),
    {
      target: 'proxy / direct',
      'req/s': ratio.toFixed(2),
      'p50 ms': `+${(summary.proxy.p50 - summary.direct.p50).toFixed(2)}`,
      'p99 ms': `+${(summary.proxy.p99 - summary.direct.p99).toFixed(2)}`,
      requests: '',
      'non-2xx': '',
      errors: '',
    },
  ]);
  printTable('CPU time per request (user + system, all threads of each process; robust to other load, unlike req/s)', [
    ...(['direct', 'proxy'] as const).map((name) => ({
      target: name === 'direct' ? 'emulator token endpoint' : 'token proxy → emulator',
      'emulator µs': summary[name].cpuMicrosPerRequest.emulator,
      'proxy µs': name === 'direct' ? '-' : summary[name].cpuMicrosPerRequest.proxy,
      'autocannon µs': summary[name].cpuMicrosPerRequest.autocannon,
    })),
  ]);
}

async function main(): Promise<void> {
  const file = fileURLToPath(import.meta.url);
  const loadBefore = loadavg()[0]!;
  const emulator = await startChild(file, 'emulator');
  const proxy = await startChild(file, 'proxy', { BENCH_UPSTREAM: emulator.url });
  try {
    const pool = await mintRefreshTokens(emulator.url, POOL_GRANTS);
    const cookies = await mintSessionCookies(emulator.url, proxy.url, POOL_GRANTS);
    const targets = {
      direct: { url: emulator.url, request: refreshRequest(pool, 'direct', '/openapi/v1/oauth/token') },
      proxy: { url: proxy.url, request: sessionRefreshRequest(cookies, '/token') },
    };
    const loopback = await scenario({ emulator, proxy }, emulator.url, targets, 0);
    const remote = await scenario({ emulator, proxy }, emulator.url, targets, SERVICE_ROUND_TRIP_MS);
    const counters = (await (await fetch(`${emulator.url}/__emulator/requests`)).json()) as Record<string, number>;
    const { summary, ratio } = loopback;

    printScenario(`refresh_token calls, ${CONNECTIONS} connections, ${2 * SEGMENT_SECONDS} s per side (ABBA segments of ${SEGMENT_SECONDS} s), 127.0.0.1`, summary, ratio);
    const verdict = ratio >= TARGET_RATIO ? 'MET' : 'MISSED';
    console.log(`\ntarget proxy/direct ≥ ${TARGET_RATIO} on loopback: ${verdict} (${ratio.toFixed(2)})`);
    if (verdict === 'MISSED') {
      console.log(
        'why: on loopback a refresh costs the emulator a fraction of a millisecond, so the proxy adds a whole second HTTP hop ' +
          '(serve, validate, then an upstream request and its answer) on the same CPUs as the emulator and autocannon; with other ' +
          'load on the machine req/s swings a lot, so compare the CPU µs per request above. Across a real network the service ' +
          'round trip dominates and the ratio moves towards 1.',
      );
    }
    printScenario(
      `the same, with a ${SERVICE_ROUND_TRIP_MS} ms service round trip on every token call (emulator delay fault; both sides alike)`,
      remote.summary,
      remote.ratio,
    );
    const remoteVerdict = remote.ratio >= TARGET_RATIO ? 'MET' : 'MISSED';
    console.log(`\ntarget proxy/direct ≥ ${TARGET_RATIO} with a ${SERVICE_ROUND_TRIP_MS} ms service round trip: ${remoteVerdict} (${remote.ratio.toFixed(2)})`);
    console.log(`emulator counted ${counters['grant:refresh_token'] ?? 0} refresh grants; pool ended with ${pool.length} of ${POOL_GRANTS} tokens, found empty ${poolEmpty.count} times`);
    console.log(`status codes: direct ${JSON.stringify(summary.direct.statuses)}, proxy ${JSON.stringify(summary.proxy.statuses)}`);
    const loadAfter = loadavg()[0]!;
    console.log(`1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (CPUs are shared with anything else running)`);
    recordResults('proxy', {
      loadAverage: { before: loadBefore, after: loadAfter },
      connections: CONNECTIONS,
      secondsPerSide: 2 * SEGMENT_SECONDS,
      design: 'ABBA segments; refresh-token pool with rotation (each token used once); emulator and proxy in separate child processes; loopback',
      direct: summary.direct,
      proxy: summary.proxy,
      ratio: Number(ratio.toFixed(3)),
      target: TARGET_RATIO,
      verdict,
      withServiceRoundTrip: {
        roundTripMs: SERVICE_ROUND_TRIP_MS,
        direct: remote.summary.direct,
        proxy: remote.summary.proxy,
        ratio: Number(remote.ratio.toFixed(3)),
        verdict: remoteVerdict,
      },
      emulatorRefreshGrants: counters['grant:refresh_token'] ?? 0,
      poolLeft: pool.length,
      poolFoundEmpty: poolEmpty.count,
    });
    const failures = [summary, remote.summary].reduce((n, x) => n + x.direct.non2xx + x.proxy.non2xx + x.direct.errors + x.proxy.errors, 0);
    if (failures + poolEmpty.count > 0) process.exitCode = 1;
  } finally {
    await proxy.stop();
    await emulator.stop();
  }
}

const role = process.argv.find((a) => a.startsWith('--serve-'))?.slice('--serve-'.length);
if (role) await serveChild(role);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
