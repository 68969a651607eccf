/**
 * The static Storybook build, as a visitor sees it: every story and docs page renders in Chromium with
 * no console error and no failed request, against the real emulator and token proxy.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { createEmulator, demoSeed, type RunningEmulator } from '../../src/emulator/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../../src/proxy/index.js';

const OUT = 'storybook-static';
let emulator: RunningEmulator;
let proxy: ServedTokenProxy;
let site: ServerType;
let siteOrigin: string;
let browser: Browser;

interface IndexEntry {
  id: string;
  type: 'story' | 'docs';
  title: string;
  name: string;
}

before(async () => {
  const staticApp = new Hono().use('/*', serveStatic({ root: `./${OUT}` }));
  site = serve({ fetch: staticApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => site.once('listening', () => resolve()));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  // the demo app, with this static site's iframe page registered as a redirect URI
  const demoApp = demoSeed().apps.find((a) => a.clientId === 'demo-client')!;
  const app = { ...demoApp, redirectUris: [...demoApp.redirectUris, `${siteOrigin}/iframe.html`] };
  emulator = await createEmulator({ port: 0, filePort: 0, seed: { apps: [app] } });
  proxy = await serveTokenProxy({
    port: 0,
    host: '127.0.0.1',
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: [siteOrigin],
    redirectUris: [`${siteOrigin}/iframe.html`],
    cookieKeys: [randomBytes(32).toString('base64url')],
  });
  // the demos read these at build time, as `npm start` passes them to Storybook
  execFileSync(process.execPath, ['node_modules/storybook/dist/bin/dispatcher.js', 'build', '-o', OUT, '--quiet'], {
    stdio: 'pipe',
    env: {
      ...process.env,
      STORYBOOK_DISABLE_TELEMETRY: '1',
      STORYBOOK_ESIGN_BASE_URL: emulator.baseUrl,
      // the proxy on the site's own host name: its SameSite=Strict session cookie comes back
      STORYBOOK_ESIGN_TOKEN_ENDPOINT: `${proxy.url.replace('127.0.0.1', 'localhost')}/token`,
      STORYBOOK_ESIGN_CLIENT_ID: app.clientId,
    },
  });
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await proxy?.close();
  await emulator?.close();
  await new Promise((resolve) => site?.close(resolve));
});

describe('static Storybook build', () => {
  it('renders every story and docs page with no console error', async () => {
    const index = JSON.parse(readFileSync(`${OUT}/index.json`, 'utf8')) as { entries: Record<string, IndexEntry> };
    const entries = Object.values(index.entries);
    assert.ok(entries.filter((e) => e.type === 'story').length >= 5, 'stories are in the build');
    const context = await browser.newContext();
    const failures: string[] = [];
    for (const entry of entries) {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
      });
      await page.goto(`${siteOrigin}/iframe.html?id=${entry.id}&viewMode=${entry.type}`, { waitUntil: 'load' });
      const root = entry.type === 'docs' ? '#storybook-docs' : '#storybook-root';
      const rendered = await page
        .waitForFunction((selector) => (document.querySelector(selector)?.childElementCount ?? 0) > 0, root, { timeout: 15_000 })
        .then(() => true)
        .catch(() => false);
      if (!rendered) problems.push(`nothing rendered in ${root}`);
      // let elements settle (session restore, first render, service calls)
      await page.waitForTimeout(500);
      if (entry.type === 'story') {
        const tags = await page.evaluate(() => [...document.querySelectorAll('#storybook-root *')].filter((el) => el.localName.startsWith('esign-') && el.shadowRoot).length);
        if (tags === 0) problems.push('no esign element rendered');
      }
      if (problems.length) failures.push(`${entry.title} / ${entry.name}:\n  ${problems.join('\n  ')}`);
      await page.close();
    }
    await context.close();
    assert.deepEqual(failures, []);
  });

  it('the full-flow story works as a person uses it: connect, drop a PDF, send the envelope, follow it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/iframe.html?id=guides-full-flow--all-four-tags&viewMode=story`);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Connect e-signature account' }).click()]);
    await popup.getByLabel('Email').fill('alice@example.com');
    await popup.getByLabel('Password').fill('alice-password');
    await popup.getByRole('button', { name: 'Log in' }).click();
    await popup.getByLabel('Acme Legal').check();
    await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Agree' }).click()]);
    await page.getByText('Connected to Space space_acme').waitFor();

    // a person clicks the drop zone and picks a file in the chooser
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
    await chooser.setFiles({ name: 'lease-agreement.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% a small test document\n%%EOF\n') });

    // the signing frame opens by itself with the uploaded file; the person adds a signer and sends
    const frame = page.frameLocator('esign-signing-frame iframe');
    await frame.getByText('lease-agreement.pdf').waitFor({ timeout: 20_000 });
    await frame.getByLabel('Subject').fill('Lease for unit 12');
    await frame.getByLabel('Name').fill('Bob Lim');
    await frame.getByLabel('Email').fill('bob@example.com');
    await frame.getByRole('button', { name: 'Send' }).click();
    await frame.locator('#envelope-id').waitFor();

    // later: the contract list shows the envelope, awaiting the signer
    await page.reload();
    const list = page.frameLocator('esign-contract-list iframe');
    await list.getByText('Lease for unit 12').waitFor({ timeout: 20_000 });
    await context.close();
  });
});
