/** The token proxy's options and their checks. Runtime-free. */
import { EsignError } from '@esign-elements/shared';
import { API_PREFIX } from '@esign-elements/shared';
import { isAllowedServiceUrl, isLoopbackHost } from '@esign-elements/shared';
import { decodeCookieKey } from './seal.js';
import type { TokenProxyEvent } from './event.js';
import { MemoryStore, type ProxyStore } from './store.js';

export interface TokenProxyOptions {
  clientId: string;
  /** Never logged, never returned. */
  clientSecret: string;
  /** Service base URL (https, or http on loopback for the emulator). */
  baseUrl: string;
  /** Exact browser origins (scheme://host[:port]) allowed to call the proxy with CORS. No wildcards. */
  allowedOrigins: string[];
  /**
   * The proxy's own public origin as browsers reach it (`https://app.example.com`), behind any reverse proxy or
   * load balancer. The default mode's callback is `${publicOrigin}${basePath}/callback` (register it at the service
   * exactly), and the cookies are Secure with the `__Host-` prefix whenever it is https. Required for the
   * token-mediating mode; plain http only on a loopback host (development: cookies without Secure).
   */
  publicOrigin?: string;
  /**
   * Browser-held mode only: the exact redirect URIs (pages of your site) a page's authorization_code exchange may
   * carry. The default mode needs none: its redirect URI is the proxy's own callback.
   */
  redirectUris?: string[];
  /** The service's authorization page. Default `${baseUrl}/openapi/v1/oauth/auth`, or the issuer metadata's. */
  authorizationEndpoint?: string;
  /** Default `${baseUrl}/openapi/v1/oauth/token`. */
  tokenEndpoint?: string;
  /** (assumption) Default `${baseUrl}/openapi/v1/oauth/revoke` (RFC 7009). */
  revocationEndpoint?: string;
  /**
   * Optional RFC 8414 issuer: the token and revocation endpoints are read from
   * `${issuer}/.well-known/oauth-authorization-server` on first use (its `issuer` must match); endpoints
   * given explicitly win. https, or http on loopback.
   */
  issuer?: string;
  /** How the secret reaches the service: form field (`post`, client_secret_post, default) or HTTP Basic. */
  clientAuth?: 'post' | 'basic';
  /**
   * Keys of the session cookie (token-mediating mode): base64 or base64url of 32 random bytes each
   * (`esign-token-proxy --generate-cookie-key`). The first encrypts, all decrypt, so a new key goes first
   * and the old one stays until the sessions it sealed are over. Required unless only
   * `browserHeldRefreshTokens` is wanted.
   */
  cookieKeys?: string[];
  /** `Domain` attribute of the session cookie (default: none, the proxy's host only). */
  cookieDomain?: string;
  /**
   * Opt-in: the sites allowed to show the app inside their own frame (`https://admin.shopify.com`), exact origins.
   * With it every cookie of the proxy is `Partitioned; SameSite=None; Secure` (each framing site gets its own jar),
   * a framed page claims its popup's sign-in through a one-time handoff (`POST {basePath}/login/handoff`), and the
   * token calls need an `Origin`. Default none: nothing changes (docs/guides/inside-another-sites-frame.md).
   */
  framedBy?: string[];
  /** Absolute lifetime of a session (cookie Max-Age from the sign-in). Default 30 days. */
  sessionMaxAgeSeconds?: number;
  /** A session unused this long ends (revoked at the service first). Default 24 hours; at most the absolute lifetime. */
  sessionIdleSeconds?: number;
  /** How long a sign-in may take from the login route to the callback (pre-login cookie Max-Age). Default 600. */
  loginTimeoutSeconds?: number;
  /** Path prefix of the routes: `${basePath}/login`, `/callback`, `/login/done`, `/token`, `/revoke`. Default ''. */
  basePath?: string;
  /**
   * Opt-in: also serve requests without a `session` the way the proxy did before the token-mediating mode,
   * returning refresh tokens to the browser. Default false (such requests get 400 invalid_request).
   */
  browserHeldRefreshTokens?: boolean;
  /** Upstream timeout, whole answer included. Default 10 000 ms → 504. */
  timeoutMs?: number;
  /** Request body limit in bytes. Default 8 KiB → 413. */
  maxBodyBytes?: number;
  /** Upstream answer limit in bytes. Default 64 KiB → 502. */
  maxUpstreamBytes?: number;
  /** Default 60 requests per minute per caller (session, else client address); `false` turns it off. */
  rateLimit?: { windowMs: number; max: number } | false;
  /**
   * Addresses of reverse proxies / load balancers in front of this one. Only a request whose remote address
   * is one of them has its `X-Forwarded-For` read (the right-most entry that is not a trusted proxy).
   */
  trustedProxies?: string[];
  /**
   * The caller's address, overriding the above: called with the request and the handler's second argument (the
   * runtime's or framework's context as the recipe passes it), e.g. `(request) => request.headers.get('cf-connecting-ip')`
   * on Workers. A handler may instead be called as `handler(request, { clientAddress })`. With no address at all the
   * rate limits are per sign-in and per session, under a global guard (docs/proxy.md, "The caller's address").
   */
  clientAddress?: (request: Request, context: unknown) => string | null | undefined;
  /** Where the proxy's one-time warnings go (an unknown caller address, say). Default `console.warn`. */
  onWarning?: (message: string) => void;
  /** Treat a request whose Origin equals the request URL's own origin as allowed (no CORS needed). Default true. */
  allowSameOrigin?: boolean;
  /**
   * How long a refresh's answer is kept for the same session presenting the same (old) refresh token again,
   * after its answer was lost (ms). Default 10 000; 0 turns it off (concurrent requests still share one call).
   */
  refreshReplayMs?: number;
  /** Shared state (rate-limit counters, refresh dedupe/replay). Default: a `MemoryStore` (one process). */
  store?: ProxyStore;
  /**
   * Observability hook, called once per request to the five routes after its answer is made (not for `/health`
   * and `/ready`); never receives a token, code, secret or key. Errors thrown by it are ignored. Feeds
   * `createProxyMetrics()` and `createJsonLog()` (see `combineEvents`).
   */
  onEvent?: (event: TokenProxyEvent) => void;
  /**
   * Believe an `X-Request-Id` the request comes with even when it does not come from one of `trustedProxies`
   * (on a runtime whose edge sets it and that gives the proxy no socket address). Default false: an incoming id
   * is used only from a trusted proxy; otherwise the proxy makes one. Either way it is echoed in `X-Request-Id`.
   */
  trustRequestId?: boolean;
  /** Upstream fetch (oauth4webapi's customFetch), for tests or custom agents. Default: the global fetch. */
  fetch?: typeof fetch;
}

export interface ResolvedConfig {
  clientId: string;
  clientSecret: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  tokenEndpointSet: boolean;
  revocationEndpointSet: boolean;
  issuer: string | undefined;
  /** The issuer an `iss` in an authorization answer must name: `issuer`, else the base URL without a trailing slash. */
  baseIssuer: string;
  allowedOrigins: Set<string>;
  redirectUris: Set<string>;
  /** The proxy's public origin (token-mediating mode), e.g. `https://app.example.com`. */
  publicOrigin: string | undefined;
  /** `${publicOrigin}${basePath}/callback`: the default mode's redirect URI. */
  callbackUrl: string | undefined;
  /** Cookies are Secure (and prefixed): the public origin is https. */
  secureCookies: boolean;
  authorizationEndpoint: string;
  authorizationEndpointSet: boolean;
  sessionIdleSeconds: number;
  loginTimeoutSeconds: number;
  clientAuth: 'post' | 'basic';
  cookieKeys: Uint8Array[];
  cookieDomain: string | undefined;
  /** The framing sites' origins (`framedBy`); empty: the proxy serves top-level pages only (the default). */
  framedBy: Set<string>;
  sessionMaxAgeSeconds: number;
  basePath: string;
  browserHeld: boolean;
  timeoutMs: number;
  maxBodyBytes: number;
  maxUpstreamBytes: number;
  rateLimit: { windowMs: number; max: number } | undefined;
  trustedProxies: Set<string>;
  clientAddress: TokenProxyOptions['clientAddress'];
  onWarning: (message: string) => void;
  allowSameOrigin: boolean;
  refreshReplayMs: number;
  store: ProxyStore;
  onEvent: ((event: TokenProxyEvent) => void) | undefined;
  trustRequestId: boolean;
  fetch: typeof fetch | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** A clean shutdown waits for the longest call to the service (timeoutMs) and this much more. */
const SHUTDOWN_MARGIN_MS = 5_000;

/** How long a clean shutdown may take by default: the longest call to the service plus a margin. */
export function defaultShutdownMs(timeoutMs: number | undefined): number {
  return (timeoutMs ?? DEFAULT_TIMEOUT_MS) + SHUTDOWN_MARGIN_MS;
}
const DEFAULT_MAX_BODY = 8 * 1024;
const DEFAULT_MAX_UPSTREAM = 64 * 1024;
const DEFAULT_RATE_LIMIT = { windowMs: 60_000, max: 60 };
const DEFAULT_REFRESH_REPLAY_MS = 10_000;
const DEFAULT_SESSION_MAX_AGE = 30 * 24 * 3600;
const DEFAULT_SESSION_IDLE = 24 * 3600;
const DEFAULT_LOGIN_TIMEOUT = 600;
const FORBIDDEN_REDIRECT_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ws:', 'wss:', 'ftp:']);

/**
 * Checks the options; throws `EsignError('invalid_config')` on unsafe or missing ones, naming every mistake found,
 * one per line (never quoting a secret or key).
 */
export function resolveConfig(options: TokenProxyOptions): ResolvedConfig {
  if (!options || typeof options !== 'object') throw new EsignError('invalid_config', 'createTokenProxy needs options.');
  // each check adds its mistake and the checks go on, so that one start names them all
  const problems: string[] = [];
  const fail = (message: string): void => {
    problems.push(message);
  };
  if (typeof options.clientId !== 'string' || options.clientId.trim() === '') fail('clientId is required.');
  if (typeof options.clientSecret !== 'string' || options.clientSecret === '') fail('clientSecret is required.');
  const baseValid = typeof options.baseUrl === 'string' && isAllowedServiceUrl(options.baseUrl, { allowLoopbackHttp: true });
  if (!baseValid) fail('baseUrl must be an https URL (or http on localhost/127.0.0.1/[::1]).');
  const base = baseValid ? options.baseUrl.replace(/\/+$/, '') : '';
  const tokenEndpoint = options.tokenEndpoint ?? `${base}${API_PREFIX}/oauth/token`;
  const revocationEndpoint = options.revocationEndpoint ?? `${base}${API_PREFIX}/oauth/revoke`;
  const authorizationEndpoint = options.authorizationEndpoint ?? `${base}${API_PREFIX}/oauth/auth`;
  for (const [name, url, given] of [
    ['tokenEndpoint', tokenEndpoint, options.tokenEndpoint],
    ['revocationEndpoint', revocationEndpoint, options.revocationEndpoint],
    ['authorizationEndpoint', authorizationEndpoint, options.authorizationEndpoint],
  ] as const) {
    // one derived from a bad baseUrl is that mistake, said once above
    if ((given !== undefined || baseValid) && (typeof url !== 'string' || !isAllowedServiceUrl(url, { allowLoopbackHttp: true })))
      fail(`${name} must be an https URL (or http on loopback).`);
  }

  if (options.issuer !== undefined && (typeof options.issuer !== 'string' || !isAllowedServiceUrl(options.issuer, { allowLoopbackHttp: true }))) {
    fail('issuer must be an https URL (or http on loopback).');
  }

  const allowedOrigins = new Set<string>();
  for (const origin of options.allowedOrigins ?? []) {
    const normalized = normalizeOrigin(origin, fail);
    if (normalized !== undefined) allowedOrigins.add(normalized);
  }

  const redirectUris = new Set<string>();
  for (const uri of options.redirectUris ?? []) {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      fail(`redirectUris: not a URL: ${JSON.stringify(uri)}`);
      continue;
    }
    const scheme = parsed.protocol;
    if (FORBIDDEN_REDIRECT_SCHEMES.has(scheme)) fail(`redirectUris: scheme ${scheme} is not allowed.`);
    else if (parsed.username || parsed.password) fail('redirectUris: credentials in a redirect URI are not allowed.');
    else if (scheme === 'http:' && !isLoopbackHost(parsed.hostname))
      fail(`redirectUris: plain http is refused by the service except on loopback hosts: ${uri}`);
    else redirectUris.add(uri);
  }

  const clientAuth = options.clientAuth ?? 'post';
  if (clientAuth !== 'post' && clientAuth !== 'basic') fail("clientAuth must be 'post' or 'basic'.");
  const positive = (value: number | undefined, fallback: number, name: string): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      fail(`${name} must be a positive number.`);
      return fallback;
    }
    return v;
  };
  const rate = options.rateLimit === false ? undefined : (options.rateLimit ?? DEFAULT_RATE_LIMIT);
  if (rate) {
    positive(rate.windowMs, 1, 'rateLimit.windowMs');
    positive(rate.max, 1, 'rateLimit.max');
  }
  const replayMs = options.refreshReplayMs ?? DEFAULT_REFRESH_REPLAY_MS;
  if (typeof replayMs !== 'number' || !Number.isFinite(replayMs) || replayMs < 0) fail('refreshReplayMs must be 0 or a positive number of milliseconds.');

  const browserHeld = options.browserHeldRefreshTokens === true;
  const cookieKeys: Uint8Array[] = [];
  for (const [i, key] of (options.cookieKeys ?? []).entries()) {
    const bytes = decodeCookieKey(key);
    // never quote the key
    if (!bytes) fail(`cookieKeys[${i}] is not base64/base64url of 32 bytes (make one with esign-token-proxy --generate-cookie-key).`);
    else cookieKeys.push(bytes);
  }
  const keysGiven = (options.cookieKeys ?? []).length > 0;
  if (!keysGiven && !browserHeld) {
    fail(
      'cookieKeys is required: the token-mediating mode keeps each session in a cookie encrypted with them (make one with esign-token-proxy --generate-cookie-key).',
    );
  }
  if (browserHeld && redirectUris.size === 0 && (options.redirectUris ?? []).length === 0)
    fail('redirectUris must list at least one redirect URI for the browser-held mode (the pages that receive the code).');

  let basePath = options.basePath ?? '';
  if (typeof basePath !== 'string' || (basePath !== '' && (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+\/?$/.test(basePath) || /\/\.\.?(\/|$)/.test(basePath)))) {
    fail('basePath must be empty or a path like /api/esign.');
    basePath = '';
  }
  basePath = basePath.replace(/\/+$/, '');

  let publicOrigin: string | undefined;
  if (options.publicOrigin !== undefined) {
    publicOrigin = normalizeOrigin(options.publicOrigin, (message) => fail(message.replace('allowedOrigins', 'publicOrigin')));
    if (publicOrigin !== undefined) {
      const { protocol, hostname } = new URL(publicOrigin);
      if (protocol !== 'https:' && !isLoopbackHost(hostname)) {
        fail('publicOrigin must be https (plain http only on localhost/127.0.0.1/[::1] for development).');
        publicOrigin = undefined;
      }
    }
  } else if (keysGiven) {
    fail(
      'publicOrigin is required for the token-mediating mode: the origin browsers reach the proxy at (e.g. https://app.example.com); its callback ${publicOrigin}${basePath}/callback is the redirect URI to register at the service.',
    );
  }

  let cookieDomain = options.cookieDomain;
  if (cookieDomain !== undefined) {
    cookieDomain = String(cookieDomain).trim().replace(/^\./, '');
    if (!/^[A-Za-z0-9.-]+$/.test(cookieDomain) || cookieDomain === '') fail('cookieDomain must be a host name like example.com.');
  }

  const framedBy = new Set<string>();
  for (const origin of options.framedBy ?? []) {
    const normalized = normalizeOrigin(origin, (message) => fail(message.replace('allowedOrigins', 'framedBy')));
    if (normalized !== undefined) framedBy.add(normalized);
  }
  // Partitioned cookies must be Secure: https, or a loopback http origin that the browser treats as trustworthy
  if (framedBy.size > 0 && !keysGiven)
    fail('framedBy needs the token-mediating mode (cookieKeys and publicOrigin): a framed page keeps its session in a partitioned cookie.');

  const trustedProxies = new Set<string>();
  for (const address of options.trustedProxies ?? []) {
    if (typeof address !== 'string' || address.trim() === '') fail('trustedProxies lists IP addresses.');
    else trustedProxies.add(normalizeAddress(address.trim()));
  }

  const sessionMaxAgeSeconds = Math.floor(positive(options.sessionMaxAgeSeconds, DEFAULT_SESSION_MAX_AGE, 'sessionMaxAgeSeconds'));
  const sessionIdleSeconds = Math.min(sessionMaxAgeSeconds, Math.floor(positive(options.sessionIdleSeconds, DEFAULT_SESSION_IDLE, 'sessionIdleSeconds')));
  const loginTimeoutSeconds = Math.floor(positive(options.loginTimeoutSeconds, DEFAULT_LOGIN_TIMEOUT, 'loginTimeoutSeconds'));
  const timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxBodyBytes = positive(options.maxBodyBytes, DEFAULT_MAX_BODY, 'maxBodyBytes');
  const maxUpstreamBytes = positive(options.maxUpstreamBytes, DEFAULT_MAX_UPSTREAM, 'maxUpstreamBytes');
  if (problems.length > 0) throw new EsignError('invalid_config', problems.join('\n'));
  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    tokenEndpoint,
    revocationEndpoint,
    tokenEndpointSet: options.tokenEndpoint !== undefined,
    revocationEndpointSet: options.revocationEndpoint !== undefined,
    issuer: options.issuer,
    baseIssuer: options.issuer ?? base,
    allowedOrigins,
    redirectUris,
    publicOrigin,
    callbackUrl: publicOrigin ? `${publicOrigin}${basePath}/callback` : undefined,
    secureCookies: publicOrigin !== undefined && publicOrigin.startsWith('https:'),
    authorizationEndpoint,
    authorizationEndpointSet: options.authorizationEndpoint !== undefined,
    sessionIdleSeconds,
    loginTimeoutSeconds,
    clientAuth,
    cookieKeys,
    cookieDomain,
    framedBy,
    sessionMaxAgeSeconds,
    basePath,
    browserHeld,
    timeoutMs,
    maxBodyBytes,
    maxUpstreamBytes,
    rateLimit: rate,
    trustedProxies,
    clientAddress: options.clientAddress,
    onWarning: options.onWarning ?? ((message) => console.warn(message)),
    allowSameOrigin: options.allowSameOrigin ?? true,
    refreshReplayMs: replayMs,
    store: options.store ?? new MemoryStore(),
    onEvent: options.onEvent,
    trustRequestId: options.trustRequestId === true,
    fetch: options.fetch,
  };
}

/** `scheme://host[:port]` of `origin`, or undefined after telling `fail` why not. */
function normalizeOrigin(origin: string, fail: (message: string) => void): string | undefined {
  if (typeof origin !== 'string' || origin === '*' || origin === 'null') {
    fail(`allowedOrigins: ${JSON.stringify(origin)} is not allowed; list exact origins.`);
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    fail(`allowedOrigins: not an origin: ${JSON.stringify(origin)}`);
    return undefined;
  }
  if (
    (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
    (parsed.pathname !== '/' && parsed.pathname !== '') ||
    parsed.search ||
    parsed.hash ||
    parsed.username
  ) {
    fail(`allowedOrigins: expected scheme://host[:port], got ${JSON.stringify(origin)}`);
    return undefined;
  }
  return parsed.origin;
}

/** An IP address as compared: lower case, brackets and an IPv4-mapped IPv6 prefix dropped. */
export function normalizeAddress(address: string): string {
  const a = address
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice('::ffff:'.length) : a;
}
