import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { alice, api, authUrl, b64, defaultAuthParams, exchange, pkce, upload } from '@esign-elements/test-support/emulator-api';

let emu: RunningEmulator;
let browser: Browser;
let hostServer: Server;
let hostOrigin: string;
let framedUrl = '';

before(async () => {
  // a real loopback page server on another origin (localhost vs the emulator's 127.0.0.1): the OAuth callback
  // and a host page framing an embedded Url; a real socket, so Chromium's local-network checks see a local page
  hostServer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (req.url?.startsWith('/host.html'))
      res.end(`<!doctype html><title>host</title><script>window.messages=[];addEventListener('message',e=>{if(e.data&&e.data.source==='esign')window.messages.push(e.data)})</script>
<iframe id="f" src="${framedUrl}" style="width:100%;height:900px" title="esign"></iframe>`);
    else res.end('<!doctype html><title>callback</title><h1>callback</h1>');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  hostOrigin = `http://localhost:${(hostServer.address() as AddressInfo).port}`;
  emu = await createEmulator({
    port: 0,
    filePort: 0,
    seed: {
      apps: [
        {
          clientId: 'e2e-client',
          clientSecret: 'e2e-secret',
          name: 'E2E app',
          scopes: ['envelope:create', 'envelope:read'],
          redirectUris: [`${hostOrigin}/callback`],
        },
      ],
    },
  });
  browser = await chromium.launch(chromiumLaunchOptions());
});
after(async () => {
  await browser?.close();
  await emu?.close();
  await new Promise((resolve) => hostServer?.close(resolve));
});

/** Waits (bounded) until the host page heard the embedded page's `type` message; on timeout, says what it heard. */
async function heardMessage(page: import('playwright-core').Page, type: string): Promise<void> {
  const heard = (): Promise<string[]> => page.evaluate(() => (window as unknown as { messages: Array<{ type: string }> }).messages.map((m) => m.type));
  await page
    .waitForFunction((wanted) => (window as unknown as { messages: Array<{ type: string }> }).messages.some((m) => m.type === wanted), type, {
      timeout: 15_000,
    })
    .catch(async (error: unknown) => {
      throw new Error(`the host page heard no "${type}" message within 15 s; it heard: ${(await heard().catch(() => [])).join(', ') || 'nothing'}`, {
        cause: error,
      });
    });
}

describe('in Chromium', () => {
  it('a person logs in as Alice, chooses a Space, agrees; the code exchanges at the token endpoint', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const redirect = `${hostOrigin}/callback`;
    const { verifier, challenge } = pkce();
    const params = defaultAuthParams(challenge, { client_id: 'e2e-client', redirect_uri: redirect });
    await page.goto(authUrl(emu, params));
    assert.ok(page.url().startsWith(`${emu.baseUrl}/consent?request=`));
    assert.ok(await page.getByText('Development only').isVisible());

    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    assert.ok(await page.getByRole('alert').getByText('Wrong email or password').isVisible());

    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('radio', { name: 'Alice Personal' }).check();
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirect)), page.getByRole('button', { name: 'Agree' }).click()]);

    const cb = new URL(page.url());
    assert.equal(cb.searchParams.get('state'), params.state);
    const code = cb.searchParams.get('code');
    assert.ok(code);
    const creds = { client_id: 'e2e-client', client_secret: 'e2e-secret', redirect_uri: redirect };
    const t = await exchange(emu, code, verifier, creds);
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.body.space_id, 'space_alice');
    assert.equal(t.body.token_type, 'Bearer');
    const bad = await exchange(emu, code, verifier, creds);
    assert.equal(bad.body.error, 'invalid_grant');
    await context.close();
  });

  it('an embedded request_signatures Url in a cross-origin iframe: add a signer, send, see it in the contract list', async () => {
    const t = await alice(emu);
    const ids = (await upload(emu, t.access_token, [{ FileName: 'offer-letter.pdf', FileBody: b64('%PDF-1.4 offer') }])).body.Response.Data.Files.map(
      (f: { FileId: string }) => f.FileId,
    );
    const view = await api(emu, '/embedded/views', t.access_token, { OperateType: 'request_signatures', OperateParam: { FileIds: ids } });
    const url = view.body.Response.Data.Url as string;

    framedUrl = url;
    const host = `${hostOrigin}/host.html`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(host);
    const frame = page.frameLocator('#f');
    await frame.getByText('offer-letter.pdf').waitFor();
    await heardMessage(page, 'ready');

    await frame.getByLabel('Subject').fill('Offer letter');
    await frame.getByLabel('Name').first().fill('Bob Lim');
    await frame.getByLabel('Email').first().fill('bob@example.com');
    await frame.getByRole('button', { name: 'Add signer' }).click();
    await frame.locator('#signer-name-1').fill('Pat Partner');
    await frame.locator('#signer-email-1').fill('pat@partner.example');
    assert.equal(await frame.locator('#signer-name-0').inputValue(), 'Bob Lim');
    await frame.getByRole('button', { name: 'Send' }).click();
    await frame.locator('#envelope-id').waitFor();
    const envelopeId = await frame.locator('#envelope-id').textContent();

    await heardMessage(page, 'envelope-sent');
    const messages = (await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages)) as Array<Record<string, unknown>>;
    const sent = messages.find((m) => m.type === 'envelope-sent')!;
    assert.equal(sent.envelopeId, envelopeId);
    assert.equal(sent.status, 'sent');
    assert.ok(messages.some((m) => m.type === 'resize' && typeof m.height === 'number'));
    assert.ok(!JSON.stringify(messages).includes(new URL(url).searchParams.get('embedded_token')!), 'no token in messages');

    await frame.getByRole('link', { name: 'All contracts' }).click();
    const row = frame.locator(`tr[data-envelope-id="${envelopeId}"]`);
    await row.waitFor();
    assert.match((await row.textContent())!, /Offer letter/);
    assert.match((await row.textContent())!, /Awaiting signatures/);

    // the Url was single use: loading it again shows the error page and posts url_used
    const again = await context.newPage();
    await again.goto(url);
    assert.ok(await again.getByText('already used').isVisible());
    await context.close();
  });
});
