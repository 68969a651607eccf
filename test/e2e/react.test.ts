/**
 * A React 19 app (test/e2e/fixtures/react-app.ts, bundled with esbuild for production) in Chromium, against the real
 * emulator and token proxy, with no esign-error, page error or secret on the way: with the generated wrappers
 * (esign-elements/react) it loads, a person connects through the consent popup, React's handler hears esign-connected
 * and the tags are shown; with the plain tags, the whole flow: also pick a PDF, send the envelope in the signing frame
 * that React renders with the FileIds from the uploader's event (its `onesign-…` handlers fire), and find it in the
 * contract list. The wrappers' upload, Send and list run in framework-apps-pack.test.ts (the packed react-ts app, the
 * same handlers) and, in every engine, test/browser/settings-react.test.ts. Like test/e2e/vue.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { watchPage } from '../helpers/page-watch.js';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { startEsignServices, type EsignServices } from '@esign-elements/testing';

const SECRET = 'react-e2e-secret-must-never-reach-the-browser';
let services: EsignServices;
let browser: Browser;
let site: Server;
let siteOrigin: string;

before(async () => {
  const bundle = await build({
    entryPoints: ['test/e2e/fixtures/react-app.ts'],
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const script = bundle.outputFiles[0]!.text;
  let configScript = '';
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/app.js' || path === '/config.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(path === '/app.js' ? script : configScript);
      return;
    }
    if (path !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React app</title><link rel="icon" href="data:,">
<script src="/config.js"></script><script type="module" src="/app.js"></script></head><body><div id="root"></div></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // the page on localhost, the service on 127.0.0.1 (cross-origin), the proxy on localhost (the page's site)
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  services = await startEsignServices({ clientId: 'react-app', clientSecret: SECRET, appName: 'React integrator', siteOrigins: [siteOrigin] });
  configScript = `window.config = ${JSON.stringify({ clientId: 'react-app', baseUrl: services.emulator.baseUrl, tokenEndpoint: services.tokenEndpoint })};`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('a React 19 app', () => {
  for (const { name, query, wholeFlow } of [
    { name: 'with the @lit/react wrappers', query: '', wholeFlow: false },
    // only here do React 19's plain tags hear esign-envelope-sent (`onesign-envelope-sent`)
    { name: 'with the plain tags', query: '?tags', wholeFlow: true },
  ]) {
    const does = wholeFlow
      ? 'connects, uploads a PDF, sends it from the signing frame and lists it'
      : 'loads, connects, React hears esign-connected, the tags are shown';
    it(`${name}: ${does}`, async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // page errors, requests and every esign-error the page hears, from before the app starts
      const watched = await watchPage(page, SECRET);
      await page.goto(`${siteOrigin}/${query}`);

      await signInWithPopup(page);
      await page.getByText('Connected as Alice Tan').waitFor();
      // React's handler got the typed detail
      await page.getByRole('status').filter({ hasText: 'React sees Space space_acme' }).waitFor();
      // the other tags rendered by React see the session: the uploader's drop zone is enabled, the list's embedded page opens from the service
      await page.locator('esign-uploader [part~="drop-zone"][aria-disabled="false"]').waitFor();
      await page
        .frameLocator('esign-contract-list iframe[src], esign-contract-list iframe:not([aria-hidden])')
        .locator('#no-contracts, tr[data-envelope-id]')
        .first()
        .waitFor({ timeout: 20_000 });
      if (!wholeFlow) {
        await watched.clean();
        await context.close();
        return;
      }

      // a person clicks the drop zone and picks a PDF
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
      await chooser.setFiles({ name: 'react-lease.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% a React test document\n%%EOF\n') });
      await page.getByText('1 file ready to send').waitFor({ timeout: 20_000 });

      // React rendered the frame with the FileIds as a property; the person adds a signer and sends
      const subject = `Lease signed from React ${query ? 'tags' : 'wrappers'}`;
      const frame = page.frameLocator('esign-signing-frame iframe');
      await frame.getByText('react-lease.pdf').waitFor({ timeout: 20_000 });
      await frame.getByLabel('Subject').fill(subject);
      await frame.getByLabel('Name').fill('Bob Lim');
      await frame.getByLabel('Email').fill('bob@example.com');
      await frame.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Envelope sent', { exact: true }).waitFor();
      await page.getByText('React saw the envelope sent').waitFor();

      // the contract list, loaded again by the app once sent, shows the envelope
      await page.frameLocator('esign-contract-list iframe').getByText(subject).waitFor({ timeout: 20_000 });

      await watched.clean();
      await context.close();
    });
  }
});
