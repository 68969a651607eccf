/**
 * `@esign-elements/testing`: the emulator and a token proxy for a test run, in-process on free loopback ports, and
 * what a person does in them (accept an invitation, sign or decline from a signing link), the emulator's clock and
 * faults, and the CSP a page needs. Node only; never part of a browser bundle. For Playwright, the fixture and the
 * sign-in helpers are in `@esign-elements/testing/playwright`. Guide: docs/testing.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EsignError } from '@esign-elements/shared';
import { createEmulator, type EmulatorLimits, type EmulatorSeedInput, type OutboxEmail, type RunningEmulator } from '@esign-elements/emulator';
import { cspSources, formatCsp, generateCookieKey, type CspSources } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';
import { CDN_PATH, startTestSite, type TestSite } from './site.js';

export { PEOPLE, SPACES, type EsignPerson } from './people.js';
export { cspSources, formatCsp, type CspInput, type CspSources } from '@esign-elements/token-proxy';
export type { EmulatorLimits, EmulatorSeedInput, RunningEmulator } from '@esign-elements/emulator';

/** The environment variable the kit reads for the Chromium (or Chrome) executable, e.g. `/usr/bin/chromium`. */
export const BROWSER_PATH_VARIABLE = 'CHROME_PATH';

/** The browser executable named by `CHROME_PATH`, or undefined (then Playwright uses the browser it installed). */
export function browserExecutablePath(): string | undefined {
  return process.env[BROWSER_PATH_VARIABLE] || undefined;
}

export interface StartEsignServicesOptions {
  /** The app registered at the emulator and used by the proxy; default `test-app` with a random secret. */
  clientId?: string;
  clientSecret?: string;
  /** Shown on the consent page; default `Test app`. */
  appName?: string;
  /** More users, Spaces and apps, on top of the demo seed (docs/emulator.md "Seed file"). */
  seed?: EmulatorSeedInput;
  /** Emulator limits for this run (a short token lifetime, say); see docs/emulator.md. */
  limits?: Partial<EmulatorLimits>;
  /**
   * The emulator forgives a rotated refresh token presented again within this many seconds (a service with a reuse
   * grace); default 0, none: the grant is revoked, as the strictest services do. Same as `limits.refreshReuseGraceSeconds`.
   */
  refreshReuseGraceSeconds?: number;
  /**
   * Origins your own pages are served from (a dev server: `http://localhost:5173`); the proxy answers them. The
   * kit's own site (`servePage`) is always allowed. Serve them as `localhost`: the proxy's session cookie is
   * `SameSite=Strict`, and the proxy is reached at `localhost` too.
   */
  siteOrigins?: string[];
  /** A folder the kit's site serves beside the pages of `servePage` (your built app, fixtures). */
  staticDir?: string;
  /** The token proxy's path prefix; default none (`/token`, `/login`, …). */
  basePath?: string;
}

export interface ServePageOptions {
  /** Path on the kit's site; default a new `/page-<n>.html`. */
  path?: string;
  title?: string;
  lang?: string;
  /** More markup for `<head>`. */
  head?: string;
  /** Load the elements from the package's CDN build (default true); false when the page brings its own bundle. */
  elements?: boolean;
  /**
   * A Content-Security-Policy header for the page: a policy string, or `true` for the one the kit's services need
   * (`script-src 'self'; connect-src …; frame-src …`), to test a page under a strict policy.
   */
  csp?: string | true;
}

/** One email in the emulator's outbox, as `outbox()` reads it (the emulator's own record). */
export type { OutboxEmail } from '@esign-elements/emulator';

/** A fault the emulator injects into its next matching request(s) (docs/emulator.md "Test helpers"). */
export interface EmulatorFault {
  /** Request path, e.g. `/openapi/v1/files/upload` or `/openapi/v1/oauth/token`. */
  path: string;
  method?: string;
  /** `status`: answer with `status` (after `delayMs`, default 0: a slow failure); `delay`: wait `delayMs` (default 1000) first; `drop`: lose the connection. */
  kind: 'status' | 'delay' | 'drop';
  status?: number;
  delayMs?: number;
  /** `delay` or `drop` after the request is processed (a refresh token rotated): its answer held `delayMs`, or lost. */
  after?: boolean;
  retryAfter?: number;
  /** How many requests it applies to; default 1. */
  times?: number;
  /** The service's `Error.Code` of a status fault. */
  code?: string;
}

export interface EsignServices {
  /** The emulator's business base URL: `base-url` of `<esign-connect>`. */
  readonly baseUrl: string;
  /** The emulator's file-management domain (server code's multipart uploads). */
  readonly fileUrl: string;
  readonly clientId: string;
  /** For server code under test only; never put it in a page. */
  readonly clientSecret: string;
  /** The token proxy's token route as a page reaches it (`http://localhost:<port>/token`): `token-endpoint`. */
  readonly tokenEndpoint: string;
  /** The token proxy's origin as a page reaches it. */
  readonly proxyOrigin: string;
  /** The kit's site (`servePage`, `staticDir`): `http://localhost:<port>`. */
  readonly siteOrigin: string;
  /** `client-id="…" base-url="…" token-endpoint="…"`: the attributes of an `<esign-connect>` for these services. */
  readonly connectAttributes: string;
  /** The CSP sources a page of these services needs, and the same as a policy string. */
  readonly csp: CspSources;
  readonly cspHeader: string;
  /** The running emulator (`advanceClock`, `setLimits`, `seed`, …). */
  readonly emulator: RunningEmulator;
  /** Serves `body` as a page on the kit's site, loading the elements; returns its URL. */
  servePage(body: string, options?: ServePageOptions): string;
  /**
   * An access token of `email` in `spaceId` for this run's app, as a finished sign-in would give (no consent page,
   * no refresh token): for your server code's calls in a test. `email` must be an active member of the Space.
   */
  accessToken(email: string, spaceId: string): Promise<string>;
  /** The emulator's UserId of `email` (`X-Operator-User-Id` of envelope calls). */
  userId(email: string): Promise<string>;
  /** The emails the emulator "sent", oldest first. */
  outbox(): Promise<OutboxEmail[]>;
  /** `email` opens the newest invitation sent to them (active member from then on); sets a password if given. */
  acceptInvitation(email: string, options?: { password?: string }): Promise<void>;
  /** `email` opens the newest signing link sent to them (of `envelopeId`, if given) and signs. Returns the envelope id. */
  signEnvelope(email: string, options?: { envelopeId?: string }): Promise<string>;
  /** The same, and declines. */
  declineEnvelope(email: string, options?: { envelopeId?: string }): Promise<string>;
  /** Moves the emulator's clock on (codes, access tokens, embedded Urls expire on it); returns its new time. */
  advanceClock(seconds: number): Date;
  /** Makes the emulator fail its next matching request(s); returns the fault's id. */
  injectFault(fault: EmulatorFault): Promise<string>;
  clearFaults(): Promise<void>;
  /** Back to the seed: clock, faults, outbox, sessions, files and envelopes cleared (the registered app stays). */
  reset(): void;
  close(): Promise<void>;
}

/** Where esign-elements' CDN build is: in the installed esign-elements (its `cdn` export), or this checkout's dist/cdn. */
function defaultCdnDir(): string | undefined {
  const candidates: string[] = [];
  try {
    candidates.push(fileURLToPath(new URL('./', import.meta.resolve('esign-elements/cdn'))));
  } catch {
    // not installed beside the kit: this checkout's build, if there is one
  }
  candidates.push(fileURLToPath(new URL('../../../dist/cdn/', import.meta.url)));
  return candidates.find((dir) => existsSync(`${dir}esign-elements.min.js`));
}

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Starts the emulator (demo seed plus yours, one app for the proxy), a token proxy for that app and the kit's test
 * site, each on a free port of 127.0.0.1. Call `close()` when the run ends.
 */
export async function startEsignServices(options: StartEsignServicesOptions = {}): Promise<EsignServices> {
  const clientId = options.clientId ?? 'test-app';
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const site = await startTestSite({ cdnDir: defaultCdnDir(), staticDir: options.staticDir });
  let emulator: RunningEmulator | undefined;
  let proxy: ServedTokenProxy | undefined;
  try {
    const app = { clientId, clientSecret, name: options.appName ?? 'Test app', scopes: ['envelope:create', 'envelope:read'], redirectUris: [] };
    emulator = await createEmulator({
      port: 0,
      filePort: 0,
      seed: { ...options.seed, apps: [...(options.seed?.apps ?? []), app] },
      ...(options.limits || options.refreshReuseGraceSeconds !== undefined
        ? {
            limits: {
              ...options.limits,
              ...(options.refreshReuseGraceSeconds !== undefined ? { refreshReuseGraceSeconds: options.refreshReuseGraceSeconds } : {}),
            },
          }
        : {}),
    });
    proxy = await serveTokenProxy({
      port: 0,
      host: '127.0.0.1',
      clientId,
      clientSecret,
      baseUrl: emulator.baseUrl,
      basePath,
      allowedOrigins: [site.origin, ...(options.siteOrigins ?? [])],
      cookieKeys: [generateCookieKey()],
      // a test run signs in many times from one address
      rateLimit: false,
    });
    // the default mode's redirect URI is the proxy's callback, registered as an integrator registers it
    emulator.registerRedirectUri(clientId, proxy.callbackUrl!);
  } catch (error) {
    await Promise.allSettled([site.close(), emulator?.close(), proxy?.close()]);
    throw error;
  }
  return services({ emulator, proxy, site, clientId, clientSecret, basePath });
}

function services(parts: {
  emulator: RunningEmulator;
  proxy: ServedTokenProxy;
  site: TestSite;
  clientId: string;
  clientSecret: string;
  basePath: string;
}): EsignServices {
  const { emulator, proxy, site, clientId, clientSecret, basePath } = parts;
  // Chromium resolves localhost to loopback: the proxy at localhost is the same site as the pages at localhost
  const proxyOrigin = proxy.url.replace('//127.0.0.1:', '//localhost:');
  const tokenEndpoint = `${proxyOrigin}${basePath}/token`;
  const csp = cspSources({ baseUrl: emulator.baseUrl, proxyOrigin, pageOrigin: site.origin });
  const cspHeader = formatCsp(csp);
  let pageCount = 0;

  const devRoute = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await fetch(`${emulator.baseUrl}/__emulator/${path}`, init);
    const body = (await response.json()) as T & { error_description?: string };
    if (!response.ok)
      throw new EsignError('invalid_argument', `The emulator refused ${path}: ${body.error_description ?? response.status}`, { status: response.status });
    return body;
  };
  const outbox = () => devRoute<OutboxEmail[]>('outbox');
  const newestLink = async (to: string, kinds: OutboxEmail['kind'][], matches: (link: URL) => boolean, what: string): Promise<URL> => {
    const mail = (await outbox()).filter((m) => m.to.toLowerCase() === to.toLowerCase() && kinds.includes(m.kind) && m.link && matches(new URL(m.link)));
    const newest = mail.at(-1);
    if (!newest) throw new EsignError('not_found', `No ${what} for ${to} in the emulator's outbox.`);
    return new URL(newest.link);
  };

  // a signer on the emailed link: the page, then its Sign or Decline button (the form the page shows)
  const actOnEnvelope = async (email: string, action: 'sign' | 'decline', envelopeId: string | undefined): Promise<string> => {
    const link = await newestLink(
      email,
      ['sign-request', 'reminder'],
      (url) => !envelopeId || url.pathname.endsWith(`/${encodeURIComponent(envelopeId)}`),
      `signing link${envelopeId ? ` of ${envelopeId}` : ''}`,
    );
    const page = await fetch(link);
    const html = await page.text();
    const form = /<form method="post" action="([^"]+)" id="sign-form">/.exec(html);
    if (!page.ok || !form)
      throw new EsignError('invalid_argument', `${email} has nothing to sign at that link (already signed, declined or voided).`, { status: page.status });
    const signer = link.searchParams.get('signer') ?? '';
    const answer = await fetch(new URL(form[1]!.replace(/&amp;/g, '&'), link), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ signer, action }),
      redirect: 'manual',
    });
    await answer.body?.cancel();
    if (answer.status !== 303) throw new EsignError('service_error', `Signing as ${email} answered ${answer.status}.`, { status: answer.status });
    return decodeURIComponent(link.pathname.split('/').at(-1)!);
  };

  return {
    baseUrl: emulator.baseUrl,
    fileUrl: emulator.fileUrl,
    clientId,
    clientSecret,
    tokenEndpoint,
    proxyOrigin,
    siteOrigin: site.origin,
    connectAttributes: `client-id="${escapeAttribute(clientId)}" base-url="${escapeAttribute(emulator.baseUrl)}" token-endpoint="${escapeAttribute(tokenEndpoint)}"`,
    csp,
    cspHeader,
    emulator,
    servePage(body, options = {}) {
      const path = options.path ?? `/page-${++pageCount}.html`;
      if (!path.startsWith('/')) throw new EsignError('invalid_argument', 'servePage: path must start with /.');
      const script = options.elements === false ? '' : `<script type="module" src="${CDN_PATH}"></script>`;
      const html = `<!doctype html><html lang="${escapeAttribute(options.lang ?? 'en')}"><head><meta charset="utf-8"><title>${escapeAttribute(options.title ?? 'Test page')}</title>${script}${options.head ?? ''}</head><body>${body}</body></html>`;
      const policy = options.csp === true ? `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; ${cspHeader}` : options.csp;
      site.pages.set(path, { html, headers: policy ? { 'Content-Security-Policy': policy } : {} });
      return `${site.origin}${path}`;
    },
    async accessToken(email, spaceId) {
      const answer = await devRoute<{ access_token: string }>('token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, spaceId, clientId }),
      });
      return answer.access_token;
    },
    async userId(email) {
      const seed = await devRoute<{ users: Array<{ email: string; userId: string }> }>('seed');
      const user = seed.users.find((u) => u.email.toLowerCase() === email.toLowerCase());
      if (!user) throw new EsignError('not_found', `No user ${email} in the emulator.`);
      return user.userId;
    },
    outbox,
    async acceptInvitation(email, options = {}) {
      const link = await newestLink(email, ['invitation'], () => true, 'invitation');
      const page = await fetch(link);
      const html = await page.text();
      if (!page.ok || !html.includes('id="invite-accepted"'))
        throw new EsignError('invalid_argument', `The invitation for ${email} was not accepted (${page.status}).`, { status: page.status });
      if (options.password !== undefined && html.includes('id="set-password"')) {
        const set = await fetch(`${link.href}/password`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password: options.password }),
        });
        const text = await set.text();
        if (!set.ok)
          throw new EsignError(
            'invalid_argument',
            `Setting ${email}'s password answered ${set.status}: ${text.includes('8 characters') ? 'use at least 8 characters' : 'refused'}.`,
            { status: set.status },
          );
      }
    },
    signEnvelope: (email, options = {}) => actOnEnvelope(email, 'sign', options.envelopeId),
    declineEnvelope: (email, options = {}) => actOnEnvelope(email, 'decline', options.envelopeId),
    advanceClock(seconds) {
      emulator.advanceClock(seconds);
      return emulator.now();
    },
    async injectFault(fault) {
      const { id } = await devRoute<{ id: string }>('faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fault) });
      return id;
    },
    async clearFaults() {
      await devRoute('faults', { method: 'DELETE' });
    },
    reset: () => emulator.reset(),
    async close() {
      await Promise.allSettled([proxy.close(), emulator.close(), site.close()]);
    },
  };
}
