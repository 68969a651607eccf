/**
 * Time to frame: from `esign-upload-complete` to `esign-view-loaded` with <esign-signing-frame uploader="up" auto>,
 * against a hand-written page that makes the same embedded/views call and loads the same kind of Url, in the
 * same Chromium, same run, alternating (target: element ≤ 1.1 × hand-written).
 *
 * Both count "loaded" the same way: the embedded page's `ready` message. The session comes from a minimal
 * provider element (the public `connect="ID"` interface: getAccessToken, baseUrl, session) holding a token
 * minted in Node through the consent forms, so no sign-in happens inside the measured span.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../test/helpers/chromium.js';
import { createEmulator } from '../src/emulator/index.js';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '../test/helpers/oauth-login.js';
import { printTable, recordResults } from './results.js';

const ITERATIONS = 30;
const TARGET = 1.1;

const pageScript = `
import './src/esign-signing-frame.ts';

class BenchSession extends HTMLElement {
  get baseUrl() { return window.bench.baseUrl; }
  get session() { return { scope: ['envelope:create'], spaceId: 'space_acme', expiresAt: new Date(Date.now() + 3600e3), connectedAt: new Date() }; }
  get operatorUserId() { return undefined; }
  async getAccessToken() { return window.bench.accessToken; }
}
customElements.define('bench-session', BenchSession);

/** The element: an uploader-like source announces FileIds; the frame (uploader="up" auto) opens by itself. */
window.measureElement = async () => {
  const host = document.getElementById('stage');
  host.replaceChildren();
  const up = document.createElement('div');
  up.id = 'up';
  const frame = document.createElement('esign-signing-frame');
  frame.setAttribute('connect', 'bench-session');
  frame.setAttribute('uploader', 'up');
  frame.setAttribute('auto', '');
  frame.style.height = '600px';
  host.append(up, frame);
  await frame.updateComplete;
  const loaded = new Promise((resolve) => frame.addEventListener('esign-view-loaded', resolve, { once: true }));
  const failed = new Promise((_, reject) => frame.addEventListener('esign-error', (e) => reject(new Error(e.detail.error.code)), { once: true }));
  const t0 = performance.now();
  up.dispatchEvent(new CustomEvent('esign-upload-complete', { bubbles: true, composed: true, detail: { files: window.bench.files, fileIds: window.bench.fileIds } }));
  await Promise.race([loaded, failed]);
  return performance.now() - t0;
};

/** Hand-written: the same call, an iframe with the Url, waiting for the same ready message. */
window.measureBaseline = async () => {
  const host = document.getElementById('stage');
  host.replaceChildren();
  const t0 = performance.now();
  const res = await fetch(window.bench.baseUrl + '/openapi/v1/embedded/views', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + window.bench.accessToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'request_signatures', OperateParam: { FileIds: window.bench.fileIds } }),
  });
  const { Response } = await res.json();
  const iframe = document.createElement('iframe');
  iframe.style.cssText = 'width:100%;height:600px;border:0';
  const origin = new URL(Response.Data.Url).origin;
  const ready = new Promise((resolve) =>
    window.addEventListener('message', function onMessage(e) {
      if (e.source === iframe.contentWindow && e.origin === origin && e.data && e.data.source === 'esign' && e.data.type === 'ready') {
        window.removeEventListener('message', onMessage);
        resolve();
      }
    }),
  );
  iframe.src = Response.Data.Url;
  host.append(iframe);
  await ready;
  return performance.now() - t0;
};
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const emulator = await createEmulator({ port: 0, filePort: 0, limits: { requestsPerMinute: 10_000 } });
  // a session minted in Node, as <esign-connect> would hold it
  const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId: 'space_acme' });
  const form = codeExchangeForm(login, DEMO_LOGIN.clientId);
  form.set('client_secret', DEMO_LOGIN.clientSecret);
  const tokenRes = await fetch(`${emulator.baseUrl}/openapi/v1/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  const { access_token: accessToken } = (await tokenRes.json()) as { access_token: string };
  const uploadRes = await fetch(`${emulator.baseUrl}/openapi/v1/files/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ Files: [{ FileName: 'contract.pdf', FileBody: Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64') }] }),
  });
  const files = ((await uploadRes.json()) as { Response: { Data: { Files: Array<{ FileId: string; FileName: string }> } } }).Response.Data.Files;

  const bundle = await build({
    stdin: { contents: pageScript, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
    target: 'es2022',
    conditions: ['production'],
    tsconfig: 'tsconfig.json',
  });
  const script = bundle.outputFiles[0]!.text;
  const config = { baseUrl: emulator.baseUrl, accessToken, files, fileIds: files.map((f) => f.FileId) };
  const site = createServer((req, res) => {
    if (req.url === '/bench.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>time to frame</title><link rel="icon" href="data:,">
<script>window.bench = ${JSON.stringify(config)};</script><script type="module" src="/bench.js"></script></head>
<body><bench-session id="bench-session"></bench-session><div id="stage"></div></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const page = await browser.newPage();
    await page.goto(origin);
    await page.waitForFunction(() => typeof (window as unknown as { measureElement?: unknown }).measureElement === 'function');
    type Bench = { measureElement(): Promise<number>; measureBaseline(): Promise<number> };
    const measure = (which: 'measureElement' | 'measureBaseline') => page.evaluate((name) => (window as unknown as Bench)[name](), which);
    // warm both paths (module code, connections, the emulator's pages)
    await measure('measureElement');
    await measure('measureBaseline');
    const element: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      // alternate the order so neither side always runs second
      if (i % 2 === 0) {
        element.push(await measure('measureElement'));
        baseline.push(await measure('measureBaseline'));
      } else {
        baseline.push(await measure('measureBaseline'));
        element.push(await measure('measureElement'));
      }
    }
    const ratio = median(element) / median(baseline);
    printTable(`time to frame, ${ITERATIONS} alternating runs each (Chromium, emulator on 127.0.0.1)`, [
      { path: '<esign-signing-frame uploader auto>', 'median ms': median(element).toFixed(1), 'min ms': Math.min(...element).toFixed(1), 'max ms': Math.max(...element).toFixed(1) },
      { path: 'hand-written fetch + iframe', 'median ms': median(baseline).toFixed(1), 'min ms': Math.min(...baseline).toFixed(1), 'max ms': Math.max(...baseline).toFixed(1) },
      { path: 'element / hand-written', 'median ms': ratio.toFixed(2), 'min ms': '', 'max ms': '' },
    ]);
    const verdict = ratio <= TARGET ? 'MET' : 'MISSED';
    console.log(`\ntarget element/hand-written ≤ ${TARGET}: ${verdict} (${ratio.toFixed(2)})`);
    recordResults('timeToFrame', {
      iterations: ITERATIONS,
      elementMs: { median: median(element), min: Math.min(...element), max: Math.max(...element) },
      baselineMs: { median: median(baseline), min: Math.min(...baseline), max: Math.max(...baseline) },
      ratio: Number(ratio.toFixed(3)),
      target: TARGET,
      verdict,
      definition: 'esign-upload-complete dispatched → esign-view-loaded (the page’s ready message); baseline: fetch embedded/views → iframe → the same ready message',
    });
  } finally {
    await browser.close();
    await new Promise((resolve) => site.close(resolve));
    await emulator.close();
  }
}

await main();
