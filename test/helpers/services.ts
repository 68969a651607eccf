/**
 * The real emulator and token proxy for browser tests, on 127.0.0.1 (another origin than the test
 * page on localhost), plus commands that act as a person in windows a test page cannot script.
 */
import type { CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import type { Browser as WebDriverBrowser } from 'webdriverio';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy } from '@esign-elements/token-proxy/node';
import { type BrowserPerson, puppeteerPerson, type Signer, webdriverPerson } from './browser-person.js';
import { openLink } from './link.js';
import { type CliProxy, startCliProxy } from './cli-proxy.js';
import { freePort } from '@esign-elements/test-support/ports';
import { getWithJar, type Jar } from '@esign-elements/test-support/oauth-login';

/** The test page a command acts for: its engine and that engine's handle on it. */
export type CommandTarget = { engine: 'chromium' | 'firefox'; page: Page } | { engine: 'webkit'; driver: WebDriverBrowser };

/** How long a person looks at the consent page before closing it (`esign-close-consent`). */
const PERSON_READS_MS = 2_500;

export const TEST_CLIENT = { clientId: 'test-client', clientSecret: 'test-secret-never-in-a-browser' };

export interface BrowserTestConfig {
  baseUrl: string;
  fileUrl: string;
  tokenEndpoint: string;
  /**
   * The service's API through a link the `esign-service-silent` command makes accept and never answer (its Urls and
   * files stay on `baseUrl`'s origin: a view over it lists that origin in `allowed-origins`).
   */
  silentBaseUrl: string;
  /** The same proxy on 127.0.0.1: another site than the page on localhost, so its SameSite=Strict cookie is blocked. */
  crossSiteTokenEndpoint: string;
  /**
   * A proxy on 127.0.0.1 set up for pages inside another site's frame (`framedBy`: the test page's origin on
   * localhost): the app page at `framedPageOrigin` (this server reached as 127.0.0.1) shown in a frame of the test page.
   */
  framedTokenEndpoint: string;
  framedPageOrigin: string;
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
  // the page reaches the proxy through a link the offline command can cut (the proxy's public origin is the link's)
  const proxyPort = await freePort();
  const proxyLink = await openLink(proxyPort);
  const served = await serveTokenProxy({ ...proxyOptions, port: proxyPort, publicOrigin: `http://localhost:${proxyLink.port}` });
  // the app page as another site than the test page (127.0.0.1), which the cross-site proxy also serves (it is not set
  // up for framed pages) and the framed proxy serves inside the test page's frame
  const framedPageOrigin = pageOrigin.replace('//localhost:', '//127.0.0.1:');
  const crossSitePort = await freePort();
  const crossSite = await serveTokenProxy({
    ...proxyOptions,
    allowedOrigins: [pageOrigin, framedPageOrigin],
    port: crossSitePort,
    publicOrigin: `http://127.0.0.1:${crossSitePort}`,
  });
  const framedPort = await freePort();
  const framed = await serveTokenProxy({
    ...proxyOptions,
    allowedOrigins: [framedPageOrigin],
    framedBy: [pageOrigin],
    port: framedPort,
    publicOrigin: `http://127.0.0.1:${framedPort}`,
  });
  for (const proxied of [served, crossSite, framed]) emulator.registerRedirectUri(TEST_CLIENT.clientId, proxied.callbackUrl!);
  const proxy = {
    url: `http://localhost:${proxyLink.port}`,
    crossSiteUrl: crossSite.url,
    close: () => Promise.all([served.close(), crossSite.close(), framed.close(), proxyLink.close()]),
  };
  // a server in front of the service's API that can accept and never answer
  const serviceLink = await openLink(Number(new URL(emulator.baseUrl).port));
  const browserConfig: BrowserTestConfig = {
    baseUrl: emulator.baseUrl,
    silentBaseUrl: `http://127.0.0.1:${serviceLink.port}`,
    fileUrl: emulator.fileUrl,
    tokenEndpoint: `${proxy.url}/token`,
    crossSiteTokenEndpoint: `${proxy.crossSiteUrl}/token`,
    framedTokenEndpoint: `${framed.url}/token`,
    framedPageOrigin,
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
    const state = new URL(
      (
        await getWithJar(
          `${proxy.url}/login?${new URLSearchParams({ session: 'open', origin: pageOrigin, display: 'popup', attempt: 'attacker-probe-000000', scope: 'envelope:read' })}`,
          attacker.jar,
        )
      ).headers.get('location')!,
    ).searchParams.get('state')!;
    for (const code of codes) {
      tried++;
      await getWithJar(`${proxy.url}/callback?${new URLSearchParams({ code, state })}`, attacker.jar);
      if ([...attacker.jar.keys()].some((name) => !name.includes('esign_l_'))) accepted++;
      for (const verifier of verifiers) {
        tried++;
        const answer = await fetch(`${proxy.url}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: pageOrigin },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            redirect_uri: `${proxy.url}/callback`,
            session: 'open',
          }),
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
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: candidate,
          client_id: TEST_CLIENT.clientId,
          client_secret: TEST_CLIENT.clientSecret,
        }),
      });
      if (res.ok) accepted += 1;
      await res.arrayBuffer();
    }
    return { tried: new Set(candidates).size, accepted };
  }

  /** The person acting in the test page's other windows and frames, through the page's own browser protocol. */
  function personFor(target: CommandTarget): BrowserPerson {
    return target.engine === 'webkit' ? webdriverPerson(target.driver, emulator.baseUrl) : puppeteerPerson(target.engine, target.page, emulator.baseUrl);
  }

  /** One devtools session per Chromium page, kept open: forced pseudo-classes last as long as their session. */
  const cdpSessions = new WeakMap<Page, Promise<CDPSession>>();
  function cdpFor(page: Page): Promise<CDPSession> {
    let session = cdpSessions.get(page);
    if (!session) {
      session = page.createCDPSession().then(async (cdp) => {
        await cdp.send('DOM.enable');
        await cdp.send('CSS.enable');
        await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
        return cdp;
      });
      cdpSessions.set(page, session);
    }
    return session;
  }

  /** The viewport before a test changed it, per page (Chromium, Firefox) or window (WebKit). */
  const viewports = new WeakMap<object, { width: number; height: number } | null>();

  /**
   * Sets the test page's viewport: Chromium and Firefox through puppeteer (CDP, WebDriver BiDi), WebKit, whose
   * WebDriver classic has no viewport command, by sizing its window so that the page's inner size is the one asked
   * for (the difference measured, then the window sized again). Answers the page's inner size, as the page sees it.
   */
  async function setViewport(target: CommandTarget, payload: Record<string, unknown> | undefined): Promise<{ width: number; height: number }> {
    const reset = payload?.['reset'] === true;
    if (target.engine !== 'webkit') {
      const { page } = target;
      if (!viewports.has(page)) viewports.set(page, page.viewport());
      const before = viewports.get(page) ?? null;
      if (reset) await page.setViewport(before ?? { width: 800, height: 600 });
      else await page.setViewport({ width: Number(payload?.['width']), height: Number(payload?.['height']) });
      return page.evaluate(() => ({ width: innerWidth, height: innerHeight }));
    }
    const { driver } = target;
    const inner = async (): Promise<{ width: number; height: number }> =>
      (await driver.execute('return { width: innerWidth, height: innerHeight }')) as { width: number; height: number };
    if (!viewports.has(driver)) viewports.set(driver, await driver.getWindowSize());
    if (reset) {
      const before = viewports.get(driver)!;
      await driver.setWindowSize(before.width, before.height);
      return inner();
    }
    const want = { width: Number(payload?.['width']), height: Number(payload?.['height']) };
    for (let i = 0; i < 3; i += 1) {
      const [outer, now] = await Promise.all([driver.getWindowSize(), inner()]);
      if (now.width === want.width && now.height === want.height) break;
      await driver.setWindowSize(outer.width + want.width - now.width, outer.height + want.height - now.height);
    }
    return inner();
  }

  type StepOutcome = { done: true; value?: unknown; error?: string };

  async function command(name: string, payload: Record<string, unknown> | undefined, target: CommandTarget): Promise<unknown> {
    // a person's steps in other windows (consent popup, embedded pages): 30 s each, as other suites load the machine;
    // the browser tests run the long ones through `esign-step-start`, so no command waits longer than web-test-runner's 20 s
    const timeoutMs = Number(payload?.['timeoutMs'] ?? 30_000);
    switch (name) {
      case 'esign-engine':
        return target.engine;
      case 'esign-consent': {
        // a person logs in, picks a Space (Open Mode) and agrees or denies
        const spaceId = typeof payload?.['spaceId'] === 'string' ? payload['spaceId'] : undefined;
        await personFor(target).consent(
          {
            email: String(payload?.['email'] ?? 'alice@example.com'),
            password: String(payload?.['password'] ?? 'alice-password'),
            spaceId,
            action: payload?.['action'] === 'deny' ? 'deny' : 'agree',
          },
          timeoutMs,
        );
        return true;
      }
      case 'esign-attacker-login': {
        // an attacker's server asks the proxy for a sign-in of its own (its own state, verifier, pre-login cookie)
        attacker.jar = new Map();
        const query = new URLSearchParams({
          session: 'open',
          origin: pageOrigin,
          display: 'popup',
          attempt: `attacker-${Date.now()}-000`,
          scope: 'envelope:create envelope:read',
        });
        const started = await getWithJar(`${proxy.url}/login?${query}`, attacker.jar);
        return started.headers.get('location');
      }
      case 'esign-attacker-redeem': {
        // the attacker's server with everything the page script captured
        const strings = (payload?.['strings'] as string[] | undefined) ?? [];
        return attackerRedeem(strings);
      }
      case 'esign-return-to-page':
        // the person clicks back into the test page's window (a window it opened has the focus)
        await personFor(target).returnToPage();
        return true;
      case 'esign-close-consent':
        // a person closes the consent page they have seen: for longer than the 1 s after which <esign-connect> counts
        // a popup it saw on another origin as shown to the person (a sign-in page that severs the popup reads as
        // another origin for a moment first: login-flow.ts, SEEN_AWAY_MS)
        await personFor(target).windowText(`${emulator.baseUrl}/consent`, 'Sign in to authorize', timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, PERSON_READS_MS));
        await personFor(target).closeConsent(timeoutMs);
        return true;
      case 'esign-frame-send': {
        // a person fills the emulator's envelope edit page inside the element's iframe and clicks Send
        const signers = (payload?.['signers'] as Signer[] | undefined) ?? [{ name: 'Bob Lim', email: 'bob@example.com' }];
        const subject = typeof payload?.['subject'] === 'string' ? payload['subject'] : undefined;
        // a plugin that returns null or undefined did not handle the command: '' when the frame went first
        return personFor(target).frameSend({ subject, signers }, timeoutMs);
      }
      case 'esign-frame-text':
        // what a person reads in the element's iframe (e.g. the contract list), once it shows `contains`
        return personFor(target).frameText(String(payload?.['path'] ?? '/'), String(payload?.['contains'] ?? ''), timeoutMs);
      case 'esign-file-chooser': {
        // a person picks files in the native file chooser the page opened (from a click or a key press)
        const files = (payload?.['files'] as Array<{ name: string; size: number }> | undefined) ?? [{ name: 'picked.pdf', size: 1024 }];
        const press = typeof payload?.['press'] === 'string' ? payload['press'] : undefined;
        return personFor(target).chooseFiles(files, press, timeoutMs);
      }
      case 'esign-offline': {
        // the network between the browser and the service and proxy drops: open connections are reset, new ones
        // refused (the test runner's own connection to the page stays up); the page is told by the test itself
        const offline = payload?.['offline'] === true;
        emulator.setOffline(offline);
        proxyLink.setOffline(offline);
        return true;
      }
      case 'esign-proxy-down': {
        // the token proxy alone cannot be reached (connections to its public address reset, as a stopped process's
        // port refuses them) while the browser stays online; `down: false` brings it back. In Chromium and Firefox the
        // page's requests to it are counted from then on (`esign-proxy-tries`)
        const down = payload?.['down'] === true;
        proxyLink.setOffline(down);
        if (target.engine !== 'webkit') {
          const watch = proxyTries.get(target.page);
          if (watch) target.page.off('request', watch.count);
          proxyTries.delete(target.page);
          if (down) {
            const watching = {
              tries: 0,
              count: (request: HTTPRequest) => void (request.method() !== 'OPTIONS' && request.url().startsWith(`${proxy.url}/`) && watching.tries++),
            };
            target.page.on('request', watching.count);
            proxyTries.set(target.page, watching);
          }
        }
        return true;
      }
      case 'esign-cli-proxy': {
        // the real token-proxy CLI, on a Redis store, started on first use; `action: 'stop'` stops its process (its
        // port refuses connections), `'start'` starts it again on the same port, key and store. Slow to start (tsx
        // compiles it first): run through `esign-step-start`
        if (payload?.['action'] === 'stop') await cliProxy?.stop();
        else if (cliProxy) await cliProxy.start();
        else {
          cliProxy = await startCliProxy({ ...TEST_CLIENT, baseUrl: emulator.baseUrl, pageOrigin, redirectUris });
          emulator.registerRedirectUri(TEST_CLIENT.clientId, cliProxy.callbackUrl);
        }
        return { tokenEndpoint: `${cliProxy!.url}/token` };
      }
      case 'esign-proxy-tries':
        // the page's tries to reach the token proxy since it went down: its requests to the proxy's address as the
        // browser saw them leave (Chromium, Firefox), CORS preflights aside (Firefox shows each as a request of its
        // own). Not the connections the link refused: a browser opens some of its own (speculative connections to an
        // origin the page uses), which are no try of the page. WebKit: those
        return target.engine === 'webkit' ? proxyLink.refused() : (proxyTries.get(target.page)?.tries ?? 0);
      case 'esign-page-hidden': {
        // the test page hidden as a person hides it, by showing another tab of its window in front (a real
        // visibilitychange to hidden, and the focus gone); `hidden: false` brings the test page to the front again
        // (visible, and the focus back). Chromium and Firefox (puppeteer); false where the engine cannot (WebKit)
        if (target.engine === 'webkit') return false;
        const { page } = target;
        if (payload?.['hidden'] === true) {
          const other = await page.browser().newPage();
          covers.set(page, other);
          await other.bringToFront();
        } else {
          await page.bringToFront();
          await covers.get(page)?.close();
          covers.delete(page);
        }
        return true;
      }
      case 'esign-service-silent':
        // the server in front of the service's API (silentBaseUrl) accepts connections and never answers; `silent:
        // false` passes them through again
        serviceLink.setSilent(payload?.['silent'] === true);
        return true;
      case 'esign-service-down':
        // the service alone refuses connections (its API and file servers) while the browser and the proxy stay up
        emulator.setOffline(payload?.['down'] === true);
        return true;
      case 'esign-watch-requests':
        // from now on, the page's `method` requests whose URL contains `contains`, and how each ended
        await personFor(target).watchRequests(String(payload?.['contains'] ?? ''), String(payload?.['method'] ?? 'POST'));
        return true;
      case 'esign-watched-requests':
        return personFor(target).watchedRequests();
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
      case 'esign-viewport':
        // the page's viewport (CSS px) as a phone's, or back as it was with `{reset: true}`
        return setViewport(target, payload);
      case 'esign-force-pseudo': {
        // Chromium's devtools forcing :hover, :focus-visible, :active… on the element the page put in
        // window.__esignForceTarget (CSS.forcePseudoState); `states: []` lets it go
        if (target.engine !== 'chromium') return false;
        const cdp = await cdpFor(target.page);
        const { result } = (await cdp.send('Runtime.evaluate', { expression: 'window.__esignForceTarget' })) as { result: { objectId?: string } };
        if (!result.objectId) return false;
        const { nodeId } = (await cdp.send('DOM.requestNode', { objectId: result.objectId })) as { nodeId: number };
        await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: (payload?.['states'] as string[] | undefined) ?? [] });
        return true;
      }
      case 'esign-advance-clock':
        emulator.advanceClock(Number(payload?.['seconds'] ?? 0));
        return emulator.now().toISOString();
      case 'esign-step-start': {
        // a person's multi-step action (test/browser/helpers.ts `personStep`), started here and waited for in turns:
        // web-test-runner gives one command 20 s whatever it does, and a consent on a loaded machine (WebKit through
        // WebDriver beside two other suites) took longer
        const id = `step-${++stepCount}`;
        const step: Promise<StepOutcome> = command(String(payload?.['name']), payload?.['payload'] as Record<string, unknown> | undefined, target).then(
          (value) => ({ done: true, value }),
          (error: unknown) => ({ done: true, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
        );
        steps.set(id, step);
        return id;
      }
      case 'esign-step-wait': {
        // the step's outcome, or { done: false } after 10 s (well within the 20 s of one command)
        const id = String(payload?.['id']);
        const step = steps.get(id);
        if (!step) return { done: true, error: `no step ${id}` };
        let timer: ReturnType<typeof setTimeout> | undefined;
        const outcome = await Promise.race([step, new Promise<{ done: false }>((resolve) => (timer = setTimeout(() => resolve({ done: false }), 10_000)))]);
        clearTimeout(timer);
        if (outcome.done) steps.delete(id);
        return outcome;
      }
      default:
        return undefined;
    }
  }
  let stepCount = 0;
  let cliProxy: CliProxy | undefined;
  /** The tab shown in front of a test page that `esign-page-hidden` hid. */
  const covers = new Map<Page, Page>();
  /** The page's requests to the token proxy's address since `esign-proxy-down` cut it. */
  const proxyTries = new Map<Page, { tries: number; count: (request: HTTPRequest) => void }>();
  const steps = new Map<string, Promise<StepOutcome>>();

  return {
    emulator,
    proxy,
    browserConfig,
    command,
    async close() {
      await Promise.allSettled([emulator.close(), proxy.close(), serviceLink.close(), cliProxy?.close()]);
    },
  };
}
