/**
 * A control for bench/proxy-cpu-rate.ts: the same measurement (CPU per request of the middle process at a fixed rate,
 * the service 0 ms or RTT_MS away, alternated) with a minimal forwarding hop in place of the token proxy: a bare
 * `node:http` server that reads the body, POSTs it over a keep-alive agent to a bare upstream server (which answers
 * a small JSON after the delay) and returns the answer. None of the proxy's code runs: what changes with the distance
 * here is Node and the machine. Not part of `npm run bench`; run it as `node --import tsx bench/proxy-hop-baseline.ts`
 * (RATE, RTT_MS, ROUNDS, SECONDS).
 */
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const RATE = Number(process.env.RATE ?? 100);
const RTT_MS = Number(process.env.RTT_MS ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = 10;

const role = process.argv[2];
if (role === 'upstream') {
  let delayMs = 0;
  const answer = JSON.stringify({ access_token: 'a'.repeat(40), token_type: 'Bearer', expires_in: 3600, refresh_token: 'r'.repeat(40), scope: 'contract' });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = (): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: { delayMs?: number; stop?: true }) => {
    if (m.stop) process.exit(0);
    delayMs = m.delayMs ?? 0;
    process.send!({ set: true });
  });
} else if (role === 'hop') {
  const upstreamPort = Number(process.argv[3]);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = request(
        {
          host: '127.0.0.1',
          port: upstreamPort,
          method: 'POST',
          path: '/token',
          agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            const json = JSON.stringify(JSON.parse(text));
            res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(json);
          });
        },
      );
      out.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: { stop?: true }) => m.stop && process.exit(0));
} else {
  const { cannon, percentile } = await import('./proxy.bench.js');
  const { printTable } = await import('./results.js');
  const file = fileURLToPath(import.meta.url);
  const start = (args: string[]) => {
    const child = fork(file, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new Promise<{ child: typeof child; port: number }>((resolve) => child.once('message', (m: { port: number }) => resolve({ child, port: m.port })));
  };
  const upstream = await start(['upstream']);
  const hop = await start(['hop', String(upstream.port)]);
  const setDelay = (delayMs: number) => new Promise((resolve) => (upstream.child.once('message', resolve), upstream.child.send({ delayMs })));
  /** utime + stime (µs) and times scheduled of the hop's main thread, from /proc (Linux). */
  const sample = async () => {
    const stat = (await readFile(`/proc/${hop.child.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    const sched = (await readFile(`/proc/${hop.child.pid}/schedstat`, 'utf8')).trim().split(' ');
    return { cpu: (Number(stat[11]) + Number(stat[12])) * 10_000, slices: Number(sched[2]) };
  };
  const rows: Array<Record<string, string | number>> = [];
  try {
    const run = async (delayMs: number, seconds: number) => {
      await setDelay(delayMs);
      const before = await sample();
      const { result, latencies } = await cannon({
        url: `http://127.0.0.1:${hop.port}`,
        connections: CONNECTIONS,
        overallRate: RATE,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=refresh_token&refresh_token=x',
          },
        ],
      });
      const after = await sample();
      return { result, latencies: latencies.sort((a, b) => a - b), cpu: after.cpu - before.cpu, slices: after.slices - before.slices };
    };
    for (const d of [0, RTT_MS]) await run(d, 3);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const delayMs of round % 2 ? [0, RTT_MS] : [RTT_MS, 0]) {
        const { result, latencies, cpu, slices } = await run(delayMs, SECONDS);
        const n = Math.max(1, result.requests.total);
        rows.push({
          round,
          delay: `${delayMs} ms`,
          'req/s': (n / SECONDS).toFixed(1),
          'p50 ms': percentile(latencies, 50).toFixed(2),
          'hop CPU µs/req': Math.round(cpu / n),
          'wake-ups/req': (slices / n).toFixed(2),
          'non-2xx': result.non2xx + result.errors,
          load: loadavg()[0]!.toFixed(2),
        });
        console.log(JSON.stringify(rows.at(-1)));
      }
    }
    printTable(`a bare node:http forwarding hop, ${CONNECTIONS} connections at ${RATE} req/s, ${SECONDS} s per segment (CPU from /proc, 10 ms ticks)`, rows);
  } finally {
    upstream.child.send({ stop: true });
    hop.child.send({ stop: true });
  }
}
