/**
 * A Vue 3 app (test/e2e/fixtures/vue-app, built with vite and @vitejs/plugin-vue as an integrator's app is) uses the
 * tags directly and runs the whole flow as a person does in Chromium: connect through the consent popup, pick a PDF,
 * send the envelope in the signing frame that Vue renders with the FileIds from the uploader's event, and find it in
 * the contract list, with no esign-error on the way, against the real emulator and token proxy. Like
 * test/e2e/react.test.ts.
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
  it('connects, uploads a PDF, sends it from the signing frame that Vue renders and lists it', { timeout: 240_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // page errors, requests and every esign-error the page hears, from before the app starts
    const watched = await watchPage(page, SECRET);
    await page.goto(siteOrigin);

    await signInWithPopup(page);
    await page.getByText('Connected as Alice Tan').waitFor();
    // Vue's @esign-connected handler got the typed detail
    await page.getByRole('status').filter({ hasText: 'Vue sees Space space_acme' }).waitFor();

    // a person clicks the drop zone and picks a PDF
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
    await chooser.setFiles({ name: 'vue-lease.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% a Vue test document\n%%EOF\n') });
    await page.getByText('1 file ready to send').waitFor({ timeout: 20_000 });

    // Vue rendered the frame with the FileIds as a property; the person adds a signer and sends
    const frame = page.frameLocator('esign-signing-frame iframe');
    await frame.getByText('vue-lease.pdf').waitFor({ timeout: 20_000 });
    await frame.getByLabel('Subject').fill('Lease signed from Vue');
    await frame.getByLabel('Name').fill('Bob Lim');
    await frame.getByLabel('Email').fill('bob@example.com');
    await page.evaluate(() => {
      const heard = window as unknown as { sentEnvelopeId?: string };
      document.addEventListener('esign-envelope-sent', (e) => (heard.sentEnvelopeId = (e as CustomEvent<{ envelopeId: string }>).detail.envelopeId), {
        once: true,
      });
    });
    await frame.getByRole('button', { name: 'Send' }).click();
    // the element tells the page and shows its sent state, with a way to start another; if it does not, the failure
    // says what the element shows and what the page heard (a wait that never ends would hide it)
    const envelopeId = await page
      .waitForFunction(() => (window as unknown as { sentEnvelopeId?: string }).sentEnvelopeId, undefined, { timeout: 30_000 })
      .then((handle) => handle.jsonValue() as Promise<string>)
      .catch(async (error: unknown) => {
        const shown = await page.evaluate(() => {
          const element = document.querySelector('esign-signing-frame') as (HTMLElement & { status?: string; error?: { code?: string } }) | null;
          return { status: element?.status, error: element?.error?.code, text: element?.shadowRoot?.textContent?.replace(/\s+/g, ' ').trim() };
        });
        const inFrame = await frame
          .locator('body')
          .innerText({ timeout: 2_000 })
          .catch(() => '(the frame did not answer)');
        throw new Error(`no esign-envelope-sent within 30 s: the element shows ${JSON.stringify(shown)}; the page in the frame: ${inFrame}`, {
          cause: error,
        });
      });
    assert.ok(envelopeId.length > 0, 'the service answered with an EnvelopeId');
    await page.getByText('Envelope sent').waitFor();
    await page.getByRole('button', { name: 'Start another envelope' }).waitFor();

    // the contract list, loaded again by the app once sent, shows the envelope
    await page.frameLocator('esign-contract-list iframe').getByText('Lease signed from Vue').waitFor({ timeout: 20_000 });

    await watched.clean();
    await context.close();
  });
});
