/**
 * The CDN file a page can pin with Subresource Integrity (issue 49): the build prints the sha384 of
 * dist/cdn/esign-elements.bundle.min.js and writes it to dist/cdn/integrity.json; the README's snippet (an exact
 * version, `integrity`, `crossorigin`) and its two commands give that value; and the snippet, served from a "CDN" on
 * another origin (with CORS, as jsDelivr's) into a page whose Content-Security-Policy allows that one file as its
 * only script (no 'unsafe-inline'), runs the whole flow in Chromium, Firefox and WebKit: connect in the consent
 * popup, drop a PDF, send it, see it in the list. A wrong value: the file is fetched and never runs.
 * The build runs here into a folder of its own (dist/cdn is left alone), so what it prints is what is checked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { PEOPLE, SPACES, startEsignServices, type EsignServices } from '@esign-elements/testing';
import { sectionBlocks } from '../helpers/doc-steps.js';
import { type EngineBrowsers, openEngines } from '../helpers/engine-page.js';
import { selectedEngines } from '../helpers/engines.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = 'esign-elements.bundle.min.js';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Where the README's snippet loads the file from: jsDelivr, the package at its exact version. */
const PUBLISHED = `https://cdn.jsdelivr.net/npm/esign-elements@${VERSION}/dist/cdn/`;
/** The README's stand-in for the value of a version. */
const PLACEHOLDER = 'sha384-…';

let folder: string;
/** What the build printed as the bundle's integrity. */
let printed: string;
let snippet: string;
let commands: string[];
let cdn: Server;
let cdnOrigin: string;
/** The paths the "CDN" was asked for. */
const requested: string[] = [];
let esign: EsignServices;
let browsers: EngineBrowsers;

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'esign-cdn-sri-'));
  const build = await run(process.execPath, ['scripts/build-cdn.mjs', '--outdir', folder], { cwd: ROOT, timeout: 300_000 });
  printed = new RegExp(`^integrity of .*/${BUNDLE.replace(/\./g, '\\.')}: (sha384-[A-Za-z0-9+/]+=*) `, 'm').exec(build.stdout)?.[1] ?? '';
  assert.ok(printed, `the build prints the integrity: ${build.stdout}`);

  const blocks = sectionBlocks('README.md', '## Install');
  snippet = blocks.find((b) => b.lang === 'html' && b.text.includes('integrity='))?.text.trim() ?? '';
  commands = (blocks.find((b) => b.lang === 'sh' && b.text.includes('openssl'))?.text ?? '').trim().split('\n');
  assert.ok(snippet && commands.length === 2, "the README's Install section has the pinned snippet and the two commands");

  // a CDN on another origin than the page, answering with CORS as jsDelivr does
  cdn = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requested.push(path);
    const file = join(folder, path);
    if (!/^\/[\w.-]+$/.test(path) || !existsSync(file)) {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end();
      return;
    }
    const type = path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'application/json';
    res.writeHead(200, { 'Content-Type': type, 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
  cdnOrigin = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;

  esign = await startEsignServices();
  browsers = await openEngines(esign.baseUrl);
});

after(async () => {
  await browsers?.close();
  await esign?.close();
  if (cdn) await new Promise((resolve) => cdn.close(resolve));
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const sha384 = (bytes: Buffer): string => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
/** A README line or snippet with the published CDN's address swapped for this test's. */
const local = (text: string): string => text.replaceAll(PUBLISHED, `${cdnOrigin}/`);

/** The README's snippet with this build's value, on a page whose only allowed script is that file. */
function pinnedPage(integrity: string): string {
  const head = local(snippet).replace(PLACEHOLDER, integrity);
  const policy = `default-src 'self'; script-src ${cdnOrigin}/${BUNDLE}; style-src 'self' 'unsafe-inline'; ${esign.cspHeader}`;
  return esign.servePage(
    `<h1>Contracts</h1>
<esign-connect id="esign" ${esign.connectAttributes}></esign-connect>
<esign-uploader id="up" connect="esign"></esign-uploader>
<esign-signing-frame connect="esign" uploader="up" auto></esign-signing-frame>
<esign-contract-list connect="esign" auto></esign-contract-list>`,
    { elements: false, head, csp: policy },
  );
}

describe('the integrity of the one-file CDN build', () => {
  it('the build prints it, integrity.json holds it, and the file has no chunk to load', () => {
    const bytes = readFileSync(join(folder, BUNDLE));
    assert.equal(printed, sha384(bytes), 'the printed value is the sha384 of the file');
    assert.deepEqual(JSON.parse(readFileSync(join(folder, 'integrity.json'), 'utf8')), { [BUNDLE]: printed });
    assert.ok(!/\bimport\(/.test(bytes.toString()), 'no dynamic import() left in the one-file build');
    assert.ok(readdirSync(join(folder, 'chunks')).length > 5, 'the split build beside it still has its chunks');
  });

  it("the README's snippet pins that file at the package's exact version, with crossorigin; its value is the placeholder or this one", () => {
    const src = /\bsrc="([^"]+)"/.exec(snippet)?.[1];
    const integrity = /\bintegrity="([^"]+)"/.exec(snippet)?.[1];
    assert.equal(src, `${PUBLISHED}${BUNDLE}`, `the snippet loads ${BUNDLE} of esign-elements@${VERSION}`);
    assert.match(snippet, /^<script type="module" /);
    assert.match(snippet, /\bcrossorigin="anonymous"/);
    assert.ok(integrity === PLACEHOLDER || integrity === printed, `integrity="${integrity}": "${PLACEHOLDER}" or the build's ${printed}`);
  });

  it("the README's two commands, against this build on a CDN, give the value the build printed", async () => {
    const [manifest, computed] = commands.map(local);
    assert.ok(manifest?.includes(`${cdnOrigin}/integrity.json`) && computed?.includes(`${cdnOrigin}/${BUNDLE}`), commands.join('\n'));
    const read = await run('sh', ['-c', manifest], { timeout: 30_000 });
    assert.equal((JSON.parse(read.stdout) as Record<string, string>)[BUNDLE], printed);
    const hashed = await run('sh', ['-c', computed!], { timeout: 30_000 });
    assert.equal(`sha384-${hashed.stdout.trim()}`, printed);
  });

  it('the packed tarball (ESIGN_PACK_DIR) carries the file and its integrity.json, and they agree', async (t) => {
    const packs = process.env['ESIGN_PACK_DIR'];
    const tarball = packs && existsSync(packs) ? readdirSync(packs).find((f) => /^esign-elements-\d.*\.tgz$/.test(f)) : undefined;
    if (!tarball) return t.skip('no ESIGN_PACK_DIR with the packed esign-elements (npm run pack; `npm run test:e2e` sets it)');
    const extract = (path: string) => run('tar', ['-xOzf', join(packs!, tarball), `package/dist/cdn/${path}`], { encoding: 'buffer', maxBuffer: 1 << 24 });
    const manifest = JSON.parse((await extract('integrity.json')).stdout.toString()) as Record<string, string>;
    assert.equal(manifest[BUNDLE], sha384((await extract(BUNDLE)).stdout));
    assert.equal(manifest[BUNDLE], printed, 'the same sources give the same file: the tarball was built from this checkout');
  });
});

/** A person drops one PDF on the uploader's drop zone (a real DataTransfer with a File, as the browser makes it). */
const DROP_PDF = `
  const zone = document.querySelector('esign-uploader').shadowRoot.querySelector('[part~="drop-zone"]');
  const data = new DataTransfer();
  data.items.add(new File(['%PDF-1.4\\n% a small test document\\n%%EOF\\n'], arguments[0], { type: 'application/pdf' }));
  for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { bubbles: true, composed: true, cancelable: true, dataTransfer: data }));
  return true;`;

describe("the README's pinned snippet under a strict CSP, in every engine", () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: one script, pinned; connect, drop a PDF, send it, see it in the list`, async () => {
      esign.reset();
      requested.length = 0;
      const page = await browsers.newPage(engine);
      try {
        await page.goto(pinnedPage(printed));
        await page.clickButton('Connect e-signature account');
        await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
        await page.waitForText('Connected as Alice Tan', 20_000);
        await page.run(DROP_PDF, 'pinned.pdf');
        const subject = `Pinned kit (${engine})`;
        await page.person.frameText('/compose', 'pinned.pdf', 20_000);
        await page.person.frameSend({ subject, signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] }, 20_000);
        await page.waitForText('Envelope sent', 20_000);
        await page.person.frameText('/contracts', subject, 20_000);
        // everything it ran came in the one pinned file (a chunk would also be refused by the policy)
        assert.deepEqual([...new Set(requested)], [`/${BUNDLE}`]);
      } finally {
        await page.close();
      }
    });

    it(`${engine}: a value that is not the file's: the file is fetched and never runs`, async () => {
      requested.length = 0;
      const wrong = `sha384-${createHash('sha384').update('another file').digest('base64')}`;
      const page = await browsers.newPage(engine);
      try {
        // the load event waits for the module script to run or fail
        await page.goto(pinnedPage(wrong));
        const deadline = Date.now() + 10_000;
        while ((await page.run<string>('return document.readyState')) !== 'complete') {
          assert.ok(Date.now() < deadline, 'the page finishes loading');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.deepEqual(requested, [`/${BUNDLE}`], 'the browser asked for the file');
        assert.equal(await page.run<boolean>("return customElements.get('esign-connect') === undefined"), true, 'the tags are not defined');
      } finally {
        await page.close();
      }
    });
  }
});
