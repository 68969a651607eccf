/** The generated React wrappers in a real React app in Chromium: props reach the element, typed event props fire. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../helpers/chromium.js';

let browser: Browser;
let site: Server;
let origin: string;

before(async () => {
  const bundle = await build({
    entryPoints: ['test/e2e/fixtures/react-app.ts'],
    bundle: true,
    format: 'esm',
    write: false,
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const script = bundle.outputFiles[0]!.text;
  site = createServer((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React app</title><link rel="icon" href="data:,">
<script>window.config = { baseUrl: 'http://127.0.0.1:9', tokenEndpoint: 'http://127.0.0.1:9/token' };</script>
<script type="module" src="/app.js"></script></head><body><div id="root"></div></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('esign-elements/react', () => {
  it('passes props as element properties and calls the typed onEsign… handlers', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    // a plain-http, non-loopback token endpoint is refused: the wrapper's onEsignError sees invalid_config
    await page.waitForFunction(() => window.seen.length > 0, undefined, { timeout: 10_000 });
    assert.deepEqual(await page.evaluate(() => window.seen[0]), { event: 'esign-error', code: 'invalid_config' });
    const props = await page.evaluate(() => {
      const el = document.querySelector('esign-connect') as HTMLElement & { clientId: string; storage: string; status: string };
      return { clientId: el.clientId, storage: el.storage, status: el.status };
    });
    assert.deepEqual(props, { clientId: 'react-app', storage: 'memory', status: 'error' });
    // React state flows into the element: a fixed endpoint clears the configuration error
    await page.getByRole('button', { name: 'Fix endpoint' }).click();
    await page.getByRole('button', { name: 'Connect e-signature account' }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
