/**
 * The paths that load their code when first needed (issue 13), cold against warm, in Chromium, with the package
 * built as a page gets it (the CDN build's bundling, scripts/cdn-options.mjs: an entry and the chunks it imports) and served with
 * an emulated round trip per chunk (0 ms: loopback; 40 ms: a CDN far away; the page's HTML is not delayed):
 *
 * - Connect click -> popup open: the window must open inside the click, before the login flow's code is loaded.
 *   Measured in the page from the click (capture listener) to `window.open` returning a window.
 * - Connect click -> consent page shown in the popup: includes loading the login flow and the session manager's login
 *   part, and the popup's way there: the token proxy's login route (default mode: the proxy makes the PKCE pair and
 *   the state, sets its pre-login cookie and sends the popup on to the service's authorization page) and the
 *   service's redirect to its consent page. The proxy runs in this process on loopback.
 * - File -> upload start: `upload([file])` to `esign-upload-start`; cold includes loading the upload pipeline (a
 *   person's pointer or a dragged file over the drop zone starts that load earlier: not counted here).
 *
 * Each cold sample is a fresh page (nothing cached: a new browser context), each warm sample the same action again
 * on that page. Medians over ROUNDS; the run prints the load average.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { chromium, type Page } from 'playwright-core';
import { bundleForBrowser } from '../scripts/cdn-options.mjs';
import { chromiumLaunchOptions } from '../test/helpers/chromium.js';
import { DEMO_LOGIN, serveDemoProxy } from '@esign-elements/test-support/oauth-login';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy } from '@esign-elements/token-proxy/node';
import { BENCH_SESSION, mintPageAccessToken } from './page-session.js';
import { printTable, recordResults } from './results.js';

const ROUNDS = Number(process.env['LAZY_BENCH_ROUNDS'] ?? 15);
const LATENCIES = [0, 40];

const pageScript = `
import './src/index.ts';

${BENCH_SESSION}

const connect = document.querySelector('esign-connect');
window.popupAt = [];
const open = window.open.bind(window);
window.open = (...args) => { const w = open(...args); if (w) window.popupAt.push(performance.now()); return w; };
window.clickAt = [];
connect.addEventListener('click', () => window.clickAt.push(performance.now()), { capture: true });

window.uploadOnce = async (name) => {
  const el = document.querySelector('esign-uploader');
  await el.updateComplete;
  const started = new Promise((resolve) => el.addEventListener('esign-upload-start', () => resolve(performance.now()), { once: true }));
  const t0 = performance.now();
  const done = el.upload([new File(['%PDF-1.4\\n%%EOF\\n'], name, { type: 'application/pdf' })]);
  const t1 = await started;
  await done;
  return t1 - t0;
};
window.ready = true;
`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const emulator = await createEmulator({ port: 0, filePort: 0, limits: { requestsPerMinute: 100_000 } });
  // the uploader's session: a token minted in Node through a token proxy's sign-in
  const accessToken = await mintPageAccessToken(emulator);

  const output = await bundleForBrowser({ page: pageScript });
  const files = new Map(output.map((chunk) => [`/${chunk.fileName}`, chunk.code]));
  const entry = '/page.js';
  let latency = 0;
  const config = { baseUrl: emulator.baseUrl, accessToken };
  /** <esign-connect>'s token proxy (default mode: its login route starts the sign-in), known once the site listens. */
  let proxyOrigin = '';
  const site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const script = files.get(path);
    if (script !== undefined) {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(script), latency);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lazy paths</title><link rel="icon" href="data:,">
<script>window.bench = ${JSON.stringify(config)};</script><script type="module" src="${entry}"></script></head>
<body><bench-session id="bench-session"></bench-session>
<esign-connect client-id="${DEMO_LOGIN.clientId}" base-url="${emulator.baseUrl}" token-endpoint="${proxyOrigin}/token" storage="memory"></esign-connect>
<esign-uploader connect="bench-session" multiple></esign-uploader></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  // the page's token proxy on the same site (localhost), its callback registered at the emulator; no rate limit
  // (every sign-in and token call of the run comes from one address)
  const proxy = await serveDemoProxy(serveTokenProxy, emulator, { cookieKeys: [generateCookieKey()], allowedOrigins: [origin], rateLimit: false });
  proxyOrigin = new URL(proxy.callbackUrl!).origin;
  const browser = await chromium.launch(chromiumLaunchOptions());
  const loadBefore = loadavg()[0]!;
  const rows: Array<Record<string, string | number>> = [];
  const recorded: Record<string, unknown> = {};
  try {
    for (const ms of LATENCIES) {
      latency = ms;
      const samples = {
        popupCold: [] as number[],
        popupWarm: [] as number[],
        consentCold: [] as number[],
        consentWarm: [] as number[],
        uploadCold: [] as number[],
        uploadWarm: [] as number[],
      };
      for (let round = 0; round < ROUNDS; round++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(origin);
        await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
        // uploads first, the pointer away from the drop zone: no hover has loaded the pipeline ahead (load on intent)
        samples.uploadCold.push(await page.evaluate(() => (window as unknown as { uploadOnce(n: string): Promise<number> }).uploadOnce('cold.pdf')));
        samples.uploadWarm.push(await page.evaluate(() => (window as unknown as { uploadOnce(n: string): Promise<number> }).uploadOnce('warm.pdf')));
        for (const kind of ['Cold', 'Warm'] as const) {
          const { inPage, consent } = await clickConnect(page);
          samples[`popup${kind}`].push(inPage);
          samples[`consent${kind}`].push(consent);
        }
        await context.close();
      }
      for (const [path, cold, warm] of [
        ['Connect click -> popup open (in the click)', samples.popupCold, samples.popupWarm],
        ['Connect click -> consent page shown in the popup', samples.consentCold, samples.consentWarm],
        ['file -> esign-upload-start', samples.uploadCold, samples.uploadWarm],
      ] as const) {
        rows.push({
          'chunk latency': `${ms} ms`,
          path,
          'cold median ms': median(cold).toFixed(1),
          'warm median ms': median(warm).toFixed(1),
          'cold - warm ms': (median(cold) - median(warm)).toFixed(1),
        });
      }
      recorded[`latency${ms}ms`] = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Number(median(v).toFixed(2))]));
    }
  } finally {
    await browser.close();
    site.close();
    await proxy.close();
    await emulator.close();
  }
  printTable(
    `lazy paths, cold (first time, its code not loaded) and warm, medians of ${ROUNDS} rounds (Chromium; load average ${loadBefore.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs)`,
    rows,
  );
  recordResults('lazyPaths', { rounds: ROUNDS, ...recorded });
}

/** Clicks Connect as a person: the popup's opening time in the page, and the time until it shows the consent page. */
async function clickConnect(page: Page): Promise<{ inPage: number; consent: number }> {
  const before = await page.evaluate(() => (window as unknown as { popupAt: number[] }).popupAt.length);
  // "Connect e-signature account", or "Try again" after the previous sign-in was cancelled: both start one
  const box = (await page
    .locator('esign-connect')
    .getByRole('button', { name: /Connect e-signature account|Try again/ })
    .boundingBox())!;
  const popupEvent = page.waitForEvent('popup');
  const t0 = Date.now();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const popup = await popupEvent;
  await popup.waitForURL(/\/consent\?/);
  const consent = Date.now() - t0;
  const inPage = await page.evaluate((n) => {
    const w = window as unknown as { popupAt: number[]; clickAt: number[] };
    return w.popupAt[n]! - w.clickAt[w.clickAt.length - 1]!;
  }, before);
  // end this try (the element shows "Try again")
  if (!popup.isClosed()) await popup.close();
  await page.evaluate(() => (document.querySelector('esign-connect') as unknown as { cancel(): void }).cancel());
  await page.locator('esign-connect').getByRole('button', { name: 'Try again' }).waitFor();
  return { inPage, consent };
}

await main();
