/**
 * End to end against a second, standards OAuth 2.0 server (panva's oidc-provider with its own default
 * routes), not our emulator, in both session modes: by default the token proxy runs the sign-in (its login route sends
 * the popup to the provider's /auth, the provider sends it back to the proxy's callback, RFC 9207 `iss` checked
 * there); in the browser-held mode `<esign-connect authorization-endpoint=…>` is the PKCE client and the page the
 * redirect URI. Connect as a person through the provider's login and consent pages, a forced refresh (rotation at the
 * provider), a reload without login, Disconnect (revocation at the provider). What the provider itself says is checked
 * by RFC 7662 introspection and its own events.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { cdnBuild } from '../helpers/built.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { API_RESOURCE, API_SCOPES, startStandardsServer, type StandardsServer } from '@esign-elements/test-support/oidc-provider';
import { generateCookieKey, type TokenProxyOptions } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';
import { freePort } from '@esign-elements/test-support/ports';

const CLIENT_ID = 'standards-app';
const SECRET = 'oidc-provider-secret-must-never-reach-the-browser';
let server: StandardsServer;
let browser: Browser;
let site: Server;
let siteOrigin: string;
let redirectUri: string;
let markup = '';
const proxies: ServedTokenProxy[] = [];
/** The proxies' ports, known before the provider starts: their callbacks are registered redirect URIs there. */
const proxyPorts: number[] = [];

before(async () => {
  // the CDN build (an entry and the chunks it imports relative to its own URL), served as a folder as a CDN
  // does; read once, so another build of dist/ meanwhile does not change what this page loads
  await cdnBuild();
  const scripts = new Map<string, string>();
  for (const folder of ['cdn', 'cdn/chunks']) {
    for (const name of existsSync(`dist/${folder}`) ? readdirSync(`dist/${folder}`) : []) {
      if (name.endsWith('.js')) scripts.set(`/${folder}/${name}`, readFileSync(`dist/${folder}/${name}`, 'utf8'));
    }
  }
  site = createServer((req, res) => {
    const script = scripts.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Integrator page</title>
<script type="module" src="/cdn/esign-elements.min.js"></script></head><body>${markup}</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  redirectUri = `${siteOrigin}/`;
  for (let i = 0; i < 4; i++) proxyPorts.push(await freePort());
  const callbacks = proxyPorts.map((port) => `http://localhost:${port}/callback`);
  server = await startStandardsServer({ clientId: CLIENT_ID, clientSecret: SECRET, redirectUris: [redirectUri, ...callbacks] });
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  for (const proxy of proxies) await proxy.close();
  await server?.close();
  await new Promise((resolve) => site?.close(resolve));
});

type Mode = 'proxy' | 'browser';

/** The token proxy in front of the provider, and the page's markup pointing at it. */
async function pointAtProxy(endpoints: Partial<TokenProxyOptions>, mode: Mode = 'proxy'): Promise<void> {
  const proxy = await serveTokenProxy({
    port: proxyPorts[proxies.length]!,
    host: '127.0.0.1',
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    baseUrl: server.issuer,
    ...endpoints,
    allowedOrigins: [siteOrigin],
    redirectUris: [redirectUri],
    cookieKeys: [generateCookieKey()],
    browserHeldRefreshTokens: mode === 'browser',
    rateLimit: false,
  });
  proxies.push(proxy);
  // the proxy on the page's own site (another port of localhost): its SameSite=Strict cookie comes back
  const proxyUrl = proxy.url.replace('127.0.0.1', 'localhost');
  markup = `<h1>Contracts</h1>
<esign-connect id="esign" client-id="${CLIENT_ID}" scope="${API_SCOPES}" base-url="${server.issuer}"
  ${mode === 'browser' ? `refresh-tokens="browser" storage="memory" authorization-endpoint="${server.issuer}/auth"` : ''} token-endpoint="${proxyUrl}/token"></esign-connect>`;
  server.events.clear();
}

function accessToken(tab: Page, forceRefresh = false): Promise<string> {
  return tab.evaluate(
    (force) =>
      (document.getElementById('esign') as HTMLElement & { getAccessToken(o: { forceRefresh: boolean }): Promise<string> }).getAccessToken({
        forceRefresh: force,
      }),
    forceRefresh,
  );
}

describe('<esign-connect> and the token proxy against oidc-provider (a standards OAuth 2.0 server)', () => {
  it('default mode: the proxy runs the sign-in through its login and consent pages, rotates on refresh, survives a reload, and revokes on Disconnect', async () => {
    await pointAtProxy({
      tokenEndpoint: `${server.issuer}/token`,
      revocationEndpoint: `${server.issuer}/token/revocation`,
      authorizationEndpoint: `${server.issuer}/auth`,
    });
    await wholeFlow('proxy');
  });

  it('the same with the proxy given only the issuer (RFC 8414 metadata: the authorization endpoint, and iss always required)', async () => {
    await pointAtProxy({ issuer: server.issuer });
    await wholeFlow('proxy');
  });

  it('browser-held mode: the page is the PKCE client and the redirect URI, the proxy adds the secret', async () => {
    await pointAtProxy({ tokenEndpoint: `${server.issuer}/token`, revocationEndpoint: `${server.issuer}/token/revocation` }, 'browser');
    await wholeFlow('browser');
  });

  it('browser-held mode with the proxy given only the issuer (RFC 9207 metadata: iss always sent): the page passes its checked iss on', async () => {
    // the provider's metadata says every authorization response carries iss: the proxy's check of the code exchange
    // requires it, and the page sends the one it checked (issue 35: this was a 502 "could not be reached")
    const metadata = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
    await pointAtProxy({ issuer: server.issuer }, 'browser');
    await wholeFlow('browser');
  });
});

async function wholeFlow(mode: Mode): Promise<void> {
  {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const seen: string[] = [];
    tab.on('pageerror', (error) => seen.push(`pageerror ${error.message}`));
    tab.on('request', (request) => seen.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`));
    context.on('response', (response) => {
      // token answers (the proxy's or the server's), not a script whose file name holds "token"
      if (new URL(response.url()).pathname.endsWith('/token'))
        void response.text().then(
          (text) => seen.push(`response ${response.url()} ${text}`),
          () => undefined,
        );
    });
    await tab.goto(siteOrigin);

    const connectButton = tab.getByRole('button', { name: 'Connect e-signature account' });
    const [popup] = await Promise.all([tab.waitForEvent('popup'), connectButton.click()]);
    popup.on('request', (request) => seen.push(`popup ${request.method()} ${request.url()}`));
    // the done page's fragment carries the outcome (no secret): what a failure report needs
    popup.on('framenavigated', (frame) => frame === popup.mainFrame() && frame.url().includes('/login/done') && seen.push(`popup at ${frame.url()}`));
    // the provider's own authorization endpoint and its development login page (any login, any password)
    await popup.waitForURL(new RegExp(`^${server.issuer}/interaction/`));
    await popup.getByPlaceholder('Enter any login').fill('alice@example.com');
    await popup.getByPlaceholder('and password').fill('alice-password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    // its consent page, for the scopes of the API resource
    await popup.getByRole('button', { name: 'Continue' }).waitFor();
    assert.match((await popup.content()) ?? '', /envelope:create/, 'the consent page lists the requested scope');
    await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Continue' }).click()]);

    try {
      await tab.getByText('Connected', { exact: true }).waitFor({ timeout: 15_000 });
    } catch (error) {
      // codes and tokens are not printed
      const redacted = seen.map((line) => line.replace(/(code|token|refresh_token|access_token)([=":]+)[^&"\s,]+/g, '$1$2…'));
      throw new Error(`not connected: ${await tab.locator('esign-connect').innerText()}\n${redacted.join('\n')}`, { cause: error });
    }
    assert.equal(await tab.locator('esign-connect').getAttribute('status'), 'connected');
    // the provider named itself in the answer (RFC 9207 iss) and the callback accepted it: the proxy's own callback by
    // default (the page never saw the code), the page in the browser-held mode
    const callbackBase = mode === 'proxy' ? proxies.at(-1)!.callbackUrl! : `${siteOrigin}/`;
    const callback = seen.find((line) => line.startsWith(`popup GET ${callbackBase}?`));
    assert.ok(callback, `the popup came back to ${callbackBase}`);
    assert.equal(new URL(callback.split(' ')[2]!).searchParams.get('iss'), server.issuer);
    if (mode === 'proxy') assert.ok(!seen.some((line) => line.startsWith(`popup GET ${siteOrigin}/?`)), 'no code came to the page');
    assert.ok(await tab.getByRole('button', { name: 'Disconnect' }).isVisible(), 'a Disconnect button is shown');
    assert.equal(server.events.get('authorization_code.consumed'), 1, 'one code exchange at the provider');
    assert.equal(server.events.get('refresh_token.saved'), 1, `the provider issued a refresh token (kept by the ${mode === 'proxy' ? 'proxy' : 'page'})`);

    // the token the page got is the provider's own, for the API resource, with the scopes consented
    const first = await accessToken(tab);
    const info = await server.introspect(first, 'access_token');
    assert.equal(info.active, true);
    assert.equal(info.client_id, CLIENT_ID);
    assert.equal(info.aud, API_RESOURCE);
    assert.equal(info.scope, API_SCOPES);

    // forced refresh: a new access token, and the provider consumed the old refresh token and issued a new one
    const second = await accessToken(tab, true);
    assert.notEqual(second, first, 'a new access token');
    assert.equal((await server.introspect(second, 'access_token')).active, true);
    assert.equal(server.events.get('refresh_token.consumed'), 1, 'the old refresh token was consumed (rotation)');
    assert.equal(server.events.get('refresh_token.saved'), 2, 'a new refresh token was issued');

    if (mode === 'proxy') {
      // a reload: connected from the proxy's cookie, no login page, no new grant
      await tab.reload();
      await tab.getByText('Connected', { exact: true }).waitFor();
      assert.equal(await accessToken(tab), second, 'the proxy answers a reload with the cached access token');
      assert.equal(server.events.get('authorization_code.consumed'), 1, 'no second code exchange');
      assert.equal(server.events.get('refresh_token.consumed'), 1, 'no rotation on a reload');
    }

    // Disconnect: revoked at the provider (RFC 7009 revokes the grant: the access token dies with it)
    await tab.getByRole('button', { name: 'Disconnect' }).click();
    await connectButton.waitFor();
    assert.equal(await tab.locator('esign-connect').getAttribute('status'), 'idle');
    // the page shows it is disconnected at once; the revocation reaches the provider a moment later
    for (const deadline = Date.now() + 10_000; server.events.get('grant.revoked') === undefined && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(server.events.get('grant.revoked'), 1, 'the provider revoked the grant');
    assert.deepEqual(await server.introspect(second, 'access_token'), { active: false });
    assert.ok(!(await context.cookies()).some((cookie) => /^(__Host-)?esign_/.test(cookie.name)), 'no session or pre-login cookie is left');

    // a reload after Disconnect stays disconnected
    await tab.reload();
    await connectButton.waitFor();

    assert.ok(!seen.some((line) => line.includes(SECRET)), 'the client_secret never reached the browser');
    if (mode === 'proxy') assert.ok(!seen.some((line) => /refresh_token=|"refresh_token"/.test(line)), 'no refresh token reached the page');
    assert.ok(!seen.some((line) => line.startsWith('pageerror')), seen.filter((line) => line.startsWith('pageerror')).join('\n'));
    await context.close();
  }
}
