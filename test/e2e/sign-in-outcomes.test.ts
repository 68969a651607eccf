/**
 * What a page hears from one sign-in, in Chromium, Firefox and WebKit, as a person meets it:
 *
 * - a person connects in the consent popup with the token proxy on the page's own origin (its `--static` folder, as
 *   the README's page is served) and on another origin of the same site (the test kit's site and proxy); the page
 *   counts the events: exactly one `esign-connected`, no `esign-error`;
 * - the same with a consent page that sends `Cross-Origin-Opener-Policy: same-origin` (it severs the popup from the
 *   page): the page says the sign-in continues in its own window, then connects, once;
 * - a page the proxy does not serve: the popup stays on a page that names the setting to change, the element leaves
 *   "Connecting…" with `origin_not_allowed`, and the proxy's log line names the reason.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PEOPLE, SPACES, startEsignServices, type EsignServices } from '@esign-elements/testing';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';
import { cdnBuild } from '../helpers/built.js';
import { type EngineBrowsers, type EnginePage, openEngines } from '../helpers/engine-page.js';
import { selectedEngines } from '../helpers/engines.js';

/** The page's own record of the events its <esign-connect> fired (a page that reports `esign-error` does this). */
const COUNT_EVENTS = `<script>window.heard = [];
for (const type of ['esign-connected', 'esign-error', 'esign-disconnected'])
  document.addEventListener(type, (event) => heard.push(event.detail && event.detail.error ? type + ':' + event.detail.error.code : type));
</script>`;

let esign: EsignServices;
let folder: string;
/** The README's setup: the proxy serves the page's folder and its routes under /api/esign on one origin. */
let sameOrigin: ServedTokenProxy;
let sameOriginUrl: string;
let otherOriginUrl: string;
let refusedUrl: string;
const logLines: string[] = [];
/** One browser per engine for the file; each test's page in a fresh context. */
let browsers: EngineBrowsers;

before(async () => {
  await cdnBuild();
  esign = await startEsignServices();
  folder = mkdtempSync(join(tmpdir(), 'esign-outcomes-'));
  cpSync('dist/cdn', join(folder, 'cdn'), { recursive: true });
  writeFileSync(
    join(folder, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contracts</title><script type="module" src="/cdn/esign-elements.min.js"></script></head>
<body>${COUNT_EVENTS}<esign-connect id="esign" client-id="${esign.clientId}" base-url="${esign.baseUrl}" token-endpoint="/api/esign/token"></esign-connect></body></html>`,
  );
  sameOrigin = await serveTokenProxy({
    port: 0,
    host: '127.0.0.1',
    clientId: esign.clientId,
    clientSecret: esign.clientSecret,
    baseUrl: esign.baseUrl,
    basePath: '/api/esign',
    staticDir: folder,
    allowedOrigins: [],
    cookieKeys: [generateCookieKey()],
    rateLimit: false,
    logLevel: 'info',
    logWrite: (line) => void logLines.push(line),
  });
  esign.emulator.registerRedirectUri(esign.clientId, sameOrigin.callbackUrl!);
  sameOriginUrl = `${new URL(sameOrigin.callbackUrl!).origin}/`;
  otherOriginUrl = esign.servePage(`${COUNT_EVENTS}<esign-connect id="esign" ${esign.connectAttributes}></esign-connect>`);
  // the kit's site is another origin than the README proxy, which allows none but its own
  refusedUrl = esign.servePage(
    `${COUNT_EVENTS}<esign-connect id="esign" client-id="${esign.clientId}" base-url="${esign.baseUrl}" token-endpoint="${sameOriginUrl}api/esign/token"></esign-connect>`,
  );
  browsers = await openEngines(esign.baseUrl);
});

after(async () => {
  await browsers?.close();
  await sameOrigin?.close();
  await esign?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const heard = (page: EnginePage): Promise<string[]> => page.run<string[]>('return window.heard');

async function connectAndCount(page: EnginePage, url: string): Promise<string[]> {
  await page.goto(url);
  await page.clickButton('Connect e-signature account');
  await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
  await page.waitForText('Connected as Alice Tan', 20_000);
  // a late copy of the outcome comes after the popup's close, within the page's 1.5 s grace after it: the page is
  // watched from that close for the grace and a margin, and a second event fails at once
  await page.person.popupsClosed(15_000);
  for (const quietUntil = Date.now() + LATE_OUTCOME_WINDOW_MS; Date.now() < quietUntil;) {
    const events = await heard(page);
    if (events.length > 1) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return heard(page);
}

/**
 * The same with a consent page that sends `Cross-Origin-Opener-Policy: same-origin` (issue 46): the popup is severed
 * from the page as the consent page loads, the page says the sign-in continues there, and connects when the person
 * agrees (the done page's BroadcastChannel on the proxy's own origin, or the proxy's status route from another origin).
 */
async function connectSeveredAndCount(page: EnginePage, url: string): Promise<string[]> {
  await consentOpenerPolicy('same-origin');
  try {
    await page.goto(url);
    await page.clickButton('Connect e-signature account');
    await page.waitForText('The sign-in continues in its own window', 20_000);
    await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
    await page.waitForText('Connected as Alice Tan', 20_000);
    // the severed popup still closes itself after the done page (no opener to tell, so after 1.5 s)
    await page.person.popupsClosed(15_000);
    // a second outcome (the channel and the status route both answer) would come within the page's next question
    for (const quietUntil = Date.now() + LATE_OUTCOME_WINDOW_MS; Date.now() < quietUntil;) {
      const events = await heard(page);
      if (events.length > 1) return events;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return heard(page);
  } finally {
    await consentOpenerPolicy(null);
  }
}

async function consentOpenerPolicy(openerPolicy: 'same-origin' | null): Promise<void> {
  const res = await fetch(`${esign.baseUrl}/__emulator/consent-page`, { method: 'POST', body: JSON.stringify({ openerPolicy }) });
  assert.equal(res.status, 200, await res.text());
}

/** How long after the popup closed a late copy of the outcome could still arrive: the page's 1.5 s grace and a margin. */
const LATE_OUTCOME_WINDOW_MS = 2_500;

/** The proxy's JSON log lines of its login route's refusals. */
const refusals = (): Array<Record<string, unknown>> =>
  logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry['route'] === '/login' && entry['status'] === 403);

describe('one outcome per sign-in, and a refused sign-in reaches the page', () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: the proxy on the page's own origin (--static): one esign-connected, no esign-error`, async () => {
      const page = await browsers.newPage(engine);
      try {
        assert.deepEqual(await connectAndCount(page, sameOriginUrl), ['esign-connected']);
      } finally {
        await page.close();
      }
    });

    it(`${engine}: the proxy on another origin of the page's site: one esign-connected, no esign-error`, async () => {
      const page = await browsers.newPage(engine);
      try {
        assert.deepEqual(await connectAndCount(page, otherOriginUrl), ['esign-connected']);
      } finally {
        await page.close();
      }
    });

    for (const [where, url] of [
      ["the proxy on the page's own origin", () => sameOriginUrl],
      ["the proxy on another origin of the page's site", () => otherOriginUrl],
    ] as const) {
      it(`${engine}: a consent page that sends Cross-Origin-Opener-Policy, ${where}: the sign-in continues, one esign-connected`, async () => {
        const page = await browsers.newPage(engine);
        try {
          assert.deepEqual(await connectSeveredAndCount(page, url()), ['esign-connected']);
        } finally {
          await page.close();
        }
      });
    }

    it(`${engine}: an origin the proxy does not allow: the popup names --allowed-origin, the page shows origin_not_allowed`, async () => {
      const page = await browsers.newPage(engine);
      const logged = refusals().length;
      try {
        await page.goto(refusedUrl);
        await page.clickButton('Connect e-signature account');
        const popup = await page.person.windowText(`${sameOriginUrl}api/esign/login`, '--allowed-origin', 15_000);
        assert.match(popup, new RegExp(`does not accept sign-ins from ${esign.siteOrigin}`));
        assert.ok(popup.includes(`--allowed-origin ${esign.siteOrigin}`), popup);
        // the page does not wait on "Connecting…": it says why, and what to set
        await page.waitForText('The token proxy does not accept sign-ins from this page', 10_000);
        await page.waitForText(`--allowed-origin ${esign.siteOrigin}`, 1_000);
        assert.deepEqual((await heard(page)).slice(0, 1), ['esign-error:origin_not_allowed']);
        const log = refusals().slice(logged);
        assert.equal(log.length >= 1, true, 'the refusal is logged');
        assert.equal(log[0]!['error'], 'origin_not_allowed');
      } finally {
        await page.close();
      }
    });

    it(`${engine}: the README's page opened at 127.0.0.1: the popup names --public-origin, the page says the same`, async () => {
      const page = await browsers.newPage(engine);
      const logged = refusals().length;
      const at = sameOriginUrl.replace('//localhost:', '//127.0.0.1:');
      try {
        await page.goto(at);
        await page.clickButton('Connect e-signature account');
        const popup = await page.person.windowText(`${at}api/esign/login`, '--public-origin', 15_000);
        assert.ok(popup.includes(`--public-origin ${at.slice(0, -1)}`), popup);
        await page.waitForText('The token proxy does not accept sign-ins from this page', 10_000);
        await page.waitForText(`--public-origin ${at.slice(0, -1)}`, 1_000);
        assert.deepEqual(await heard(page), ['esign-error:origin_not_allowed']);
        assert.equal(refusals().slice(logged)[0]?.['error'], 'public_origin_mismatch');
      } finally {
        await page.close();
      }
    });
  }
});
