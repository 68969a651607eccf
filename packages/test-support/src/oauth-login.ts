/**
 * Obtains an authorization code from the emulator without a browser: drives its consent HTML forms with
 * fetch (GET /openapi/v1/oauth/auth → consent page → POST login → POST Agree/Deny) and reads the code
 * from the final redirect's Location. Node only; for tests.
 *
 * Imports neither the emulator nor the token proxy (both packages' tests use it): `serveDemoProxy` is handed the
 * proxy's `serveTokenProxy`, and an emulator is whatever has a `baseUrl` and `registerRedirectUri`.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** RFC 7636 S256 pair: verifier = base64url(64 random bytes), challenge = base64url(SHA-256(verifier)). */
export function createPkcePair(): PkcePair {
  const verifier = randomBytes(64).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeOptions {
  /** Emulator business base URL (its consent pages live there too). */
  baseUrl: string;
  clientId?: string;
  redirectUri?: string;
  email?: string;
  password?: string;
  scope?: string;
  state?: string;
  pkce?: PkcePair;
  /** Open Mode: the Space to pick on the consent page (default: the first one offered). */
  chooseSpaceId?: string;
  /** Designated Space Mode: sent as space_id + login_hint (login_hint defaults to `email`). */
  designatedSpaceId?: string;
  loginHint?: string;
  /** Default 'agree'. */
  decision?: 'agree' | 'deny';
}

export interface AuthorizeResult {
  /** Present when the user agreed. */
  code?: string;
  /** Present when the service sent an OAuth error back (e.g. access_denied). */
  error?: string;
  errorDescription?: string;
  state: string;
  codeVerifier: string;
  codeChallenge: string;
  redirectUri: string;
  /** The final Location the service redirected to. */
  location: string;
}

export const DEMO_LOGIN = {
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  redirectUri: 'http://localhost:6006/iframe.html',
  email: 'alice@example.com',
  password: 'alice-password',
  scope: 'envelope:create envelope:read',
} as const;

/** Runs the whole consent flow and returns the redirect's parameters; throws on anything unexpected. */
export async function authorize(options: AuthorizeOptions): Promise<AuthorizeResult> {
  const clientId = options.clientId ?? DEMO_LOGIN.clientId;
  const redirectUri = options.redirectUri ?? DEMO_LOGIN.redirectUri;
  const email = options.email ?? DEMO_LOGIN.email;
  const password = options.password ?? DEMO_LOGIN.password;
  const state = options.state ?? randomBytes(16).toString('base64url');
  const pkce = options.pkce ?? createPkcePair();
  const base = options.baseUrl.replace(/\/+$/, '');

  const authUrl = new URL(`${base}/openapi/v1/oauth/auth`);
  const params: Record<string, string> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state,
    scope: options.scope ?? DEMO_LOGIN.scope,
  };
  if (options.designatedSpaceId) {
    params.space_id = options.designatedSpaceId;
    params.login_hint = options.loginHint ?? email;
  }
  for (const [k, v] of Object.entries(params)) authUrl.searchParams.set(k, v);

  const location = await driveConsent(authUrl, { email, password, ...options });
  return resultFrom(location, { state, pkce, redirectUri });
}

/**
 * A person on the emulator's consent pages, from an authorization URL (made by a client or by the token proxy's
 * login route): logs in, picks a Space (Open Mode) and agrees or denies. Returns where the service sends the browser.
 */
export async function driveConsent(
  authUrl: URL,
  options: { email?: string; password?: string; chooseSpaceId?: string; designatedSpaceId?: string; decision?: 'agree' | 'deny' } = {},
): Promise<string> {
  const email = options.email ?? DEMO_LOGIN.email;
  const password = options.password ?? DEMO_LOGIN.password;
  const designated = options.designatedSpaceId ?? authUrl.searchParams.get('space_id') ?? undefined;
  const start = await fetch(authUrl, { redirect: 'manual' });
  const consentLocation = start.headers.get('location');
  if (start.status !== 302 || !consentLocation) {
    throw new Error(`oauth/auth answered ${start.status} without a redirect: ${(await start.text()).slice(0, 300)}`);
  }
  await start.body?.cancel();
  const consentUrl = new URL(consentLocation, authUrl);
  // An early error (bad scope etc.) goes straight back to the redirect_uri.
  if (!consentUrl.pathname.startsWith('/consent')) return consentUrl.href;

  const loginPage = await fetch(consentUrl, { redirect: 'manual' });
  const loginHtml = await loginPage.text();
  if (loginPage.status !== 200) throw new Error(`consent page answered ${loginPage.status}`);
  const loginForm = formFields(loginHtml, 'login-form');
  const request = loginForm.request;
  if (!request) throw new Error('consent page has no request field');

  if (options.decision === 'deny') {
    const denied = await postForm(new URL('/consent/decision', consentUrl), { request, decision: 'deny' });
    return locationOf(denied);
  }

  const afterLogin = await postForm(new URL('/consent/login', consentUrl), { ...loginForm, email, password });
  const choiceHtml = await afterLogin.text();
  if (afterLogin.status !== 200) throw new Error(`login answered ${afterLogin.status}: ${alertText(choiceHtml)}`);
  const decision = formFields(choiceHtml, 'consent-form');
  const spaces = radioValues(choiceHtml, 'space_id');
  const fields: Record<string, string> = { request: decision.request ?? request, ticket: decision.ticket ?? '', decision: 'agree' };
  if (!designated) {
    const chosen = options.chooseSpaceId ?? spaces[0];
    if (!chosen) throw new Error(`no Space to choose: ${alertText(choiceHtml)}`);
    fields.space_id = chosen;
  }
  const agreed = await postForm(new URL('/consent/decision', consentUrl), fields);
  return locationOf(agreed);
}

/** `authorize` that insists on a code. */
export async function obtainAuthorizationCode(options: AuthorizeOptions): Promise<AuthorizeResult & { code: string }> {
  const result = await authorize(options);
  if (!result.code) throw new Error(`no code: ${result.error ?? 'unknown'} ${result.errorDescription ?? ''}`);
  if (result.state !== (options.state ?? result.state)) throw new Error('state mismatch');
  return result as AuthorizeResult & { code: string };
}

/** The form body `<esign-connect>` (or any client) sends to exchange the code. */
export function codeExchangeForm(result: AuthorizeResult, clientId?: string): URLSearchParams {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: result.code ?? '',
    code_verifier: result.codeVerifier,
    redirect_uri: result.redirectUri,
  });
  if (clientId) form.set('client_id', clientId);
  return form;
}

async function postForm(url: URL, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

function locationOf(response: Response): string {
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || !location) {
    throw new Error(`expected a redirect to the redirect_uri, got ${response.status}`);
  }
  return location;
}

function resultFrom(location: string, ctx: { state: string; pkce: PkcePair; redirectUri: string }): AuthorizeResult {
  const url = new URL(location);
  const returnedState = url.searchParams.get('state');
  if (returnedState !== ctx.state) throw new Error(`state came back as ${String(returnedState)}`);
  const code = url.searchParams.get('code') ?? undefined;
  const error = url.searchParams.get('error') ?? undefined;
  const errorDescription = url.searchParams.get('error_description') ?? undefined;
  return {
    ...(code ? { code } : {}),
    ...(error ? { error } : {}),
    ...(errorDescription ? { errorDescription } : {}),
    state: ctx.state,
    codeVerifier: ctx.pkce.verifier,
    codeChallenge: ctx.pkce.challenge,
    redirectUri: ctx.redirectUri,
    location,
  };
}

/** name → value of the hidden/text inputs of the form with the given id. */
function formFields(html: string, formId: string): Record<string, string> {
  const start = html.indexOf(`id="${formId}"`);
  if (start < 0) throw new Error(`no form #${formId} in the page: ${alertText(html)}`);
  const end = html.indexOf('</form>', start);
  const form = html.slice(start, end < 0 ? undefined : end);
  const fields: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input\b[^>]*>/g)) {
    const type = attr(input, 'type') ?? 'text';
    const name = attr(input, 'name');
    if (!name || type === 'radio' || type === 'password') continue;
    fields[name] = attr(input, 'value') ?? '';
  }
  return fields;
}

function radioValues(html: string, name: string): string[] {
  return [...html.matchAll(/<input\b[^>]*>/g)]
    .map(([input]) => input)
    .filter((input) => attr(input, 'type') === 'radio' && attr(input, 'name') === name)
    .map((input) => attr(input, 'value') ?? '');
}

function attr(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? decodeEntities(match[1]!) : undefined;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function alertText(html: string): string {
  const match = /role="alert"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  return match
    ? match[1]!.replace(/<[^>]+>/g, '').trim()
    : html
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .slice(0, 200);
}

/** The options `serveDemoProxy` fills in, every one of them a token proxy option (`ServeTokenProxyOptions`). */
export interface DemoProxyOptions {
  port?: number;
  clientId: string;
  clientSecret: string;
  baseUrl: string;
  allowedOrigins: string[];
  redirectUris?: string[];
}

/** What `serveDemoProxy` needs of the emulator (a `RunningEmulator` has it). */
export interface DemoEmulator {
  baseUrl: string;
  registerRedirectUri(clientId: string, redirectUri: string): void;
}

/**
 * A token proxy for the demo app in front of the emulator, as the Node tests start it: `serve` is the token proxy's
 * `serveTokenProxy` (a parameter, so this package does not depend on the package whose tests use it) and `overrides`
 * are the test's own options. Its callback (the default mode's redirect URI) is registered at the emulator, as an
 * integrator registers it.
 */
export async function serveDemoProxy<Options extends DemoProxyOptions, Served extends { callbackUrl: string | undefined }>(
  serve: (options: Options) => Promise<Served>,
  emulator: DemoEmulator,
  overrides: NoInfer<Partial<Options>> = {},
): Promise<Served> {
  const defaults: DemoProxyOptions = {
    port: 0,
    clientId: DEMO_LOGIN.clientId,
    clientSecret: DEMO_LOGIN.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: [],
    redirectUris: [DEMO_LOGIN.redirectUri],
  };
  // the defaults fill every required field of DemoProxyOptions; the rest of Options is optional or overridden
  const served = await serve({ ...defaults, ...overrides } as Options);
  if (served.callbackUrl) emulator.registerRedirectUri(overrides.clientId ?? DEMO_LOGIN.clientId, served.callbackUrl);
  return served;
}

/** A browser's cookie jar for one site (name -> value). */
export type Jar = Map<string, string>;

export function cookieHeader(jar: Jar): string | undefined {
  return jar.size > 0 ? [...jar].map(([n, v]) => `${n}=${v}`).join('; ') : undefined;
}

/** Applies Set-Cookie lines to the jar as a browser would (Max-Age=0 or an empty value deletes). */
export function applyCookies(jar: Jar, setCookies: string[]): void {
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (attributes.some((a) => /^max-age=0$/i.test(a)) || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

/** A GET with the jar's cookies, no redirect followed; the jar takes the answer's cookies. */
export async function getWithJar(url: string | URL, jar: Jar, headers: Record<string, string> = {}): Promise<Response> {
  const cookie = cookieHeader(jar);
  const response = await fetch(url, { redirect: 'manual', headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers } });
  applyCookies(jar, response.headers.getSetCookie());
  return response;
}

export interface ProxySignInOptions {
  /** The token proxy's base (its routes appended: `${proxyUrl}/login`). */
  proxyUrl: string;
  /** The page's origin (an allowed origin of the proxy). */
  origin: string;
  jar?: Jar;
  slot?: string;
  /** Designated Space Mode: `space_id` (and `login_hint`) through the login route. */
  spaceId?: string;
  loginHint?: string;
  scope?: string;
  /** `popup` (default) or `page` with `returnTo`. */
  display?: 'popup' | 'page';
  returnTo?: string;
  attempt?: string;
  email?: string;
  password?: string;
  chooseSpaceId?: string;
  decision?: 'agree' | 'deny';
  /** Extra headers on the login request (e.g. Sec-Fetch-Site). */
  headers?: Record<string, string>;
}

export interface ProxySignInResult {
  jar: Jar;
  /** Where the login route sent the browser (the authorization URL). */
  authorizationUrl: URL;
  /** Where the authorization server sent the browser back (the proxy's callback, with code and state). */
  callbackUrl: string;
  /** Where the callback sent the browser on (done page or the page), and the outcome it carries. */
  finalUrl: string;
  /** The callback's Set-Cookie lines (the session cookie, the pre-login cookie cleared). */
  callbackSetCookies: string[];
  outcome: URLSearchParams;
}

/**
 * The default mode's sign-in as a browser goes through it: the proxy's login route (its pre-login cookie in the
 * jar), the consent pages, the proxy's callback (the session cookie in the jar). Node only; for tests.
 */
export async function signInThroughProxy(options: ProxySignInOptions): Promise<ProxySignInResult> {
  const jar = options.jar ?? new Map();
  const query = new URLSearchParams({
    session: options.slot ?? (options.spaceId ? `space:${options.spaceId}` : 'open'),
    origin: options.origin,
    display: options.display ?? 'popup',
    attempt: options.attempt ?? randomBytes(16).toString('base64url'),
  });
  if (options.returnTo) query.set('return', options.returnTo);
  if (options.spaceId) query.set('space_id', options.spaceId);
  if (options.spaceId || options.loginHint) query.set('login_hint', options.loginHint ?? options.email ?? DEMO_LOGIN.email);
  query.set('scope', options.scope ?? DEMO_LOGIN.scope);
  const login = await getWithJar(`${options.proxyUrl}/login?${query}`, jar, options.headers);
  const to = login.headers.get('location');
  if (login.status !== 303 || !to) throw new Error(`the login route answered ${login.status}: ${(await login.text()).slice(0, 300)}`);
  const authorizationUrl = new URL(to);
  // the login route may answer with the outcome at once (a refusal): no consent then
  if (!authorizationUrl.pathname.endsWith('/oauth/auth'))
    return { jar, authorizationUrl, callbackUrl: '', finalUrl: to, outcome: outcomeOf(to), callbackSetCookies: [] };
  const callbackUrl = await driveConsent(authorizationUrl, options);
  const callback = await getWithJar(callbackUrl, jar);
  const finalUrl = callback.headers.get('location');
  if (callback.status !== 303 || !finalUrl) throw new Error(`the callback answered ${callback.status}: ${(await callback.text()).slice(0, 300)}`);
  return { jar, authorizationUrl, callbackUrl, finalUrl, outcome: outcomeOf(finalUrl), callbackSetCookies: callback.headers.getSetCookie() };
}

/** The outcome a callback sends on: the done page's fragment, or the page's `esign_*` parameters. */
export function outcomeOf(url: string): URLSearchParams {
  const parsed = new URL(url);
  if (parsed.hash) return new URLSearchParams(parsed.hash.slice(1));
  return new URLSearchParams({
    attempt: parsed.searchParams.get('esign_login') ?? '',
    outcome: parsed.searchParams.get('esign_outcome') ?? '',
    ...(parsed.searchParams.has('esign_error') ? { error: parsed.searchParams.get('esign_error')! } : {}),
  });
}
