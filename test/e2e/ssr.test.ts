/**
 * Server rendering: the four elements rendered in Node by Lit SSR (@lit-labs/ssr) to declarative shadow DOM, then
 * hydrated in Chromium (@lit-labs/ssr-client) on a page with the real emulator and token proxy: the server's DOM is
 * kept (no re-render), no hydration error, and the elements work (a person connects; the uploader sees the session).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { render } from '@lit-labs/ssr';
import { collectResult } from '@lit-labs/ssr/lib/render-result.js';
import { build } from 'esbuild';
import { html } from 'lit';
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { startEsignServices, type EsignServices } from '@esign-elements/testing';
// registers the four tags in Node (Lit's DOM shim), as a server that renders them does
import '../../src/index.js';

const SECRET = 'ssr-secret-must-never-reach-the-browser';
let services: EsignServices;
let browser: Browser;
let site: Server;
let siteOrigin: string;
let bundleDir: string;
let rendered = '';

/** What a server sends: the page with the elements rendered by Lit SSR (their shadow roots as declarative templates). */
async function renderPage(baseUrl: string, tokenEndpoint: string): Promise<string> {
  const markup = await collectResult(
    render(html`<main>
      <esign-connect id="esign" client-id="ssr-app" base-url=${baseUrl} token-endpoint=${tokenEndpoint}>
        <esign-uploader id="up" multiple></esign-uploader>
      </esign-connect>
      <esign-signing-frame connect="esign" uploader="up"></esign-signing-frame>
      <esign-contract-list connect="esign" auto="false"></esign-contract-list>
    </main>`),
  );
  // with ?defer the elements' code arrives only when the test calls hydrate(), so what the browser shows first is the
  // server's DOM; without it (the sign-in popup's return to this page) it loads at once
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Server-rendered page</title>
<script type="module">window.hydrate = () => import('/app.js'); if (!new URLSearchParams(location.search).has('defer')) window.hydrate();</script>
</head><body>${markup}</body></html>`;
}

before(async () => {
  // the page's script: Lit's hydration support first, then the package (as an app bundles it)
  bundleDir = mkdtempSync(join(tmpdir(), 'esign-ssr-'));
  await build({
    stdin: { contents: "import '@lit-labs/ssr-client/lit-element-hydrate-support.js';\nimport './src/index.ts';", resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    // one file: esbuild's code splitting may run a shared chunk (Lit) before the hydration support sets its hook
    splitting: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['browser'],
    outdir: bundleDir,
    entryNames: 'app',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (/^\/[\w.-]+\.js$/.test(path)) {
      try {
        const script = readFileSync(join(bundleDir, path), 'utf8');
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      } catch {
        res.writeHead(404).end();
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(rendered);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  services = await startEsignServices({ clientId: 'ssr-app', clientSecret: SECRET, appName: 'SSR integrator', siteOrigins: [siteOrigin] });
  rendered = await renderPage(services.emulator.baseUrl, services.tokenEndpoint);
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
  await new Promise((resolve) => site?.close(resolve));
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('server rendering (Lit SSR) and hydration', () => {
  it('renders all four elements to declarative shadow DOM in Node, in their first state', () => {
    for (const tag of ['esign-connect', 'esign-uploader', 'esign-signing-frame', 'esign-contract-list']) {
      assert.match(rendered, new RegExp(`<${tag}[^>]*>\\s*<template shadowroot(mode)?="open"`), `${tag} has a declarative shadow root`);
    }
    assert.match(rendered, /Connect e-signature account/);
    assert.match(rendered, /Connect your e-signature account first/);
    assert.match(rendered, /New envelope/);
    assert.match(rendered, /Your contracts/);
  });

  it('shows the server DOM before any script, hydrates it without re-rendering, and works', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(`pageerror ${error.message}`));
    tab.on('console', (message) => {
      if (message.type() === 'error' || /mismatch|hydrat/i.test(message.text())) problems.push(message.text());
    });
    await tab.goto(`${siteOrigin}/?defer`);

    // no element is defined yet, and a person already sees each one's first state
    assert.equal(await tab.evaluate(() => customElements.get('esign-connect')), undefined);
    await tab.getByRole('button', { name: 'Connect e-signature account' }).waitFor();
    await tab.getByText('New envelope').waitFor();
    // mark server-rendered nodes: hydration must keep them
    await tab.evaluate(() => {
      for (const tag of ['esign-connect', 'esign-uploader', 'esign-signing-frame', 'esign-contract-list']) {
        const first = document.querySelector(tag)!.shadowRoot!.querySelector('[part]') as (Element & { ssr?: boolean }) | null;
        if (!first) throw new Error(`${tag} has no server-rendered part`);
        first.ssr = true;
      }
    });

    await tab.evaluate(() => (window as unknown as { hydrate(): Promise<unknown> }).hydrate());
    const kept = await tab.evaluate(async () => {
      const tags = ['esign-connect', 'esign-uploader', 'esign-signing-frame', 'esign-contract-list'];
      await Promise.all(tags.map((tag) => customElements.whenDefined(tag)));
      const out: Record<string, boolean> = {};
      for (const tag of tags) {
        const el = document.querySelector(tag) as HTMLElement & { updateComplete: Promise<unknown> };
        await el.updateComplete;
        out[tag] = (el.shadowRoot!.querySelector('[part]') as (Element & { ssr?: boolean }) | null)?.ssr === true;
      }
      return out;
    });
    assert.deepEqual(problems, [], 'no hydration error');
    assert.deepEqual(
      kept,
      { 'esign-connect': true, 'esign-uploader': true, 'esign-signing-frame': true, 'esign-contract-list': true },
      'the server DOM was hydrated, not replaced',
    );
    assert.deepEqual(problems, [], 'no hydration error');

    // behaviour intact: a person connects, and the other elements see the session (context and connect="ID")
    await signInWithPopup(tab);
    await tab.getByText('Connected as Alice Tan').waitFor();
    await tab.getByRole('button', { name: /Drop files here or choose files/ }).waitFor();
    await tab.getByRole('button', { name: 'Show my contracts' }).waitFor();
    assert.deepEqual(problems, [], 'no error after hydration either');
    await context.close();
  });
});
