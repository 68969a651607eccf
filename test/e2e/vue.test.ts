/**
 * A Vue 3 app (test/e2e/fixtures/vue-app, built from this checkout's sources with vite and @vitejs/plugin-vue as an
 * integrator's app is) uses the tags directly, in Chromium against the real emulator and token proxy: it loads, a
 * person connects through the consent popup, Vue's @esign-connected handler hears it, the other tags see the session,
 * with no esign-error, page error or secret on the way. The rest of the flow in a Vue app (pick a PDF, the signing frame
 * Vue renders from @esign-upload-complete, Send, @esign-envelope-sent, the list) runs in framework-apps-pack.test.ts's
 * vue-ts app, built from the packed tarball with the same plugin and handlers. Like test/e2e/react.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import vue from '@vitejs/plugin-vue';
import { type Browser, chromium } from 'playwright-core';
import { build, type Rollup } from 'vite';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { watchPage } from '../helpers/page-watch.js';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { startEsignServices, type EsignServices } from '@esign-elements/testing';

const SECRET = 'vue-e2e-secret-must-never-reach-the-browser';
const APP_DIR = fileURLToPath(new URL('./fixtures/vue-app/', import.meta.url));
let services: EsignServices;
let browser: Browser;
let site: Server;
let siteOrigin: string;

before(async () => {
  // the app's production build, kept in memory
  const result = (await build({
    configFile: false,
    root: APP_DIR,
    logLevel: 'warn',
    plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('esign-') } } })],
    // the package as the app imports it; from src/ so the test follows the working tree
    resolve: { alias: { 'esign-elements': fileURLToPath(new URL('../../src/index.ts', import.meta.url)) } },
    build: { write: false, minify: true, target: 'es2022' },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  const files = new Map(outputs.map((o) => [`/${o.fileName}`, o.type === 'chunk' ? o.code : o.source]));
  let configScript = '';
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/config.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(configScript);
      return;
    }
    const body = files.get(path === '/' ? '/index.html' : path);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': path.endsWith('.js') ? 'text/javascript; charset=utf-8' : path.endsWith('.css') ? 'text/css' : 'text/html; charset=utf-8',
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // the page on localhost, the service on 127.0.0.1 (cross-origin); the proxy is reached as localhost too, the same
  // site as the page, as a proxy that keeps its refresh token in a SameSite=Strict cookie needs
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  services = await startEsignServices({ clientId: 'vue-app', clientSecret: SECRET, appName: 'Vue integrator', siteOrigins: [siteOrigin] });
  const { emulator, tokenEndpoint } = services;
  configScript = `window.config = ${JSON.stringify({ clientId: 'vue-app', baseUrl: emulator.baseUrl, tokenEndpoint })};`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('a Vue 3 app with the tags', () => {
  it('loads, connects, Vue hears esign-connected, and the other tags see the session', { timeout: 240_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // page errors, requests and every esign-error the page hears, from before the app starts
    const watched = await watchPage(page, SECRET);
    await page.goto(siteOrigin);

    await signInWithPopup(page);
    await page.getByText('Connected as Alice Tan').waitFor();
    assert.equal(await page.locator('esign-connect').getAttribute('status'), 'connected');
    // Vue's @esign-connected handler got the typed detail
    await page.getByRole('status').filter({ hasText: 'Vue sees Space space_acme' }).waitFor();
    // the other tags Vue rendered see the session: the uploader's drop zone is enabled, the list's embedded page opens from the service
    await page.locator('esign-uploader [part~="drop-zone"][aria-disabled="false"]').waitFor();
    await page
      .frameLocator('esign-contract-list iframe[src], esign-contract-list iframe:not([aria-hidden])')
      .locator('#no-contracts, tr[data-envelope-id]')
      .first()
      .waitFor({ timeout: 20_000 });

    await watched.clean();
    await context.close();
  });
});
