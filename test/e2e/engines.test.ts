/**
 * The whole flow, as a person goes through it, in Chromium, Firefox and WebKit: a plain page that loads the CDN build
 * and has the four tags; Connect through the emulator's consent popup (the token proxy runs the sign-in), drop a PDF,
 * add a signer and Send in the embedded page, see the envelope in the contract list, reload, Disconnect. The engines
 * come from Debian's packages (test/helpers/engines.ts); a missing one fails the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PEOPLE, SPACES, startEsignServices, type EsignServices } from '@esign-elements/testing';
import { cdnBuild } from '../helpers/built.js';
import { type EngineBrowsers, openEngines } from '../helpers/engine-page.js';
import { selectedEngines } from '../helpers/engines.js';

let esign: EsignServices;
let pageUrl: string;
/** One browser per engine for the file (launched at its first page). */
let browsers: EngineBrowsers;

before(async () => {
  // the CDN build exactly as `npm run build:cdn` makes it, which the test kit's site serves
  await cdnBuild();
  esign = await startEsignServices();
  pageUrl = esign.servePage(`<h1>Contracts</h1>
<esign-connect id="esign" ${esign.connectAttributes}></esign-connect>
<esign-uploader id="up" connect="esign"></esign-uploader>
<esign-signing-frame connect="esign" uploader="up" auto></esign-signing-frame>
<esign-contract-list connect="esign" auto></esign-contract-list>`);
  browsers = await openEngines(esign.baseUrl);
});

after(async () => {
  await browsers?.close();
  await esign?.close();
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
      esign.reset();
      const started = Date.now();
      const page = await browsers.newPage(engine);
      try {
        await page.goto(pageUrl);
        await page.clickButton('Connect e-signature account');
        await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
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
