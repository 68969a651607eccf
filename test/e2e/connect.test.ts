/**
 * End to end, as a person: a static page that loads the CDN file and uses nothing but the tags and their attributes,
 * the real emulator and the real token proxy on other origins, Chromium driven by playwright-core.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { cdnBuild } from '../helpers/built.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { PEOPLE, startEsignServices, type EsignServices } from '@esign-elements/testing';

const SECRET = 'e2e-secret-must-never-reach-the-browser';
let services: EsignServices;
let browser: Browser;
let site: Server;
let siteOrigin: string;
/** The CDN files the page asked for. */
const cdnRequests: string[] = [];
/** While set, the CDN files matching `pattern` are answered only once `released` settles (a slow network for them). */
let holdBack: { pattern: RegExp; released: Promise<void>; held: string[] } | undefined;
/** While set, the next CDN file matching it is refused with a 503 (a deploy replaced it, a flaky network), once. */
let refuseNext: RegExp | undefined;

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Integrator page</title>
<script type="module" src="/cdn/esign-elements.min.js"></script></head><body>${body}</body></html>`;
}

before(async () => {
  // the CDN build exactly as `npm run build:cdn` makes it (an entry and the chunks it imports relative to its own
  // URL), served as a folder, as a CDN serves it: what a static page would load
  await cdnBuild();
  let markup = '';
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (/^\/cdn\/(chunks\/)?[\w.-]+\.js$/.test(path)) {
      let script: string;
      try {
        script = readFileSync(`dist${path}`, 'utf8');
      } catch {
        res.writeHead(404).end();
        return;
      }
      cdnRequests.push(path);
      if (refuseNext?.test(path)) {
        refuseNext = undefined;
        res.writeHead(503).end();
        return;
      }
      const answer = (): void => {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        res.end(script);
      };
      if (holdBack?.pattern.test(path)) {
        holdBack.held.push(path);
        void holdBack.released.then(answer);
      } else {
        answer();
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(markup));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // localhost here, 127.0.0.1 for the emulator and proxy: every call is cross-origin
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  services = await startEsignServices({ clientId: 'e2e-app', clientSecret: SECRET, appName: 'E2E integrator', siteOrigins: [siteOrigin] });
  const { emulator, tokenEndpoint } = services;
  markup = `<h1>Contracts</h1>
<esign-connect id="esign" client-id="e2e-app" base-url="${emulator.baseUrl}" token-endpoint="${tokenEndpoint}"></esign-connect>`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('<esign-connect> on a plain page, as a person uses it', () => {
  it('connects through the consent popup, survives a reload, and disconnects', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const seen: string[] = [];
    tab.on('console', (msg) => seen.push(msg.text()));
    tab.on('pageerror', (error) => seen.push(`pageerror ${error.message}`));
    tab.on('request', (request) => seen.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`));
    tab.on('response', (response) => {
      // the token proxy's answers (not a script whose file name holds "token")
      if (new URL(response.url()).pathname.endsWith('/token'))
        void response.text().then(
          (text) => seen.push(`response ${response.url()} ${text}`),
          () => undefined,
        );
    });
    await tab.goto(siteOrigin);

    const connectButton = tab.getByRole('button', { name: 'Connect e-signature account' });
    await connectButton.waitFor();
    // what runs only after a person acts is not loaded with the page: the sign-in, other languages, the opt-in mode
    const lazy = (pattern: RegExp) => cdnRequests.filter((path) => pattern.test(path));
    assert.deepEqual(lazy(/\/(login-flow|login|zh-CN|ms|browser-tokens)-/), [], `first render loads no after-action chunk: ${cdnRequests.join(' ')}`);
    await signInWithPopup(tab);
    // this tab's first Connect loads it; the popup never comes back to this page (the proxy's callback gets the code)
    assert.equal(lazy(/\/login-flow-/).length, 1, `the sign-in loads with the first Connect: ${cdnRequests.join(' ')}`);
    assert.deepEqual(lazy(/\/login-(?!flow)/), [], `the browser-held sign-in stays unloaded: ${cdnRequests.join(' ')}`);

    await tab.getByText('Connected as Alice Tan').waitFor();
    assert.equal(new URL(tab.url()).search, '');
    assert.ok(await tab.getByRole('button', { name: 'Disconnect' }).isVisible(), 'a Disconnect button is shown');

    // a returning person sees who is connected from what the page kept, before the session manager's code has
    // arrived (held back here as on a slow network); once it has, the page goes on as before
    let release!: () => void;
    holdBack = { pattern: /\/session-manager-/, released: new Promise<void>((resolve) => (release = resolve)), held: [] };
    await tab.reload();
    await tab.getByText('Connected as Alice Tan').waitFor();
    assert.equal(holdBack.held.length, 1, `the session manager's code was asked for and is still held back: ${cdnRequests.join(' ')}`);
    release();
    holdBack = undefined;
    const token = await tab.evaluate(() => (document.querySelector('esign-connect') as HTMLElement & { getAccessToken(): Promise<string> }).getAccessToken());
    assert.ok(token.length > 0, 'the restored session gives an access token once the manager is there');
    await tab.getByText('Connected as Alice Tan').waitFor();
    // a second tab of the site: connected through the proxy's cookie, no login, no popup
    const second = await context.newPage();
    await second.goto(siteOrigin);
    await second.getByText('Connected as Alice Tan').waitFor();
    await second.close();
    // the refresh token never reached the page: not in a response body, not in what the page stored
    assert.ok(!seen.some((line) => /refresh_token=|"refresh_token"/.test(line)), 'no request from the page carries a refresh token');
    const cookies = await context.cookies();
    const sessionCookie = cookies.find((cookie) => cookie.name.startsWith('esign_') && !cookie.name.startsWith('esign_l_'));
    assert.ok(!cookies.some((cookie) => cookie.name.startsWith('esign_l_')), 'the pre-login cookie is gone');
    assert.ok(sessionCookie, 'the proxy set its session cookie');
    assert.equal(sessionCookie.httpOnly, true, 'HttpOnly: no page script can read it');
    assert.equal(sessionCookie.sameSite, 'Strict');

    // the laptop leaves the Wi-Fi (the browser's real offline mode) and comes back: told, and still connected
    await context.setOffline(true);
    await tab.getByText('You are offline.').waitFor();
    await context.setOffline(false);
    await tab.getByText('You are offline.').waitFor({ state: 'detached' });
    await tab.getByText('Connected as Alice Tan').waitFor();

    await tab.getByRole('button', { name: 'Disconnect' }).click();
    await connectButton.waitFor();

    // the secret never reached the browser, in any request or log line
    assert.ok(seen.length > 0, 'requests were recorded');
    // one <script> tag loaded the entry and the chunks it needs; the opt-in browser-held session never loaded
    assert.ok(cdnRequests.includes('/cdn/esign-elements.min.js'), cdnRequests.join(' '));
    assert.ok(!cdnRequests.some((path) => path.includes('browser-tokens')), `the browser-held chunk stays unloaded: ${cdnRequests.join(' ')}`);
    assert.ok(!seen.some((line) => line.includes(SECRET)), 'no request or log line carries the client_secret');
    await context.close();
  });

  it('says so when part of the library cannot be loaded, and Try again loads it and connects', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    refuseNext = /\/session-manager-/;
    await tab.goto(siteOrigin);
    // the error as shown (it is said in the element's assertive live region)
    const alert = tab.locator('esign-connect [part~="error"]');
    await alert.waitFor();
    assert.equal(refuseNext, undefined, `the session manager's code was asked for and refused: ${cdnRequests.join(' ')}`);
    assert.match((await alert.textContent()) ?? '', /Could not reach the sign-in service/);
    await signInWithPopup(tab, undefined, { button: 'Try again' });
    await tab.getByText('Connected as Alice Tan').waitFor();
    await tab.getByRole('button', { name: 'Disconnect' }).click();
    await tab.getByRole('button', { name: 'Connect e-signature account' }).waitFor();
    await context.close();
  });

  it('tells the user when they decline, and lets them try again', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(siteOrigin);
    await signInWithPopup(tab, PEOPLE.bob, { decision: 'deny' });
    // the error as shown (it is said in the element's assertive live region)
    const alert = tab.locator('esign-connect [part~="error"]');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /declined|denied/i);
    assert.ok(await tab.getByRole('button', { name: 'Try again' }).isVisible(), 'a Try again button is shown');
    await context.close();
  });
});
