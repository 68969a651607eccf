/**
 * The static Storybook build served on a loopback port, with the real emulator and token proxy behind it, as a
 * visitor meets it. Shared by the Storybook e2e test (every story, axe) and `npm run screenshots`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Page } from 'playwright-core';
import { createEmulator, demoSeed, type RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';

export interface IndexEntry {
  id: string;
  type: 'story' | 'docs';
  title: string;
  name: string;
}

export interface StorybookSite {
  origin: string;
  emulator: RunningEmulator;
  entries: IndexEntry[];
  close(): Promise<void>;
}

export async function startStorybookSite(out = 'storybook-static'): Promise<StorybookSite> {
  const staticApp = new Hono().use('/*', serveStatic({ root: `./${out}` }));
  const site: ServerType = serve({ fetch: staticApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => site.once('listening', () => resolve()));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  // the demo app, with this static site's iframe page registered as a redirect URI
  const demoApp = demoSeed().apps.find((a) => a.clientId === 'demo-client')!;
  const app = { ...demoApp, redirectUris: [...demoApp.redirectUris, `${origin}/iframe.html`] };
  const emulator = await createEmulator({ port: 0, filePort: 0, seed: { apps: [app] } });
  let proxy: ServedTokenProxy | undefined;
  try {
    proxy = await serveTokenProxy({
      port: 0,
      host: '127.0.0.1',
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      baseUrl: emulator.baseUrl,
      allowedOrigins: [origin],
      redirectUris: [`${origin}/iframe.html`],
      cookieKeys: [generateCookieKey()],
      // the opt-in mode's story (BrowserHeld) redeems its code here too
      browserHeldRefreshTokens: true,
    });
    emulator.registerRedirectUri(app.clientId, proxy.callbackUrl!);
    // the demos read these at build time, as `npm start` passes them to Storybook
    execFileSync(process.execPath, ['node_modules/storybook/dist/bin/dispatcher.js', 'build', '-o', out, '--quiet'], {
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
  } catch (error) {
    await proxy?.close();
    await emulator.close();
    await new Promise((resolve) => site.close(resolve));
    throw error;
  }
  const index = JSON.parse(readFileSync(`${out}/index.json`, 'utf8')) as { entries: Record<string, IndexEntry> };
  const running = proxy;
  return {
    origin,
    emulator,
    entries: Object.values(index.entries),
    close: async () => {
      await running.close();
      await emulator.close();
      await new Promise((resolve) => site.close(resolve));
    },
  };
}

export type HostScheme = 'light' | 'dark';

/** Opens one story on a light or dark host page and waits until its elements have settled. */
export async function openStory(page: Page, origin: string, entry: IndexEntry, host: HostScheme, settleMs = 1200): Promise<boolean> {
  await page.goto(`${origin}/iframe.html?id=${entry.id}&viewMode=${entry.type}&globals=host:${host}`, { waitUntil: 'load' });
  const root = entry.type === 'docs' ? '#storybook-docs' : '#storybook-root';
  const rendered = await page
    .waitForFunction((selector) => (document.querySelector(selector)?.childElementCount ?? 0) > 0, root, { timeout: 15_000 })
    .then(() => true)
    .catch(() => false);
  // let elements settle (session, first render, service calls, embedded pages)
  await page.waitForTimeout(settleMs);
  return rendered;
}

/**
 * Shows another story in the preview already open in `page` (opened with `openStory`), the way Storybook's own
 * sidebar does: the manager tells the preview over its channel (`setCurrentStory`), the preview renders the story
 * afresh (new elements, the story's loaders and decorators run again) and says `storyRendered`; the page is not
 * reloaded, so its globals (the host scheme) and viewport stay. Then it waits `settleMs` as `openStory` does.
 * False when the preview reports an error or a missing story, or says nothing within 15 s.
 */
export async function switchStory(page: Page, entry: IndexEntry, settleMs = 1200): Promise<boolean> {
  // a script string: a function here would be compiled with the test runner's helpers, which the page lacks
  const rendered = (await page.evaluate(`new Promise((resolve) => {
    const id = ${JSON.stringify(entry.id)};
    const channel = globalThis.__STORYBOOK_ADDONS_CHANNEL__;
    const handlers = [];
    const finish = (ok) => {
      for (const [name, handler] of handlers) channel.off(name, handler);
      clearTimeout(timer);
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), 15000);
    // storyRendered and docsRendered name the entry that rendered: a late one of the story before is not this one
    const on = (ok) => (rendered) => {
      if (ok && typeof rendered === 'string' && rendered !== id) return;
      finish(ok);
    };
    handlers.push(['storyRendered', on(true)], ['docsRendered', on(true)], ['storyErrored', on(false)], ['storyThrewException', on(false)], ['storyMissing', on(false)]);
    for (const [name, handler] of handlers) channel.on(name, handler);
    channel.emit('setCurrentStory', { storyId: id, viewMode: ${JSON.stringify(entry.type)} });
  })`)) as boolean;
  await page.waitForTimeout(settleMs);
  return rendered;
}

/** axe-core on the page (open shadow roots included); violations of `serious` or `critical` impact. */
export async function seriousAxeViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.addScriptTag({ path: 'node_modules/axe-core/axe.min.js' });
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'], iframes: false });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
}
