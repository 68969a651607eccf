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
  /** Storybook's tags; `holds-a-request` marks a story that keeps a request unanswered on purpose (its loading state). */
  tags?: string[];
}

/**
 * Whether showing `entry` leaves a request unanswered on purpose: a story tagged `holds-a-request`, or a docs page that
 * renders one among its component's stories.
 */
export function holdsARequest(entry: IndexEntry, entries: readonly IndexEntry[]): boolean {
  const shown = entry.type === 'docs' ? entries.filter((e) => e.type === 'story' && e.title === entry.title) : [entry];
  return shown.some((e) => e.tags?.includes('holds-a-request'));
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

/**
 * Opens one story on a light or dark host page and waits until its elements have settled (see `settled`; `holds`: see
 * `holdsARequest`).
 */
export async function openStory(page: Page, origin: string, entry: IndexEntry, host: HostScheme, holds = false): Promise<boolean> {
  const requests = watchRequests(page, holds);
  await page.goto(`${origin}/iframe.html?id=${entry.id}&viewMode=${entry.type}&globals=host:${host}`, { waitUntil: 'load' });
  const root = entry.type === 'docs' ? '#storybook-docs' : '#storybook-root';
  const rendered = await page
    .waitForFunction((selector) => (document.querySelector(selector)?.childElementCount ?? 0) > 0, root, { timeout: 15_000 })
    .then(() => true)
    .catch(() => false);
  await settled(page, requests);
  return rendered;
}

/**
 * Shows another story in the preview already open in `page` (opened with `openStory`), the way Storybook's own
 * sidebar does: the manager tells the preview over its channel (`setCurrentStory`), the preview renders the story
 * afresh (new elements, the story's loaders and decorators run again) and says `storyRendered`; the page is not
 * reloaded, so its globals (the host scheme) and viewport stay. Then it waits until the story has settled, as
 * `openStory` does (`holds`: see `holdsARequest`). False when the preview reports an error or a missing story, or says nothing within 15 s.
 */
export async function switchStory(page: Page, entry: IndexEntry, holds = false): Promise<boolean> {
  const requests = watchRequests(page, holds);
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
  await settled(page, requests);
  return rendered;
}

/**
 * The page's requests in flight (embedded pages' too), counted from now on; `stop()` detaches the counter. A story that
 * holds a request on purpose (`holds`) is judged by its elements alone: its requests are not counted.
 */
interface RequestWatch {
  inFlight(): number;
  /** When a request last started or ended (ms, `performance.now()` of this process). */
  lastChange(): number;
  stop(): void;
}

function watchRequests(page: Page, holds: boolean): RequestWatch {
  const open = new Set<unknown>();
  let changed = performance.now();
  if (holds) return { inFlight: () => 0, lastChange: () => changed, stop: () => {} };
  const started = (request: unknown): void => {
    open.add(request);
    changed = performance.now();
  };
  const ended = (request: unknown): void => {
    open.delete(request);
    changed = performance.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  return {
    inFlight: () => open.size,
    lastChange: () => changed,
    stop: () => {
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
    },
  };
}

/** How long the story must stay still (no request, no change in its elements) to count as settled. */
const QUIET_MS = 300;
/**
 * A story that never stays still (a request that never ends, a progress that keeps moving) is taken as it is after
 * this long; the wait then says so on the console of the test, as it is what axe and the checks will see.
 */
const SETTLE_LIMIT_MS = 8_000;

/**
 * The rendered state of the page's elements: each one with a shadow root, its attributes and that root's markup, all
 * the way down. A script string, as in `switchStory`.
 */
const RENDERED_STATE = `(() => {
  const parts = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot) continue;
      parts.push(el.localName + [...el.attributes].map((a) => ' ' + a.name + '=' + a.value).join('') + '>' + el.shadowRoot.innerHTML);
      walk(el.shadowRoot);
    }
  };
  walk(document);
  return parts.join('\\n');
})()`;

/**
 * Waits until the story has settled: its session, first render, service calls and embedded pages done. That is no
 * request in flight and the same rendered state (every element's attributes and its open shadow root's markup, all
 * the way down) for `QUIET_MS`, read every 50 ms. Bounded by `SETTLE_LIMIT_MS`.
 */
async function settled(page: Page, requests: RequestWatch): Promise<void> {
  const began = performance.now();
  let last = '';
  let stillSince = began;
  try {
    for (;;) {
      const now = performance.now();
      const state = (await page.evaluate(RENDERED_STATE)) as string;
      if (state !== last || requests.inFlight() > 0) {
        last = state;
        stillSince = now;
      }
      const quiet = Math.min(now - stillSince, now - requests.lastChange());
      if (quiet >= QUIET_MS) return;
      if (now - began > SETTLE_LIMIT_MS) {
        console.log(`storybook: ${page.url()} did not settle in ${SETTLE_LIMIT_MS} ms (${requests.inFlight()} requests in flight)`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    requests.stop();
  }
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
