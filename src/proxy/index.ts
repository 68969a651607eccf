/**
 * The token proxy: a server-side Fetch handler that adds the app's client_secret to token, refresh and
 * revocation requests from the browser and forwards them to the service. Runs in Node or any Fetch
 * runtime (workers, Next.js route handlers); `serveTokenProxy` is the Node adapter.
 */

import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { EsignError } from '../core/errors.js';
import { API_PREFIX } from '../core/service-types.js';
import { isAllowedServiceUrl, isLoopbackHost } from '../core/url.js';
import { FixedWindowLimiter } from './rate-limit.js';

export type TokenProxyHandler = (request: Request) => Promise<Response>;

export type TokenProxyEventType = 'authorization_code' | 'refresh_token' | 'revoke' | 'preflight' | 'rejected';

/** What `onEvent` sees: never a token, code, secret or body. */
export interface TokenProxyEvent {
  type: TokenProxyEventType;
  status: number;
  durationMs: number;
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
  /** Rate-limit bucket of a request. Default: its Origin header, or one shared bucket when absent. */
  clientKey?: (request: Request) => string;
  /** Treat a request whose Origin equals the request URL's own origin as allowed (no CORS needed). Default true. */
  allowSameOrigin?: boolean;
  /** Observability hook; receives `{type, status, durationMs}` only. Errors thrown by it are ignored. */
  onEvent?: (event: TokenProxyEvent) => void;
  /** Upstream fetch, for tests or custom agents. */
  fetch?: typeof fetch;
}

/** The header browsers must send; a cross-site HTML form cannot set it. */
export const PROXY_HEADER = 'X-Esign-Proxy';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BODY = 8 * 1024;
const DEFAULT_MAX_UPSTREAM = 64 * 1024;
const DEFAULT_RATE_LIMIT = { windowMs: 60_000, max: 60 };

const TOKEN_FIELDS = ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope'] as const;
const REVOKE_FIELDS = ['token', 'token_type_hint'] as const;
const KNOWN_RESPONSE_FIELDS = ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'space_id'];
const FORBIDDEN_REDIRECT_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ws:', 'wss:', 'ftp:']);

interface ResolvedConfig {
  clientId: string;
  clientSecret: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  allowedOrigins: Set<string>;
  redirectUris: Set<string>;
  clientAuth: 'post' | 'basic';
  timeoutMs: number;
  maxBodyBytes: number;
  maxUpstreamBytes: number;
  limiter: FixedWindowLimiter | undefined;
  clientKey: (request: Request) => string;
  allowSameOrigin: boolean;
  onEvent: ((event: TokenProxyEvent) => void) | undefined;
  fetch: typeof fetch;
}

/** Per-request state handed through Hono's `env`. */
interface RequestState {
  original: Request;
  type: TokenProxyEventType;
}

type Env = { Bindings: RequestState };
type Ctx = Context<Env>;

/** Creates the Fetch handler. Throws `EsignError('invalid_config')` on unsafe or missing options. */
export function createTokenProxy(options: TokenProxyOptions): TokenProxyHandler {
  const config = resolveConfig(options);
  const app = buildApp(config);
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const state: RequestState = { original: request, type: 'rejected' };
    let response: Response;
    try {
      response = await app.fetch(request, state);
    } catch {
      response = jsonResponse(500, { error: 'server_error', error_description: 'The token proxy failed unexpectedly.' });
    }
    response = finalize(response);
    if (config.onEvent) {
      try {
        config.onEvent({ type: state.type, status: response.status, durationMs: Math.round(performance.now() - started) });
      } catch {
        // an observer's failure must not change the answer
      }
    }
    return response;
  };
}

function resolveConfig(options: TokenProxyOptions): ResolvedConfig {
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
  const upstreamFetch = options.fetch;
  return {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    tokenEndpoint,
    revocationEndpoint,
    allowedOrigins,
    redirectUris,
    clientAuth,
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_MAX_BODY, 'maxBodyBytes'),
    maxUpstreamBytes: positive(options.maxUpstreamBytes, DEFAULT_MAX_UPSTREAM, 'maxUpstreamBytes'),
    limiter: rate ? new FixedWindowLimiter(rate) : undefined,
    clientKey: options.clientKey ?? defaultClientKey,
    allowSameOrigin: options.allowSameOrigin ?? true,
    onEvent: options.onEvent,
    fetch: upstreamFetch ? (input, init) => upstreamFetch(input, init) : (input, init) => globalThis.fetch(input, init),
  };
}

/** Best effort without trusting X-Forwarded-For: one bucket per Origin, one shared bucket for requests without it. */
export function defaultClientKey(request: Request): string {
  const origin = request.headers.get('origin');
  return origin ? `origin:${origin}` : 'global';
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

function buildApp(config: ResolvedConfig): Hono<Env> {
  const app = new Hono<Env>();

  // Route on the last path segment so the handler can be mounted under any prefix.
  app.use('*', async (c, next) => {
    const segment = lastSegment(c.req.url);
    if (segment !== 'token' && segment !== 'revoke') return oauthError(c, 404, 'not_found', 'Only …/token and …/revoke are served here.');
    if (c.req.method !== 'POST' && c.req.method !== 'OPTIONS') {
      return oauthError(c, 405, 'invalid_request', 'Use POST.', { Allow: 'POST, OPTIONS' });
    }
    if (c.req.method === 'OPTIONS') c.env.type = 'preflight';
    await next();
  });

  // A browser on a foreign site gets nothing, not even a CORS answer to read.
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !originAllowed(config, origin, c.req.url)) {
      return oauthError(c, 403, 'access_denied', 'This origin is not allowed to use the token proxy.');
    }
    await next();
  });

  app.use(
    '*',
    cors({
      origin: (origin) => (config.allowedOrigins.has(origin) ? origin : null),
      allowMethods: ['POST'],
      allowHeaders: ['Content-Type', PROXY_HEADER],
      maxAge: 600,
    }),
  );

  const rateLimit: MiddlewareHandler<Env> = async (c, next) => {
    if (config.limiter) {
      const decision = config.limiter.hit(safeKey(config, c.env.original));
      if (!decision.allowed) {
        return oauthError(c, 429, 'temporarily_unavailable', 'Too many token requests; retry later.', {
          'Retry-After': String(decision.retryAfterSeconds),
        });
      }
    }
    await next();
  };

  const requireHeader: MiddlewareHandler<Env> = async (c, next) => {
    if (c.req.header(PROXY_HEADER) !== '1') {
      return oauthError(c, 403, 'access_denied', `The ${PROXY_HEADER}: 1 request header is required.`);
    }
    await next();
  };

  const requireForm: MiddlewareHandler<Env> = async (c, next) => {
    const [mediaType = '', ...params] = (c.req.header('content-type') ?? '').split(';').map((part) => part.trim().toLowerCase());
    const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
    if (mediaType !== 'application/x-www-form-urlencoded' || (charset !== undefined && charset !== 'utf-8')) {
      return oauthError(c, 415, 'invalid_request', 'Send an application/x-www-form-urlencoded (UTF-8) body.');
    }
    await next();
  };

  const limitBody = bodyLimit({
    maxSize: config.maxBodyBytes,
    onError: (c) => oauthError(c as Ctx, 413, 'invalid_request', `The request body is over ${config.maxBodyBytes} bytes.`),
  });

  app.post('*', rateLimit, requireHeader, requireForm, limitBody, async (c) => {
    const form = new URLSearchParams(await c.req.text());
    return lastSegment(c.req.url) === 'revoke' ? handleRevoke(c, config, form) : handleToken(c, config, form);
  });

  return app;
}

function lastSegment(url: string): string | undefined {
  return new URL(url).pathname.replace(/\/+$/, '').split('/').pop();
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

function safeKey(config: ResolvedConfig, request: Request): string {
  try {
    return config.clientKey(request);
  } catch {
    return 'global';
  }
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
function checkClientId(c: Ctx, config: ResolvedConfig, form: URLSearchParams): Response | undefined {
  const ids = form.getAll('client_id');
  if (ids.length > 1) return oauthError(c, 400, 'invalid_request', 'client_id is repeated.');
  if (ids.length === 1 && ids[0] !== config.clientId) {
    return oauthError(c, 401, 'invalid_client', 'client_id does not match the client this proxy serves.');
  }
  return undefined;
}

async function handleToken(c: Ctx, config: ResolvedConfig, form: URLSearchParams): Promise<Response> {
  const picked = pickFields(form, TOKEN_FIELDS);
  if ('duplicate' in picked) return oauthError(c, 400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const grantType = values.get('grant_type');
  if (!grantType) return oauthError(c, 400, 'invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return oauthError(c, 400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
  }
  const badClient = checkClientId(c, config, form);
  if (badClient) return badClient;

  const upstream = new URLSearchParams();
  upstream.set('grant_type', grantType);
  if (grantType === 'authorization_code') {
    c.env.type = 'authorization_code';
    for (const field of ['code', 'code_verifier', 'redirect_uri'] as const) {
      if (!values.has(field)) return oauthError(c, 400, 'invalid_request', `${field} is required for authorization_code.`);
    }
    const redirectUri = values.get('redirect_uri')!;
    if (!config.redirectUris.has(redirectUri)) {
      return oauthError(c, 400, 'invalid_request', 'redirect_uri is not one of the redirect URIs configured on the token proxy.');
    }
    upstream.set('code', values.get('code')!);
    upstream.set('code_verifier', values.get('code_verifier')!);
    upstream.set('redirect_uri', redirectUri);
  } else {
    c.env.type = 'refresh_token';
    if (!values.has('refresh_token')) return oauthError(c, 400, 'invalid_request', 'refresh_token is required.');
    upstream.set('refresh_token', values.get('refresh_token')!);
  }
  const scope = values.get('scope');
  if (scope !== undefined) upstream.set('scope', scope);

  const result = await callUpstream(config, config.tokenEndpoint, upstream, c.env.original.signal);
  if (result instanceof Response) return result;
  if (result.status >= 200 && result.status < 300) {
    const body = result.json;
    if (!isRecord(body) || typeof body.access_token !== 'string' || typeof body.token_type !== 'string') {
      return unavailable(502, 'The service answered the token request without a token.');
    }
    return jsonResponse(200, sanitizeTokenResponse(body, config.clientSecret));
  }
  return passError(config, result);
}

async function handleRevoke(c: Ctx, config: ResolvedConfig, form: URLSearchParams): Promise<Response> {
  c.env.type = 'revoke';
  const picked = pickFields(form, REVOKE_FIELDS);
  if ('duplicate' in picked) return oauthError(c, 400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const badClient = checkClientId(c, config, form);
  if (badClient) return badClient;
  const token = picked.values.get('token');
  if (!token) return oauthError(c, 400, 'invalid_request', 'token is required.');
  const upstream = new URLSearchParams({ token });
  const hint = picked.values.get('token_type_hint');
  if (hint !== undefined) upstream.set('token_type_hint', hint);

  const result = await callUpstream(config, config.revocationEndpoint, upstream, c.env.original.signal);
  if (result instanceof Response) return result;
  // RFC 7009: 200 with any (usually empty) body means revoked or already invalid.
  if (result.status >= 200 && result.status < 300) return jsonResponse(200, {});
  return passError(config, result);
}

interface UpstreamAnswer {
  status: number;
  json: unknown;
  retryAfter: string | null;
}

/** POSTs the form with the client credentials; a Response means the failure is already mapped (502/504). */
async function callUpstream(config: ResolvedConfig, endpoint: string, form: URLSearchParams, clientSignal: AbortSignal): Promise<UpstreamAnswer | Response> {
  form.set('client_id', config.clientId);
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    Accept: 'application/json',
  };
  if (config.clientAuth === 'post') {
    form.set('client_secret', config.clientSecret);
  } else {
    // RFC 6749 section 2.3.1: form-encode id and secret before Base64.
    const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
    headers.Authorization = `Basic ${btoa(`${encode(config.clientId)}:${encode(config.clientSecret)}`)}`;
  }

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, config.timeoutMs);
  const onClientAbort = (): void => controller.abort();
  clientSignal.addEventListener('abort', onClientAbort, { once: true });
  try {
    let response: Response;
    let text: string | undefined;
    try {
      response = await config.fetch(endpoint, { method: 'POST', headers, body: form.toString(), redirect: 'manual', signal: controller.signal });
      text = await readLimited(response, config.maxUpstreamBytes);
    } catch {
      if (timedOut) return unavailable(504, `The service did not answer within ${config.timeoutMs} ms.`);
      return unavailable(502, 'The service could not be reached.');
    }
    if (text === undefined) return unavailable(502, 'The service answered with an oversized body.');
    if (response.status >= 300 && response.status < 400) return unavailable(502, `The service answered with a redirect (HTTP ${response.status}).`);
    if (response.status >= 500) {
      return unavailable(502, `The service answered HTTP ${response.status}.`, response.headers.get('retry-after'));
    }
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    let json: unknown;
    if (text.trim() === '') {
      json = undefined;
    } else if (contentType.includes('json') || /^\s*[{[]/.test(text)) {
      try {
        json = JSON.parse(text);
      } catch {
        return unavailable(502, `The service answered HTTP ${response.status} with malformed JSON.`);
      }
    } else {
      return unavailable(502, `The service answered HTTP ${response.status} with a non-JSON body.`);
    }
    return { status: response.status, json, retryAfter: response.headers.get('retry-after') };
  } finally {
    clearTimeout(timer);
    clientSignal.removeEventListener('abort', onClientAbort);
  }
}

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
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
function passError(config: ResolvedConfig, answer: UpstreamAnswer): Response {
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
  return jsonResponse(status, out);
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

function oauthError(c: Ctx, status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return c.json({ error, error_description: description }, status as 400, headers);
}

function unavailable(status: 429 | 502 | 504, description: string, retryAfter?: string | null): Response {
  const headers: Record<string, string> = {};
  if (retryAfter && /^\d{1,6}$/.test(retryAfter.trim())) headers['Retry-After'] = retryAfter.trim();
  return jsonResponse(status, { error: 'temporarily_unavailable', error_description: description }, headers);
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/** Headers every answer carries: no caching of tokens, no sniffing, Vary: Origin for shared caches. */
function finalize(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('Cache-Control', 'no-store');
  headers.set('Pragma', 'no-cache');
  headers.set('X-Content-Type-Options', 'nosniff');
  const vary = headers.get('Vary');
  if (!vary || !vary.split(',').some((v) => v.trim().toLowerCase() === 'origin')) headers.set('Vary', vary ? `${vary}, Origin` : 'Origin');
  if (response.status >= 300 && response.status < 400) {
    // Never answer with a redirect, whatever happened.
    return jsonResponse(502, { error: 'temporarily_unavailable', error_description: 'Unexpected redirect.' });
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ServeTokenProxyOptions extends TokenProxyOptions {
  /** Default 4020; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ServedTokenProxy {
  /** e.g. `http://127.0.0.1:4020` (append `/token` or `/revoke`). */
  url: string;
  close(): Promise<void>;
}

/**
 * Node adapter: serves the handler with @hono/node-server. Without a `clientKey`, requests that carry no
 * Origin are bucketed by the socket's remote address (X-Forwarded-For is never trusted).
 */
export async function serveTokenProxy(options: ServeTokenProxyOptions): Promise<ServedTokenProxy> {
  // Imported lazily so the handler module stays free of Node-only imports for worker runtimes.
  const { serve } = await import('@hono/node-server');
  const remote = new WeakMap<Request, string>();
  const clientKey =
    options.clientKey ??
    ((request: Request): string => {
      const origin = request.headers.get('origin');
      if (origin) return `origin:${origin}`;
      const address = remote.get(request);
      return address ? `ip:${address}` : 'global';
    });
  const handler = createTokenProxy({ ...options, clientKey });
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: (request, env) => {
          const address = 'incoming' in env ? env.incoming.socket?.remoteAddress : undefined;
          if (address) remote.set(request, address);
          return handler(request);
        },
        port: options.port ?? 4020,
        hostname: host,
      },
      (info) => {
        const shownHost = info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          close: () =>
            new Promise<void>((done, fail) => {
              server.close((error) => (error ? fail(error) : done()));
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
