/**
 * Time to frame: from `esign-upload-complete` to `esign-view-loaded` with <esign-signing-frame uploader="up" auto>,
 * against a hand-written page that makes the same embedded/views call and loads the same kind of Url, in the
 * same Chromium, same run, alternating (target: element ≤ 1.05 × hand-written; the package built with code splitting,
 * as a page loads it).
 *
 * Both count "loaded" the same way: the embedded page's `ready` message. The session comes from a minimal
 * provider element (the public `connect="ID"` interface: getAccessToken, baseUrl, session) holding a token
 * minted in Node through a token proxy's sign-in (page-session.ts), so no sign-in happens inside the measured span.
 *
 * A third path, reported but not part of the target, is a hand-written page with the element's security
 * properties: the same sandbox/allow/referrerpolicy, a blank frame built while the request is in flight and
 * the Url given by `location.replace` (never in `src`, so never in the DOM nor in this page's Resource Timing).
 * It shows what that design costs by itself, apart from the element's own overhead.
 *
 * Fairness: every path starts from an empty stage after the previous round's frame is gone, the page has
 * painted twice and had idle time (so one round's teardown is not billed to the next); the element is attached
 * and settled before t0, as it would be on a page long before an upload ends. Settled includes the blank, hidden
 * frame it builds in idle time while it waits for files (the run prints in how many rounds that frame was there
 * at t0): that work is moved out of the measured span by design, because on a real page the upload it waits for
 * takes far longer than the idle time it needs. Warm-up rounds run every path and are discarded; the order of
 * the paths rotates every round.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { bundleForBrowser } from '../scripts/cdn-options.mjs';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../test/helpers/chromium.js';
import { createEmulator } from '@esign-elements/emulator';
import { BENCH_SESSION, mintPageAccessToken } from './page-session.js';
import { printTable, recordResults } from './results.js';

const ITERATIONS = Number(process.env['FRAME_BENCH_ITERATIONS'] ?? 60);
const WARMUP = 3;
/** Issue 13: the lazy loading must not cost the time to frame more than 5 %. */
const TARGET = 1.05;

const pageScript = `
import './src/esign-signing-frame.ts';

${BENCH_SESSION}

/** An empty stage, the previous round's frame gone and two frames painted. */
async function clearStage() {
  const host = document.getElementById('stage');
  host.replaceChildren();
  await settle();
  return host;
}
async function settle() {
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 500 }));
}
window.prebuiltAtStart = 0;

const readyFrom = (iframe, origin) => new Promise((resolve) =>
  window.addEventListener('message', function onMessage(e) {
    if (e.source === iframe.contentWindow && e.origin === origin && e.data && e.data.source === 'esign' && e.data.type === 'ready') {
      window.removeEventListener('message', onMessage);
      resolve();
    }
  }),
);

const viewsRequest = () => fetch(window.bench.baseUrl + '/openapi/v1/embedded/views', {
  method: 'POST',
  headers: { Authorization: 'Bearer ' + window.bench.accessToken, 'Content-Type': 'application/json' },
  body: JSON.stringify({ OperateType: 'request_signatures', OperateParam: { FileIds: window.bench.fileIds } }),
});

/** The element: an uploader-like source announces FileIds; the frame (uploader="up" auto) opens by itself. */
window.measureElement = async () => {
  const host = await clearStage();
  const up = document.createElement('div');
  up.id = 'up';
  const frame = document.createElement('esign-signing-frame');
  frame.setAttribute('connect', 'bench-session');
  frame.setAttribute('uploader', 'up');
  frame.setAttribute('auto', '');
  frame.style.height = '600px';
  host.append(up, frame);
  await frame.updateComplete;
  await settle();
  if (frame.shadowRoot.querySelector('iframe.prebuilt')) window.prebuiltAtStart += 1;
  const loaded = new Promise((resolve) => frame.addEventListener('esign-view-loaded', resolve, { once: true }));
  const failed = new Promise((_, reject) => frame.addEventListener('esign-error', (e) => reject(new Error(e.detail.error.code)), { once: true }));
  const t0 = performance.now();
  up.dispatchEvent(new CustomEvent('esign-upload-complete', { bubbles: true, composed: true, detail: { files: window.bench.files, fileIds: window.bench.fileIds } }));
  await Promise.race([loaded, failed]);
  return performance.now() - t0;
};

/** Hand-written: the same call, an iframe with the Url, waiting for the same ready message. */
window.measureBaseline = async () => {
  const host = await clearStage();
  const t0 = performance.now();
  const res = await viewsRequest();
  const { Response } = await res.json();
  const iframe = document.createElement('iframe');
  iframe.style.cssText = 'width:100%;height:600px;border:0';
  const ready = readyFrom(iframe, new URL(Response.Data.Url).origin);
  iframe.src = Response.Data.Url;
  host.append(iframe);
  await ready;
  return performance.now() - t0;
};

/** Hand-written with the element's security: sandboxed blank frame built during the request, Url by navigation. */
window.measureSameSecurity = async () => {
  const host = await clearStage();
  const t0 = performance.now();
  const request = viewsRequest();
  const iframe = document.createElement('iframe');
  iframe.style.cssText = 'width:100%;height:600px;border:0;visibility:hidden';
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox');
  iframe.setAttribute('allow', 'clipboard-write');
  iframe.setAttribute('referrerpolicy', 'no-referrer');
  host.append(iframe);
  const { Response } = await (await request).json();
  const url = new URL(Response.Data.Url);
  // the element's check, as a page would write it: https or loopback http, from the service's origin
  if ((url.protocol !== 'https:' && url.hostname !== '127.0.0.1') || url.origin !== new URL(window.bench.baseUrl).origin) throw new Error('Url refused');
  const ready = readyFrom(iframe, url.origin);
  iframe.contentWindow.location.replace(Response.Data.Url);
  await ready;
  iframe.style.visibility = '';
  return performance.now() - t0;
};
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Linear interpolation between the closest ranks. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

async function main(): Promise<void> {
  const emulator = await createEmulator({ port: 0, filePort: 0, limits: { requestsPerMinute: 10_000 } });
  // a session minted in Node (a sign-in through a token proxy), as <esign-connect> would hold it
  const accessToken = await mintPageAccessToken(emulator);
  const uploadRes = await fetch(`${emulator.baseUrl}/openapi/v1/files/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ Files: [{ FileName: 'contract.pdf', FileBody: Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64') }] }),
  });
  const files = ((await uploadRes.json()) as { Response: { Data: { Files: Array<{ FileId: string; FileName: string }> } } }).Response.Data.Files;

  // as a page gets the package, bundled as the CDN build and the size budgets are (scripts/cdn-options.mjs): an entry
  // and the chunks it loads when first needed (the view's controller among them)
  const output = await bundleForBrowser({ page: pageScript });
  const scripts = new Map(output.map((chunk) => [`/${chunk.fileName}`, chunk.code]));
  const entry = '/page.js';
  const config = { baseUrl: emulator.baseUrl, accessToken, files, fileIds: files.map((f) => f.FileId) };
  const site = createServer((req, res) => {
    const script = scripts.get(req.url ?? '');
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>time to frame</title><link rel="icon" href="data:,">
<script>window.bench = ${JSON.stringify(config)};</script><script type="module" src="${entry}"></script></head>
<body><bench-session id="bench-session"></bench-session><div id="stage"></div></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await browser.newPage();
    await page.goto(origin);
    await page.waitForFunction(() => typeof (window as unknown as { measureElement?: unknown }).measureElement === 'function');
    type Path = 'measureElement' | 'measureBaseline' | 'measureSameSecurity';
    const measure = (which: Path) => page.evaluate((name) => (window as unknown as Record<Path, () => Promise<number>>)[name](), which);
    const paths: Path[] = ['measureElement', 'measureBaseline', 'measureSameSecurity'];
    /** Every order of the three paths, cycled, so no path always runs first, last or after the same one. */
    const orders: Path[][] = [0, 1, 2].flatMap((shift) => {
      const rotated = [...paths.slice(shift), ...paths.slice(0, shift)];
      return [rotated, [...rotated].reverse()];
    });
    const loadBefore = loadavg()[0]!;
    const times: Record<Path, number[]> = { measureElement: [], measureBaseline: [], measureSameSecurity: [] };
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const round = {} as Record<Path, number>;
      for (const path of orders[i % orders.length]!) round[path] = await measure(path);
      // warm-up rounds (module code, connections, the emulator's pages) are run by every path and discarded
      if (i >= WARMUP) for (const path of paths) times[path].push(round[path]);
    }
    const loadAfter = loadavg()[0]!;
    const rounds = WARMUP + ITERATIONS;
    const prebuiltAtStart = await page.evaluate(() => (window as unknown as { prebuiltAtStart: number }).prebuiltAtStart);
    const element = times.measureElement;
    const baseline = times.measureBaseline;
    const sameSecurity = times.measureSameSecurity;
    const ratio = median(element) / median(baseline);
    const pairedRatio = median(element.map((e, i) => e / baseline[i]!));
    const stats = (values: number[]) => ({
      'median ms': median(values).toFixed(1),
      'p25 ms': quantile(values, 0.25).toFixed(1),
      'p75 ms': quantile(values, 0.75).toFixed(1),
      'min ms': Math.min(...values).toFixed(1),
      'max ms': Math.max(...values).toFixed(1),
    });
    const blank = { 'median ms': '', 'p25 ms': '', 'p75 ms': '', 'min ms': '', 'max ms': '' };
    printTable(
      `time to frame, ${ITERATIONS} rounds after ${WARMUP} warm-up rounds, order rotated (Chromium, emulator on 127.0.0.1; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} CPUs)`,
      [
        { path: '<esign-signing-frame uploader auto>', ...stats(element) },
        { path: 'hand-written fetch + iframe src', ...stats(baseline) },
        { path: 'hand-written, same security (reference)', ...stats(sameSecurity) },
        { path: 'element / hand-written', ...blank, 'median ms': ratio.toFixed(2) },
        { path: '  same, median of per-round ratios', ...blank, 'median ms': pairedRatio.toFixed(2) },
        { path: 'element / same-security reference', ...blank, 'median ms': (median(element) / median(sameSecurity)).toFixed(2) },
      ],
    );
    const verdict = ratio <= TARGET ? 'MET' : 'MISSED';
    console.log(`\nthe element's blank frame was pre-built at t0 in ${prebuiltAtStart} of ${rounds} rounds (warm-up included)`);
    console.log(`target element/hand-written ≤ ${TARGET}: ${verdict} (${ratio.toFixed(2)})`);
    recordResults('timeToFrame', {
      iterations: ITERATIONS,
      warmupRounds: WARMUP,
      elementMs: { median: median(element), min: Math.min(...element), max: Math.max(...element) },
      baselineMs: { median: median(baseline), min: Math.min(...baseline), max: Math.max(...baseline) },
      sameSecurityMs: { median: median(sameSecurity), min: Math.min(...sameSecurity), max: Math.max(...sameSecurity) },
      ratio: Number(ratio.toFixed(3)),
      pairedRatio: Number(pairedRatio.toFixed(3)),
      ratioToSameSecurity: Number((median(element) / median(sameSecurity)).toFixed(3)),
      prebuiltAtStart: { rounds, prebuilt: prebuiltAtStart },
      loadAverage: { before: Number(loadBefore.toFixed(2)), after: Number(loadAfter.toFixed(2)) },
      target: TARGET,
      verdict,
      definition:
        'esign-upload-complete dispatched → esign-view-loaded (the page’s ready message), the element settled before t0 (its blank frame pre-built in idle time); baseline: fetch embedded/views → iframe src → the same ready message; reference (not the target): the same with the element’s sandbox, a blank frame built during the request and the Url by location.replace',
    });
  } finally {
    await browser.close();
    await new Promise((resolve) => site.close(resolve));
    await emulator.close();
  }
}

await main();
