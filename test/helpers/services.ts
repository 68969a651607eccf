/**
 * The real emulator and token proxy for browser tests, on 127.0.0.1 (another origin than the test
 * page on localhost), plus commands that act as a person in windows a test page cannot script.
 */
import type { Frame, HTTPRequest, KeyInput, Page } from 'puppeteer-core';
import { createEmulator } from '../../src/emulator/index.js';
import { generateCookieKey } from '../../src/proxy/index.js';
import { serveTokenProxy } from '../../src/proxy/node.js';
import { freePort } from './ports.js';
import { getWithJar, type Jar } from './oauth-login.js';

/** Pages the esign-offline command has cut off, with their request handler. */
const offlinePages = new Map<Page, (request: HTTPRequest) => void>();

/** Requests the esign-watch-requests command follows, per page. */
const watchedRequests = new Map<Page, { list: () => unknown[]; stop: () => void }>();

export const TEST_CLIENT = { clientId: 'test-client', clientSecret: 'test-secret-never-in-a-browser' };

export interface BrowserTestConfig {
  baseUrl: string;
  fileUrl: string;
  tokenEndpoint: string;
  /** The same proxy on 127.0.0.1: another site than the page on localhost, so its SameSite=Strict cookie is blocked. */
  crossSiteTokenEndpoint: string;
  clientId: string;
  pageOrigin: string;
  callbackUrl: string;
  fixtureUrl: string;
}

export async function startTestServices({ pageOrigin }: { pageOrigin: string }) {
  const callbackUrl = `${pageOrigin}/test/browser/fixtures/connect.html`;
  const redirectUris = [callbackUrl, `${pageOrigin}/test/browser/fixtures/e2e.html`];
  const emulator = await createEmulator({
    port: 0,
    filePort: 0,
    seed: {
      apps: [
        {
          clientId: TEST_CLIENT.clientId,
          clientSecret: TEST_CLIENT.clientSecret,
          name: 'esign-elements browser tests',
          scopes: ['envelope:create', 'envelope:read'],
          redirectUris,
        },
      ],
    },
  });
  // The proxy listens on 127.0.0.1 and the page reaches it as localhost (Chromium resolves localhost to
  // loopback): the same site as the page on http://localhost:8000, so its SameSite=Strict session cookie
  // comes back; its public origin is http://localhost:<port> and its callback is registered at the emulator, as an
  // integrator registers it. A second proxy, reached as 127.0.0.1, is another site than the page
  // (crossSiteTokenEndpoint). An ephemeral cookie key; the browser-held mode is on too, as the opt-in mode is tested
  // in the browser.
  const proxyOptions = {
    host: '127.0.0.1',
    clientId: TEST_CLIENT.clientId,
    clientSecret: TEST_CLIENT.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: [pageOrigin],
    redirectUris,
    rateLimit: false as const,
    cookieKeys: [generateCookieKey()],
    browserHeldRefreshTokens: true,
  };
  const served = await serveTokenProxy({ ...proxyOptions, port: 0 });
  const crossSitePort = await freePort();
  const crossSite = await serveTokenProxy({ ...proxyOptions, port: crossSitePort, publicOrigin: `http://127.0.0.1:${crossSitePort}` });
  for (const proxied of [served, crossSite]) emulator.registerRedirectUri(TEST_CLIENT.clientId, proxied.callbackUrl!);
  const proxy = { url: served.url.replace('//127.0.0.1:', '//localhost:'), crossSiteUrl: crossSite.url, close: () => Promise.all([served.close(), crossSite.close()]) };
  const browserConfig: BrowserTestConfig = {
    baseUrl: emulator.baseUrl,
    fileUrl: emulator.fileUrl,
    tokenEndpoint: `${proxy.url}/token`,
    crossSiteTokenEndpoint: `${proxy.crossSiteUrl}/token`,
    clientId: TEST_CLIENT.clientId,
    pageOrigin,
    callbackUrl,
    fixtureUrl: callbackUrl,
  };

  const attacker = { jar: new Map<string, string>() as Jar };

  /**
   * What an attacker's server does with what a script captured: each captured URL with a code, and each value that
   * could be one, at the proxy's callback with its own pre-login cookie; each code with each verifier-like value at
   * the token route; each value as a refresh token at the service. Counts what gave a session or a token.
   */
  async function attackerRedeem(strings: string[]): Promise<{ tried: number; accepted: number }> {
    const values = new Set<string>();
    for (const text of strings) {
      for (const part of text.split(/[\s;=&,"':{}[\]?#/]+/)) if (/^[\w.~-]{16,200}$/.test(part)) values.add(part);
    }
    let tried = 0;
    let accepted = 0;
    const codes = [...values].slice(0, 150);
    const verifiers = [...values].filter((v) => v.length >= 43).slice(0, 8);
    const state = new URL((await getWithJar(`${proxy.url}/login?${new URLSearchParams({ session: 'open', origin: pageOrigin, display: 'popup', attempt: 'attacker-probe-000000', scope: 'envelope:read' })}`, attacker.jar)).headers.get('location')!).searchParams.get('state')!;
    for (const code of codes) {
      tried++;
      await getWithJar(`${proxy.url}/callback?${new URLSearchParams({ code, state })}`, attacker.jar);
      if ([...attacker.jar.keys()].some((name) => !name.includes('esign_l_'))) accepted++;
      for (const verifier of verifiers) {
        tried++;
        const answer = await fetch(`${proxy.url}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: pageOrigin },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: `${proxy.url}/callback`, session: 'open' }),
        });
        if (answer.status === 200 || answer.headers.getSetCookie().length > 0) accepted++;
      }
    }
    const refreshes = await tryRefreshTokens([...values]);
    return { tried: tried + refreshes.tried, accepted: accepted + refreshes.accepted };
  }

  /**
   * What an attacker who read these strings from the page would do: redeem each as a refresh token at the service,
   * with the app's own credentials (the strongest attacker: one who also stole the secret).
   */
  async function tryRefreshTokens(candidates: string[]): Promise<{ tried: number; accepted: number }> {
    let accepted = 0;
    for (const candidate of new Set(candidates)) {
      const res = await fetch(`${emulator.baseUrl}/openapi/v1/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: candidate, client_id: TEST_CLIENT.clientId, client_secret: TEST_CLIENT.clientSecret }),
      });
      if (res.ok) accepted += 1;
      await res.arrayBuffer();
    }
    return { tried: new Set(candidates).size, accepted };
  }

  async function consentPage(page: Page, timeoutMs: number): Promise<Page> {
    const target = await page
      .browser()
      .waitForTarget((t) => t.type() === 'page' && t.url().startsWith(`${emulator.baseUrl}/consent`), { timeout: timeoutMs });
    const consent = await target.page();
    if (!consent) throw new Error('consent page target has no page');
    return consent;
  }

  /** The embedded page of the emulator shown in one of the test page's iframes, whose path contains `path`. */
  async function embeddedFrame(page: Page, path: string, timeoutMs: number): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    const prefix = `${emulator.baseUrl}/embedded/s/`;
    for (;;) {
      const frame = page.frames().find((f) => f.url().startsWith(prefix) && new URL(f.url()).pathname.includes(path));
      if (frame) return frame;
      if (Date.now() > deadline) throw new Error(`no embedded frame with ${path}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function command(name: string, payload: Record<string, unknown> | undefined, page: Page): Promise<unknown> {
    const timeoutMs = Number(payload?.['timeoutMs'] ?? 10_000);
    switch (name) {
      case 'esign-consent': {
        // a person logs in, picks a Space (Open Mode) and agrees or denies
        const consent = await consentPage(page, timeoutMs);
        await consent.waitForSelector('input[name="email"]', { timeout: timeoutMs });
        // the emulator may prefill the hinted email: a person clears the field first
        await consent.$eval('input[name="email"]', (input) => ((input as HTMLInputElement).value = ''));
        await consent.type('input[name="email"]', String(payload?.['email'] ?? 'alice@example.com'));
        await consent.type('input[name="password"]', String(payload?.['password'] ?? 'alice-password'));
        await Promise.all([consent.waitForNavigation({ timeout: timeoutMs }), clickButton(consent, 'Log in')]);
        const spaceId = payload?.['spaceId'];
        if (typeof spaceId === 'string') await consent.click(`input[name="space_id"][value="${spaceId}"]`);
        const action = payload?.['action'] === 'deny' ? 'Deny' : 'Agree';
        await clickButton(consent, action);
        return true;
      }
      case 'esign-attacker-login': {
        // an attacker's server asks the proxy for a sign-in of its own (its own state, verifier, pre-login cookie)
        attacker.jar = new Map();
        const query = new URLSearchParams({ session: 'open', origin: pageOrigin, display: 'popup', attempt: `attacker-${Date.now()}-000`, scope: 'envelope:create envelope:read' });
        const started = await getWithJar(`${proxy.url}/login?${query}`, attacker.jar);
        return started.headers.get('location');
      }
      case 'esign-attacker-redeem': {
        // the attacker's server with everything the page script captured
        const strings = (payload?.['strings'] as string[] | undefined) ?? [];
        return attackerRedeem(strings);
      }
      case 'esign-close-consent': {
        const consent = await consentPage(page, timeoutMs);
        await consent.close();
        return true;
      }
      case 'esign-frame-send': {
        // a person fills the emulator's envelope edit page inside the element's iframe and clicks Send
        const frame = await embeddedFrame(page, '/compose', timeoutMs);
        const signers = (payload?.['signers'] as Array<{ name: string; email: string }> | undefined) ?? [{ name: 'Bob Lim', email: 'bob@example.com' }];
        if (typeof payload?.['subject'] === 'string') await frame.type('#subject', payload['subject']);
        for (const [i, signer] of signers.entries()) {
          if (i > 0) await Promise.all([frame.waitForNavigation({ timeout: timeoutMs }), frame.click('#add-signer')]);
          await frame.type(`#signer-name-${i}`, signer.name);
          await frame.type(`#signer-email-${i}`, signer.email);
        }
        await Promise.all([frame.waitForNavigation({ timeout: timeoutMs }), frame.click('#send')]).catch((error: unknown) => {
          // the element may take the frame away as soon as the envelope page reports the envelope sent
          if (!/detached/i.test(String(error))) throw error;
        });
        // the element may replace the frame with its "sent" state as soon as the page reports the envelope
        // a plugin that returns null or undefined did not handle the command: '' when the frame went first
        try {
          const id = await frame.waitForSelector('#envelope-id', { timeout: timeoutMs });
          return (id ? await id.evaluate((el) => el.textContent) : '') ?? '';
        } catch {
          return '';
        }
      }
      case 'esign-frame-text': {
        // what a person reads in the element's iframe (e.g. the contract list), once it shows `contains`
        const frame = await embeddedFrame(page, String(payload?.['path'] ?? '/'), timeoutMs);
        const contains = String(payload?.['contains'] ?? '');
        await frame.waitForFunction((text) => document.body?.innerText.includes(text), { timeout: timeoutMs }, contains);
        return frame.evaluate(() => document.body.innerText);
      }
      case 'esign-file-chooser': {
        // a person picks files in the native file chooser the page opened (from a click or a key press)
        const { mkdtemp, writeFile } = await import('node:fs/promises');
        const { tmpdir } = await import('node:os');
        const { join } = await import('node:path');
        const { randomBytes } = await import('node:crypto');
        // with `press`, the key that opens it is pressed here once the browser intercepts choosers, so the test needs no
        // pause between starting the wait and the key: the interception request, sent again on the page's own session
        // and answered, proves it is on (pressing while waitForFileChooser's own request was on its way lost the chooser)
        const press = typeof payload?.['press'] === 'string' ? (payload['press'] as KeyInput) : undefined;
        const chosen = page.waitForFileChooser({ timeout: timeoutMs });
        if (press) {
          const session = (page as unknown as { _client(): { send(method: string, params: object): Promise<unknown> } })._client();
          await session.send('Page.setInterceptFileChooserDialog', { enabled: true });
          await page.keyboard.press(press);
        }
        const chooser = await chosen;
        const dir = await mkdtemp(join(tmpdir(), 'esign-chooser-'));
        const files = (payload?.['files'] as Array<{ name: string; size: number }> | undefined) ?? [{ name: 'picked.pdf', size: 1024 }];
        const paths = await Promise.all(
          files.map(async (f) => {
            const path = join(dir, f.name);
            await writeFile(path, randomBytes(f.size));
            return path;
          }),
        );
        await chooser.accept(paths);
        return { multiple: chooser.isMultiple(), count: paths.length };
      }
      case 'esign-offline': {
        // the test runner talks to this page over the network as well, so a page-wide offline mode would cut it off:
        // requests to the service and the proxy fail as a disconnected browser's do, and the page is told it is offline
        const offline = payload?.['offline'] === true;
        const cut = [emulator.baseUrl, emulator.fileUrl, proxy.url];
        const known = offlinePages.get(page);
        if (offline && !known) {
          const onRequest = (request: HTTPRequest): void => {
            if (request.isInterceptResolutionHandled()) return;
            if (cut.some((origin) => request.url().startsWith(origin))) void request.abort('internetdisconnected');
            else void request.continue();
          };
          offlinePages.set(page, onRequest);
          await page.setRequestInterception(true);
          page.on('request', onRequest);
        } else if (!offline && known) {
          page.off('request', known);
          offlinePages.delete(page);
          await page.setRequestInterception(false);
        }
        // a string, not a function: tsx would wrap a function in a helper that does not exist in the page
        await page.evaluate(
          `Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => ${!offline} }); window.dispatchEvent(new Event('${offline ? 'offline' : 'online'}'));`,
        );
        return true;
      }
      case 'esign-watch-requests': {
        // from now on, the page's `method` requests whose URL contains `contains`, and how each ended
        const contains = String(payload?.['contains'] ?? '');
        const method = String(payload?.['method'] ?? 'POST');
        watchedRequests.get(page)?.stop();
        const seen = new Map<HTTPRequest, { url: string; outcome: 'pending' | 'answered' | 'failed'; error?: string }>();
        const onRequest = (r: HTTPRequest): void => void (r.method() === method && r.url().includes(contains) && seen.set(r, { url: r.url(), outcome: 'pending' }));
        const onFinished = (r: HTTPRequest): void => void (seen.has(r) && (seen.get(r)!.outcome = 'answered'));
        const onFailed = (r: HTTPRequest): void => void (seen.has(r) && Object.assign(seen.get(r)!, { outcome: 'failed', error: r.failure()?.errorText }));
        page.on('request', onRequest);
        page.on('requestfinished', onFinished);
        page.on('requestfailed', onFailed);
        watchedRequests.set(page, {
          list: () => [...seen.values()],
          stop: () => {
            page.off('request', onRequest);
            page.off('requestfinished', onFinished);
            page.off('requestfailed', onFailed);
          },
        });
        return true;
      }
      case 'esign-watched-requests':
        return watchedRequests.get(page)?.list() ?? [];
      case 'esign-reset':
        emulator.reset();
        return true;
      case 'esign-set-limits':
        emulator.setLimits((payload ?? {}) as Record<string, number>);
        return true;
      case 'esign-try-refresh-tokens': {
        const candidates = ((payload?.['candidates'] as unknown[] | undefined) ?? []).filter((c): c is string => typeof c === 'string');
        return tryRefreshTokens(candidates);
      }
      case 'esign-advance-clock':
        emulator.advanceClock(Number(payload?.['seconds'] ?? 0));
        return emulator.now().toISOString();
      default:
        return undefined;
    }
  }

  return {
    emulator,
    proxy,
    browserConfig,
    command,
    async close() {
      await Promise.allSettled([emulator.close(), proxy.close()]);
    },
  };
}

async function clickButton(page: Page, text: string): Promise<void> {
  const handle = await page.waitForSelector(`::-p-xpath(//button[normalize-space(.)="${text}"] | //input[@type="submit" and @value="${text}"])`);
  if (!handle) throw new Error(`no button "${text}" on ${page.url()}`);
  await handle.click();
}
