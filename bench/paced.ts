/**
 * Requests at a fixed rate that is really fixed: one every 1000 / rate ms, each on the next free keep-alive socket (at
 * most `connections`), its latency taken from its own start. autocannon's `overallRate` is not that: each connection
 * sends back to back until it has made its share of the second, then waits for the next second, so at 100 req/s over
 * 10 connections all ten go as fast as they can for the first third of each second and then idle: ten requests in
 * flight at once, whose queueing the latency then measured too (bench/NOTES.md). Takes autocannon's request shape
 * (`setupRequest`, `onResponse`) and returns the parts of its result the proxy benches read.
 */
import http from 'node:http';
import type { AutocannonRequest, AutocannonResult } from './proxy.bench.js';

export async function paced(options: {
  url: string;
  connections: number;
  duration: number;
  rate: number;
  requests: AutocannonRequest[];
}): Promise<{ result: AutocannonResult; latencies: number[] }> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const template = options.requests[0]!;
  const latencies: number[] = [];
  const statusCodeStats: Record<string, { count: number }> = {};
  let errors = 0;
  let non2xx = 0;
  const one = async (): Promise<void> => {
    const context: Record<string, unknown> = {};
    const request = template.setupRequest?.({ ...template }, context) ?? template;
    const body = request.body ?? '';
    const started = performance.now();
    try {
      const answer = await new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
        const sent = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: request.path ?? '/',
            method: request.method ?? 'GET',
            agent,
            headers: { ...request.headers, 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
            response.on('error', reject);
          },
        );
        sent.on('error', reject);
        sent.end(body);
      });
      latencies.push(performance.now() - started);
      statusCodeStats[answer.status] = { count: (statusCodeStats[answer.status]?.count ?? 0) + 1 };
      if (answer.status < 200 || answer.status > 299) non2xx += 1;
      template.onResponse?.(answer.status, answer.text, context, answer.headers as Record<string, string | string[]>);
    } catch {
      errors += 1;
    }
  };
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(options.duration * options.rate);
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / options.rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  const seconds = (performance.now() - start) / 1000;
  return {
    result: {
      requests: { average: latencies.length / seconds, total: latencies.length },
      latency: { p50: at(50), p99: at(99), average: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length), max: sorted.at(-1) ?? NaN },
      duration: seconds,
      errors,
      timeouts: 0,
      non2xx,
      statusCodeStats,
    },
    latencies,
  };
}
