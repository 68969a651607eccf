/**
 * The whole flow, as a person goes through it, in Chromium, Firefox and WebKit: a plain page that loads the CDN build
 * and has the four tags; Connect through the emulator's consent popup (the token proxy runs the sign-in), drop a PDF,
 * add a signer and Send in the embedded page, see the envelope in the contract list, reload, Disconnect. The engines
 * come from Debian's packages (test/helpers/engines.ts); a missing one fails the test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openEnginePage } from '../helpers/engine-page.js';
import { selectedEngines } from '../helpers/engines.js';
import { startSiteServices, type SiteServices } from '../helpers/site-services.js';

let services: SiteServices;
let site: Server;
let siteOrigin: string;

before(async () => {
  execFileSync(process.execPath, ['scripts/build-cdn.mjs'], { stdio: 'pipe' });
  let markup = '';
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (/^\/cdn\/(chunks\/)?[\w.-]+\.js$/.test(path)) {
      try {
        const script = readFileSync(`dist${path}`, 'utf8');
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contracts</title>
<script type="module" src="/cdn/esign-elements.min.js"></script></head><body>${markup}</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  services = await startSiteServices({ clientId: 'engines-app', clientSecret: 'engines-secret', name: 'Every engine', siteOrigin });
  markup = `<h1>Contracts</h1>
<esign-connect id="esign" client-id="engines-app" base-url="${services.emulator.baseUrl}" token-endpoint="${services.tokenEndpoint}"></esign-connect>
<esign-uploader id="up" connect="esign"></esign-uploader>
<esign-signing-frame connect="esign" uploader="up" auto></esign-signing-frame>
<esign-contract-list connect="esign" auto></esign-contract-list>`;
});

after(async () => {
  await services?.close();
  await new Promise((resolve) => site?.close(resolve));
});

/** A person drops one PDF on the uploader's drop zone (a real DataTransfer with a File, as the browser makes it). */
const DROP_PDF = `
  const zone = document.querySelector('esign-uploader').shadowRoot.querySelector('[part~="drop-zone"]');
  const data = new DataTransfer();
  data.items.add(new File(['%PDF-1.4\\n% a small test document\\n%%EOF\\n'], arguments[0], { type: 'application/pdf' }));
  for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, composed: true, cancelable: true, dataTransfer: data }));
  return true;`;

describe('the full flow in every engine', () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: connect in the consent popup, drop a PDF, send it, see it in the list, reload, disconnect`, async () => {
      services.emulator.reset();
      const started = Date.now();
      const page = await openEnginePage(engine, services.emulator.baseUrl);
      try {
        await page.goto(siteOrigin);
        await page.clickButton('Connect e-signature account');
        await page.person.consent({ email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme' }, 20_000);
        await page.waitForText('Connected as Alice Tan', 20_000);

        await page.run(DROP_PDF, 'lease-agreement.pdf');
        // the signing frame opens by itself with the uploaded file; the person adds a signer and sends
        const subject = `Lease for unit 12 (${engine})`;
        await page.person.frameText('/compose', 'lease-agreement.pdf', 20_000);
        await page.person.frameSend({ subject, signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] }, 20_000);
        await page.waitForText('Envelope sent', 20_000);
        await page.waitForText('Sent for signing', 10_000);
        const listed = await page.person.frameText('/contracts', subject, 20_000);
        assert.match(listed, /Bob Lim|bob@example\.com|Sent|Awaiting/i, 'the contract list shows the envelope and who signs');

        // after a reload: still connected (the proxy's cookie), and the list still shows the envelope
        await page.reload();
        await page.waitForText('Connected as Alice Tan', 20_000);
        await page.person.frameText('/contracts', subject, 20_000);

        await page.clickButton('Disconnect');
        await page.waitForText('Connect e-signature account', 10_000);
        console.log(`# ${engine}: full flow in ${Date.now() - started} ms`);
      } finally {
        await page.close();
      }
    });
  }
});
