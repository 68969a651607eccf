/**
 * Where one refresh's time goes: the built proxy served in this process (the emulator in a child), one forced session
 * refresh at a time, with timestamps at the client's write, around each WebCrypto encrypt/decrypt (`crypto.subtle`
 * wrapped), at the start of the service `fetch` (the proxy's `fetch` option) and when its answer's headers came back,
 * and at the client's answer. Prints the median and p90 of each step, and how many connections undici opened to the
 * service (`undici:client:connected`). The client shares the proxy's thread, so the first step includes its write. Not
 * part of `npm run bench` (not a *.bench.ts).
 *
 *   node --import tsx --expose-gc bench/proxy-steps.ts
 *
 * N (200) refreshes, the first 30 not counted; DELAY (0) ms at the emulator's token endpoint.
 */
import dc from 'node:diagnostics_channel';
import http from 'node:http';
import { cookieHeader, DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { connectSession, ORIGIN } from '@esign-elements/test-support/proxy-client';
import { delayTokenCalls, percentile, proxyRefreshForm, startChild } from './proxy.bench.js';

const N = Number(process.env.N ?? 200);
const DELAY = Number(process.env.DELAY ?? 0);
const WARMUP = 30;

let connections = 0;
dc.subscribe('undici:client:connected', () => (connections += 1));
let marks: Array<[string, number]> = [];
const mark = (step: string): number => marks.push([step, performance.now()]);

// the proxy's WebCrypto operations, timed where the proxy calls them
const subtle = crypto.subtle as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
for (const op of ['encrypt', 'decrypt']) {
  const original = subtle[op]!.bind(crypto.subtle);
  subtle[op] = async (...args: unknown[]) => {
    mark(`${op} started`);
    const result = await original(...args);
    mark(`${op} done`);
    return result;
  };
}

const emulator = await startChild('emulator');
// the built proxy (its package's dist, built by startChild above), as bench/serve-child.mjs runs it
const { serveTokenProxy } = await import('@esign-elements/token-proxy/node');
const { generateCookieKey } = await import('@esign-elements/token-proxy');
const served = await serveTokenProxy({
  port: 0,
  clientId: DEMO_LOGIN.clientId,
  clientSecret: DEMO_LOGIN.clientSecret,
  baseUrl: emulator.url,
  allowedOrigins: [ORIGIN],
  rateLimit: { windowMs: 60_000, max: 1e9 },
  cookieKeys: [generateCookieKey()],
  fetch: async (url, init) => {
    mark('service call started');
    const response = await fetch(url, init);
    mark("service answer's headers");
    return response;
  },
});
try {
  await emulator.register(served.callbackUrl!);
  const cookies: string[] = [];
  for (let i = 0; i < 5; i++) cookies.push(cookieHeader((await connectSession(emulator.url, served.url)).jar)!);
  await delayTokenCalls(emulator.url, DELAY);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(served.url);
  const steps = new Map<string, number[]>();
  for (let i = 0; i < N; i++) {
    marks = [];
    const cookie = cookies.shift()!;
    const body = proxyRefreshForm();
    const started = performance.now();
    const setCookie = await new Promise<string>((resolve, reject) => {
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/token',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esign-proxy': '1', cookie, 'content-length': body.length },
        },
        (response) => {
          mark('client has the headers');
          response.resume();
          response.on('end', () =>
            response.statusCode === 200 && response.headers['set-cookie']
              ? resolve(response.headers['set-cookie'][0]!)
              : reject(new Error(`${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    cookies.push(setCookie.split(';')[0]!);
    if (i < WARMUP) continue;
    let previous = started;
    for (const [step, at] of marks) {
      let list = steps.get(step);
      if (!list) steps.set(step, (list = []));
      list.push(at - previous);
      previous = at;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  console.log(`ms from the step before, over ${N - WARMUP} refreshes (${DELAY} ms at the emulator):`);
  for (const [step, list] of steps) {
    list.sort((a, b) => a - b);
    console.log(`${step.padEnd(26)} median ${percentile(list, 50).toFixed(3)}  p90 ${percentile(list, 90).toFixed(3)}`);
  }
  console.log(`undici connections to the service: ${connections}`);
} finally {
  await served.close();
  await emulator.stop();
}
process.exit(0);
