/**
 * The token proxy's rules, free of any HTTP framework or runtime: `createTokenProxy` drives them from a
 * Fetch `Request`, `serveTokenProxy` straight from Node's `IncomingMessage` (no Request/Response objects,
 * no WHATWG streams on its hot path). Both see the same checks, in the same order, and the same answers.
 */

import { EsignError } from '../core/errors.js';
import { API_PREFIX } from '../core/service-types.js';
import { isAllowedServiceUrl, isLoopbackHost } from '../core/url.js';
import { FixedWindowLimiter } from './rate-limit.js';
import { RefreshReplay } from './replay.js';

export type TokenProxyEventType = 'authorization_code' | 'refresh_token' | 'revoke' | 'preflight' | 'rejected';

/** What `onEvent` sees: never a token, code, secret or body. */
export interface TokenProxyEvent {
  type: TokenProxyEventType;
  status: number;
  durationMs: number;
  /** A refresh answered from the replay window (`refreshReplayMs`), without a call to the service. */
  replayed?: true;
}

export interface TokenProxyOptions {
  clientId: string;
  /** Never logged, never returned. */
  clientSecret: string;
  /** Service base URL (https, or http on loopback for the emulator). */
  baseUrl: string;
  /** Exact browser origins (scheme://host[:port]) allowed to call the proxy. No wildcards. */
  allowedOrigins: string[];
  /** Exact redirect URIs an authorization_code exchange may carry. */
  redirectUris: string[];
  /** Default `${baseUrl}/openapi/v1/oauth/token`. */
  tokenEndpoint?: string;
  /** (assumption) Default `${baseUrl}/openapi/v1/oauth/revoke` (RFC 7009). */
  revocationEndpoint?: string;
  /** How the secret reaches the service: form field (`post`, default) or HTTP Basic. */
  clientAuth?: 'post' | 'basic';
  /** Upstream timeout, whole answer included. Default 10 000 ms → 504. */
  timeoutMs?: number;
  /** Request body limit in bytes. Default 8 KiB → 413. */
  maxBodyBytes?: number;
  /** Upstream answer limit in bytes. Default 64 KiB → 502. */
  maxUpstreamBytes?: number;
  /** Default 60 requests per minute per client key; `false` turns it off. */
  rateLimit?: { windowMs: number; max: number } | false;
  /**
   * Rate-limit bucket of a request. Default: its Origin header, or one shared bucket when absent.
   * Under `serveTokenProxy` the Request it receives carries the method, URL and headers, not the body.
   */
  clientKey?: (request: Request) => string;
  /** Treat a request whose Origin equals the request URL's own origin as allowed (no CORS needed). Default true. */
  allowSameOrigin?: boolean;
  /**
   * How long the answer to a refresh-token grant is remembered (ms), so that the same refresh token sent
   * again gets the same new tokens instead of counting as reuse, which makes the service revoke the whole
   * grant: the browser may lose an answer (a dropped connection, a closed tab, a timeout) after the service
   * rotated the token. Requests with one refresh token at the same time share one call to the service, and
   * a refresh goes on to the end even if the browser goes away. Within the window the old refresh token
   * yields those same tokens rather than revoking the grant. Default 30 000; 0 turns it off.
   */
  refreshReplayMs?: number;
  /** Observability hook; receives `{type, status, durationMs, replayed?}` only. Errors thrown by it are ignored. */
  onEvent?: (event: TokenProxyEvent) => void;
  /**
   * Upstream fetch, for tests or custom agents. Default: the global `fetch` in `createTokenProxy`; in
   * `serveTokenProxy`, a keep-alive `node:http`/`node:https` client with the same limits and mapping.
   */
  fetch?: typeof fetch;
}

/** The header browsers must send; a cross-site HTML form cannot set it. */
export const PROXY_HEADER = 'X-Esign-Proxy';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BODY = 8 * 1024;
const DEFAULT_MAX_UPSTREAM = 64 * 1024;
const DEFAULT_RATE_LIMIT = { windowMs: 60_000, max: 60 };
const DEFAULT_REFRESH_REPLAY_MS = 30_000;
/** The client of a call that must finish even if the browser goes away (a refresh the service may rotate). */
const NEVER_ABORTS: AbortSource = { onAbort: () => () => undefined };

const TOKEN_FIELDS = ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope'] as const;
const REVOKE_FIELDS = ['token', 'token_type_hint'] as const;
const KNOWN_RESPONSE_FIELDS = ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'space_id'];
const FORBIDDEN_REDIRECT_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ws:', 'wss:', 'ftp:']);

/** Content types of the answers (the Hono-based handler this replaced used both; kept as they were). */
const JSON_TYPE = 'application/json; charset=utf-8';
const OAUTH_ERROR_TYPE = 'application/json';

// --- the seams: a request, an answer, an upstream call ----------------------------------------------

/** Something that tells when the client went away. */
export interface AbortSource {
  /** Calls `listener` if the client goes away; returns the unsubscribe. */
  onAbort(listener: () => void): () => void;
}

/** What the rules need from an incoming request; each adapter supplies one. */
export interface ProxyRequest extends AbortSource {
  readonly method: string;
  /** The absolute request URL. */
  readonly url: string;
  /** Its path (as `new URL(url).pathname`). */
  readonly pathname: string;
  /** A header by lower-case name; repeated headers joined with ", " (as `Headers.get`); undefined when absent. */
  header(name: string): string | undefined;
  /**
   * The body as UTF-8 text (a leading BOM dropped, as `Request.text()` does), or undefined when it is
   * over `max` bytes (a declared Content-Length is trusted when there is no Transfer-Encoding).
   */
  text(max: number): Promise<string | undefined>;
  /** The rate-limit bucket (a throw means the shared bucket). */
  clientKey(): string;
}

/** An answer, before the headers every answer gets (`finishAnswer`). */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  /** A JSON text, or null (preflight). */
  body: string | null;
}

/** One POST to the service, as the proxy makes it. */
export interface UpstreamCall {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Whole answer included. */
  timeoutMs: number;
  /** Answers larger than this are not read to the end. */
  maxBytes: number;
  /** Cancel the call when this client goes away. */
  client: AbortSource;
}

/** What came back: an answer read to its end, or why there is none. */
export type UpstreamResult =
  | { status: number; contentType: string; retryAfter: string | null; text: string }
  | 'oversized'
  | 'timeout'
  | 'unreachable';

/** Makes one upstream call; never throws (failures are results). Never follows redirects. */
export type Upstream = (call: UpstreamCall) => Promise<UpstreamResult>;

export interface ResolvedConfig {
  clientId: string;
  clientSecret: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  allowedOrigins: Set<string>;
  redirectUris: Set<string>;
  clientAuth: 'post' | 'basic';
  /** `Authorization` for `clientAuth: 'basic'`, computed once. */
  basicAuthorization: string | undefined;
  timeoutMs: number;
  maxBodyBytes: number;
  maxUpstreamBytes: number;
  limiter: FixedWindowLimiter | undefined;
  /** The user's `clientKey`, if any. */
  customClientKey: ((request: Request) => string) | undefined;
  allowSameOrigin: boolean;
  onEvent: ((event: TokenProxyEvent) => void) | undefined;
  /** The user's `fetch`, if any. */
  customFetch: typeof fetch | undefined;
  upstream: Upstream;
  replay: RefreshReplay | undefined;
}

// --- configuration ---------------------------------------------------------------------------------

/** Checks the options; throws `EsignError('invalid_config')` on unsafe or missing ones (never quoting the secret). */
export function resolveConfig(options: TokenProxyOptions): ResolvedConfig {
  const fail = (message: string): never => {
    throw new EsignError('invalid_config', message);
  };
  if (!options || typeof options !== 'object') fail('createTokenProxy needs options.');
  if (typeof options.clientId !== 'string' || options.clientId.trim() === '') fail('clientId is required.');
  if (typeof options.clientSecret !== 'string' || options.clientSecret === '') fail('clientSecret is required.');
  if (typeof options.baseUrl !== 'string' || !isAllowedServiceUrl(options.baseUrl, { allowLoopbackHttp: true })) {
    fail('baseUrl must be an https URL (or http on localhost/127.0.0.1/[::1]).');
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const tokenEndpoint = options.tokenEndpoint ?? `${base}${API_PREFIX}/oauth/token`;
  const revocationEndpoint = options.revocationEndpoint ?? `${base}${API_PREFIX}/oauth/revoke`;
  for (const [name, url] of [['tokenEndpoint', tokenEndpoint], ['revocationEndpoint', revocationEndpoint]] as const) {
    if (!isAllowedServiceUrl(url, { allowLoopbackHttp: true })) fail(`${name} must be an https URL (or http on loopback).`);
  }

  const allowedOrigins = new Set<string>();
  for (const origin of options.allowedOrigins ?? []) allowedOrigins.add(normalizeOrigin(origin, fail));

  const redirectUris = new Set<string>();
  for (const uri of options.redirectUris ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(uri);
    } catch {
      fail(`redirectUris: not a URL: ${JSON.stringify(uri)}`);
    }
    const scheme = parsed!.protocol;
    if (FORBIDDEN_REDIRECT_SCHEMES.has(scheme)) fail(`redirectUris: scheme ${scheme} is not allowed.`);
    if (scheme === 'http:' && !isLoopbackHost(parsed!.hostname)) {
      fail(`redirectUris: plain http is refused by the service except on loopback hosts: ${uri}`);
    }
    redirectUris.add(uri);
  }
  if (redirectUris.size === 0) fail('redirectUris must list at least one redirect URI.');

  const clientAuth = options.clientAuth ?? 'post';
  if (clientAuth !== 'post' && clientAuth !== 'basic') fail("clientAuth must be 'post' or 'basic'.");
  const positive = (value: number | undefined, fallback: number, name: string): number => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v <= 0) fail(`${name} must be a positive number.`);
    return v;
  };
  const rate = options.rateLimit === false ? undefined : (options.rateLimit ?? DEFAULT_RATE_LIMIT);
  if (rate) {
    positive(rate.windowMs, 1, 'rateLimit.windowMs');
    positive(rate.max, 1, 'rateLimit.max');
  }
  // RFC 6749 section 2.3.1: form-encode id and secret before Base64.
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  const customFetch = options.fetch;
  const replayMs = options.refreshReplayMs ?? DEFAULT_REFRESH_REPLAY_MS;
  if (!Number.isFinite(replayMs) || replayMs < 0) fail('refreshReplayMs must be 0 or a positive number of milliseconds.');
  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    tokenEndpoint,
    revocationEndpoint,
    allowedOrigins,
    redirectUris,
    clientAuth,
    basicAuthorization: clientAuth === 'basic' ? `Basic ${btoa(`${encode(options.clientId)}:${encode(options.clientSecret)}`)}` : undefined,
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_MAX_BODY, 'maxBodyBytes'),
    maxUpstreamBytes: positive(options.maxUpstreamBytes, DEFAULT_MAX_UPSTREAM, 'maxUpstreamBytes'),
    limiter: rate ? new FixedWindowLimiter(rate) : undefined,
    customClientKey: options.clientKey,
    allowSameOrigin: options.allowSameOrigin ?? true,
    onEvent: options.onEvent,
    customFetch,
    upstream: fetchUpstream(customFetch ? (input, init) => customFetch(input, init) : (input, init) => globalThis.fetch(input, init)),
    replay: replayMs > 0 ? new RefreshReplay(replayMs) : undefined,
  };
}

function normalizeOrigin(origin: string, fail: (message: string) => never): string {
  if (typeof origin !== 'string' || origin === '*' || origin === 'null') fail(`allowedOrigins: ${JSON.stringify(origin)} is not allowed; list exact origins.`);
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return fail(`allowedOrigins: not an origin: ${JSON.stringify(origin)}`);
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash || parsed.username) {
    fail(`allowedOrigins: expected scheme://host[:port], got ${JSON.stringify(origin)}`);
  }
  return parsed.origin;
}

// --- one request ------------------------------------------------------------------------------------

/**
 * Runs the rules on one request and reports it to `onEvent`: the whole proxy, minus the transport.
 * Never throws; an unexpected failure is a 500 `server_error`.
 */
export async function runProxy(config: ResolvedConfig, request: ProxyRequest): Promise<ProxyAnswer> {
  const started = performance.now();
  const state: RequestState = { type: 'rejected', corsOrigin: undefined, preflight: false };
  let answer: ProxyAnswer;
  try {
    answer = finishAnswer(await route(config, request, state), state);
  } catch {
    answer = finishAnswer(jsonAnswer(500, { error: 'server_error', error_description: 'The token proxy failed unexpectedly.' }), { type: state.type, corsOrigin: undefined, preflight: false });
  }
  if (config.onEvent) {
    try {
      const event: TokenProxyEvent = { type: state.type, status: answer.status, durationMs: Math.round(performance.now() - started) };
      if (state.replayed) event.replayed = true;
      config.onEvent(event);
    } catch {
      // an observer's failure must not change the answer
    }
  }
  return answer;
}

interface RequestState {
  type: TokenProxyEventType;
  /** Set once the request passed the origin check with an Origin from `allowedOrigins`: answers get CORS headers. */
  corsOrigin: string | undefined;
  preflight: boolean;
  /** Answered from the refresh replay window. */
  replayed?: boolean;
}

/** The checks, in order; the first one that fails answers. */
async function route(config: ResolvedConfig, request: ProxyRequest, state: RequestState): Promise<ProxyAnswer> {
  // Route on the last path segment so the handler can be mounted under any prefix.
  const segment = lastSegment(request.pathname);
  if (segment !== 'token' && segment !== 'revoke') return oauthError(404, 'not_found', 'Only …/token and …/revoke are served here.');
  const method = request.method;
  if (method !== 'POST' && method !== 'OPTIONS') return oauthError(405, 'invalid_request', 'Use POST.', { Allow: 'POST, OPTIONS' });
  if (method === 'OPTIONS') state.type = 'preflight';

  // A browser on a foreign site gets nothing, not even a CORS answer to read.
  const origin = request.header('origin');
  if (origin !== undefined && !originAllowed(config, origin, request.url)) {
    return oauthError(403, 'access_denied', 'This origin is not allowed to use the token proxy.');
  }
  // CORS: only for an exact allowed origin, never a wildcard, never credentials.
  if (origin !== undefined && config.allowedOrigins.has(origin)) state.corsOrigin = origin;
  if (method === 'OPTIONS') {
    state.preflight = true;
    return { status: 204, headers: {}, body: null };
  }

  if (config.limiter) {
    const decision = config.limiter.hit(safeKey(request));
    if (!decision.allowed) {
      return oauthError(429, 'temporarily_unavailable', 'Too many token requests; retry later.', { 'Retry-After': String(decision.retryAfterSeconds) });
    }
  }
  if (request.header('x-esign-proxy') !== '1') {
    return oauthError(403, 'access_denied', `The ${PROXY_HEADER}: 1 request header is required.`);
  }
  if (!isUtf8Form(request.header('content-type'))) {
    return oauthError(415, 'invalid_request', 'Send an application/x-www-form-urlencoded (UTF-8) body.');
  }
  const text = await request.text(config.maxBodyBytes);
  if (text === undefined) return oauthError(413, 'invalid_request', `The request body is over ${config.maxBodyBytes} bytes.`);
  const form = new URLSearchParams(text);
  return segment === 'revoke' ? handleRevoke(config, request, form, state) : handleToken(config, request, form, state);
}

function lastSegment(pathname: string): string | undefined {
  return pathname.replace(/\/+$/, '').split('/').pop();
}

function originAllowed(config: ResolvedConfig, origin: string, requestUrl: string): boolean {
  if (config.allowedOrigins.has(origin)) return true;
  if (!config.allowSameOrigin || origin === 'null') return false;
  try {
    return new URL(requestUrl).origin === origin;
  } catch {
    return false;
  }
}

function safeKey(request: ProxyRequest): string {
  try {
    return request.clientKey();
  } catch {
    return 'global';
  }
}

function isUtf8Form(contentType: string | undefined): boolean {
  const [mediaType = '', ...params] = (contentType ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return mediaType === 'application/x-www-form-urlencoded' && (charset === undefined || charset === 'utf-8');
}

/** Picks the allowed fields; RFC 6749 section 3.2 forbids repeating a parameter. */
function pickFields(form: URLSearchParams, fields: readonly string[]): { values: Map<string, string> } | { duplicate: string } {
  const values = new Map<string, string>();
  for (const field of fields) {
    const all = form.getAll(field);
    if (all.length > 1) return { duplicate: field };
    if (all.length === 1 && all[0] !== '') values.set(field, all[0]!);
  }
  return { values };
}

/** A client_id in the request must be ours; 401 invalid_client, as the service answers an unknown client. */
function checkClientId(config: ResolvedConfig, form: URLSearchParams): ProxyAnswer | undefined {
  const ids = form.getAll('client_id');
  if (ids.length > 1) return oauthError(400, 'invalid_request', 'client_id is repeated.');
  if (ids.length === 1 && ids[0] !== config.clientId) {
    return oauthError(401, 'invalid_client', 'client_id does not match the client this proxy serves.');
  }
  return undefined;
}

async function handleToken(config: ResolvedConfig, request: ProxyRequest, form: URLSearchParams, state: RequestState): Promise<ProxyAnswer> {
  const picked = pickFields(form, TOKEN_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const grantType = values.get('grant_type');
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return oauthError(400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
  }
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;

  const upstream = new URLSearchParams();
  upstream.set('grant_type', grantType);
  if (grantType === 'authorization_code') {
    state.type = 'authorization_code';
    for (const field of ['code', 'code_verifier', 'redirect_uri'] as const) {
      if (!values.has(field)) return oauthError(400, 'invalid_request', `${field} is required for authorization_code.`);
    }
    const redirectUri = values.get('redirect_uri')!;
    if (!config.redirectUris.has(redirectUri)) {
      return oauthError(400, 'invalid_request', 'redirect_uri is not one of the redirect URIs configured on the token proxy.');
    }
    upstream.set('code', values.get('code')!);
    upstream.set('code_verifier', values.get('code_verifier')!);
    upstream.set('redirect_uri', redirectUri);
  } else {
    state.type = 'refresh_token';
    if (!values.has('refresh_token')) return oauthError(400, 'invalid_request', 'refresh_token is required.');
    upstream.set('refresh_token', values.get('refresh_token')!);
  }
  const scope = values.get('scope');
  if (scope !== undefined) upstream.set('scope', scope);

  if (grantType === 'refresh_token' && config.replay) {
    // finished even if this browser goes away: its answer is what a retry will need
    const { answer, replayed } = await config.replay.run(values.get('refresh_token')!, scope, () => exchangeTokens(config, upstream, NEVER_ABORTS));
    if (replayed) state.replayed = true;
    return answer;
  }
  return exchangeTokens(config, upstream, request);
}

/** The token call itself, its answer checked and cleaned. */
async function exchangeTokens(config: ResolvedConfig, upstream: URLSearchParams, client: AbortSource): Promise<ProxyAnswer> {
  const result = await callUpstream(config, config.tokenEndpoint, upstream, client);
  if (!('json' in result)) return result;
  if (result.status >= 200 && result.status < 300) {
    const body = result.json;
    if (!isRecord(body) || typeof body.access_token !== 'string' || typeof body.token_type !== 'string') {
      return unavailable(502, 'The service answered the token request without a token.');
    }
    return jsonAnswer(200, sanitizeTokenResponse(body, config.clientSecret));
  }
  return passError(config, result);
}

async function handleRevoke(config: ResolvedConfig, request: ProxyRequest, form: URLSearchParams, state: RequestState): Promise<ProxyAnswer> {
  state.type = 'revoke';
  const picked = pickFields(form, REVOKE_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;
  const token = picked.values.get('token');
  if (!token) return oauthError(400, 'invalid_request', 'token is required.');
  const upstream = new URLSearchParams({ token });
  const hint = picked.values.get('token_type_hint');
  if (hint !== undefined) upstream.set('token_type_hint', hint);

  const result = await callUpstream(config, config.revocationEndpoint, upstream, request);
  if (!('json' in result)) return result;
  // RFC 7009: 200 with any (usually empty) body means revoked or already invalid.
  if (result.status >= 200 && result.status < 300) return jsonAnswer(200, {});
  return passError(config, result);
}

interface UpstreamAnswer {
  status: number;
  json: unknown;
  retryAfter: string | null;
}

const UPSTREAM_HEADERS_POST: Record<string, string> = {
  'Content-Type': 'application/x-www-form-urlencoded',
  Accept: 'application/json',
};

/** POSTs the form with the client credentials; a ProxyAnswer means the failure is already mapped (502/504). */
async function callUpstream(config: ResolvedConfig, endpoint: string, form: URLSearchParams, client: AbortSource): Promise<UpstreamAnswer | ProxyAnswer> {
  form.set('client_id', config.clientId);
  let headers = UPSTREAM_HEADERS_POST;
  if (config.basicAuthorization === undefined) {
    form.set('client_secret', config.clientSecret);
  } else {
    headers = { ...UPSTREAM_HEADERS_POST, Authorization: config.basicAuthorization };
  }
  const result = await config.upstream({
    url: endpoint,
    headers,
    body: form.toString(),
    timeoutMs: config.timeoutMs,
    maxBytes: config.maxUpstreamBytes,
    client,
  });
  if (result === 'timeout') return unavailable(504, `The service did not answer within ${config.timeoutMs} ms.`);
  if (result === 'unreachable') return unavailable(502, 'The service could not be reached.');
  if (result === 'oversized') return unavailable(502, 'The service answered with an oversized body.');
  const { status, text } = result;
  if (status >= 300 && status < 400) return unavailable(502, `The service answered with a redirect (HTTP ${status}).`);
  if (status >= 500) return unavailable(502, `The service answered HTTP ${status}.`, result.retryAfter);
  let json: unknown;
  if (text.trim() === '') {
    json = undefined;
  } else if (result.contentType.toLowerCase().includes('json') || /^\s*[{[]/.test(text)) {
    try {
      json = JSON.parse(text);
    } catch {
      return unavailable(502, `The service answered HTTP ${status} with malformed JSON.`);
    }
  } else {
    return unavailable(502, `The service answered HTTP ${status} with a non-JSON body.`);
  }
  return { status, json, retryAfter: result.retryAfter };
}

/** The upstream through a Fetch function (the default of `createTokenProxy`, and any `fetch` option). */
export function fetchUpstream(fetchFn: typeof fetch): Upstream {
  return async (call) => {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, call.timeoutMs);
    const unsubscribe = call.client.onAbort(() => controller.abort());
    try {
      const response = await fetchFn(call.url, { method: 'POST', headers: call.headers, body: call.body, redirect: 'manual', signal: controller.signal });
      const text = await readLimited(response, call.maxBytes);
      if (text === undefined) return 'oversized';
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', retryAfter: response.headers.get('retry-after'), text };
    } catch {
      return timedOut ? 'timeout' : 'unreachable';
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  };
}

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return response.body ? readStreamText(response.body, max) : '';
}

/** A byte stream as UTF-8 text (a leading BOM dropped), or undefined once it passes `max` bytes (then cancelled). */
export async function readStreamText(stream: ReadableStream<Uint8Array>, max: number): Promise<string | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Passes an OAuth JSON error through (status, error, error_description); anything else is a 502. */
function passError(config: ResolvedConfig, answer: UpstreamAnswer): ProxyAnswer {
  const body = answer.json;
  if (!isRecord(body) || typeof body.error !== 'string' || body.error === '') {
    return unavailable(502, `The service answered HTTP ${answer.status} without an OAuth error.`);
  }
  if (answer.status === 429) {
    return unavailable(429, 'The service is rate limiting token requests.', answer.retryAfter);
  }
  const out: Record<string, string> = { error: scrub(body.error, config.clientSecret) };
  if (typeof body.error_description === 'string') out.error_description = scrub(body.error_description, config.clientSecret);
  const status = answer.status >= 400 && answer.status < 500 ? answer.status : 502;
  return jsonAnswer(status, out);
}

/** The known token fields plus other plain fields, minus anything secret-like or equal to the secret. */
export function sanitizeTokenResponse(body: Record<string, unknown>, clientSecret: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of KNOWN_RESPONSE_FIELDS) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (field === 'expires_in') {
      const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof seconds === 'number' && Number.isFinite(seconds)) out.expires_in = seconds;
      continue;
    }
    if (typeof value === 'string' && !value.includes(clientSecret)) out[field] = value;
  }
  for (const [key, value] of Object.entries(body)) {
    if (KNOWN_RESPONSE_FIELDS.includes(key) || /secret|password|client_assertion/i.test(key) || key.includes(clientSecret)) continue;
    if (value === undefined || value === null) continue;
    const serialized = JSON.stringify(value);
    if (serialized === undefined || serialized.includes(clientSecret)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

function scrub(text: string, secret: string): string {
  return text.split(secret).join('[redacted]').slice(0, 500);
}

// --- answers ----------------------------------------------------------------------------------------

function oauthError(status: number, error: string, description: string, headers?: Record<string, string>): ProxyAnswer {
  return { status, headers: { 'Content-Type': OAUTH_ERROR_TYPE, ...headers }, body: JSON.stringify({ error, error_description: description }) };
}

function unavailable(status: 429 | 502 | 504, description: string, retryAfter?: string | null): ProxyAnswer {
  const answer = jsonAnswer(status, { error: 'temporarily_unavailable', error_description: description });
  if (retryAfter && /^\d{1,6}$/.test(retryAfter.trim())) answer.headers['Retry-After'] = retryAfter.trim();
  return answer;
}

function jsonAnswer(status: number, body: unknown): ProxyAnswer {
  return { status, headers: { 'Content-Type': JSON_TYPE }, body: JSON.stringify(body) };
}

/**
 * Headers every answer carries: no caching of tokens, no sniffing, Vary: Origin for shared caches, and
 * the CORS headers for an allowed origin (a preflight also gets its Allow-* and Max-Age).
 */
function finishAnswer(answer: ProxyAnswer, state: RequestState): ProxyAnswer {
  if (answer.status >= 300 && answer.status < 400) {
    // Never answer with a redirect, whatever happened.
    return finishAnswer(jsonAnswer(502, { error: 'temporarily_unavailable', error_description: 'Unexpected redirect.' }), { ...state, preflight: false });
  }
  const headers = answer.headers;
  if (state.corsOrigin !== undefined) headers['Access-Control-Allow-Origin'] = state.corsOrigin;
  if (state.preflight) {
    headers['Access-Control-Max-Age'] = '600';
    headers['Access-Control-Allow-Methods'] = 'POST';
    headers['Access-Control-Allow-Headers'] = `Content-Type,${PROXY_HEADER}`;
    headers.Vary = 'Origin, Access-Control-Request-Headers';
  } else {
    headers.Vary = 'Origin';
  }
  headers['Cache-Control'] = 'no-store';
  headers.Pragma = 'no-cache';
  headers['X-Content-Type-Options'] = 'nosniff';
  return answer;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
