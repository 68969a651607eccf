/**
 * The token proxy as one Fetch-API application on Hono: exact routes `{basePath}/token` and
 * `{basePath}/revoke` (POST, OPTIONS preflight), `hono/cors` for exact origins with credentials,
 * `hono/cookie` for the session cookie, `hono/body-limit`. Modes and wire format: docs/proxy.md (the
 * browser <-> proxy protocol). Runtime-free: no `node:` import; the Node server is in node.ts.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { cors } from 'hono/cors';
import { isLoopbackHost } from '../core/url.js';
import { normalizeAddress, resolveConfig, type ResolvedConfig, type TokenProxyEvent, type TokenProxyEventType, type TokenProxyOptions } from './config.js';
import { RefreshCoordinator } from './refresh.js';
import { base64url, webCryptoSealer, type Sealer } from './seal.js';
import { StoreUnavailableError, type RateHit } from './store.js';
import { isRecord, Upstream, type Answer, type TokenResult } from './upstream.js';

/** The header browsers must send; a cross-site HTML form cannot set it. */
export const PROXY_HEADER = 'X-Esign-Proxy';

/** A Fetch handler: `(request, env?, ctx?) => Promise<Response>` (Hono's `app.fetch`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TokenProxyHandler = (request: Request, env?: any, executionCtx?: any) => Promise<Response>;

/** What a runtime adapter adds: the socket's remote address (Node: @hono/node-server's getConnInfo), a faster sealer. */
export interface AdapterHooks {
  remoteAddress?: (c: Context) => string | undefined;
  /**
   * The same AES-256-GCM format and SHA-256 through the runtime's own crypto (Node: node:crypto, about a
   * tenth of WebCrypto's CPU per operation there). Default: WebCrypto.
   */
  sealer?: (keys: Uint8Array[]) => Sealer;
}

interface RequestState {
  type: TokenProxyEventType;
  mode?: 'mediated' | 'browser-held';
  cached?: boolean;
  replayed?: boolean;
}

type Env = { Bindings: Record<string, unknown> | undefined; Variables: { st: RequestState } };

/** The session cookie's payload (sealed). Short field names keep the cookie small. */
interface Session {
  v: 1;
  /** Random session id: the rate-limit key and the refresh replay's binding. */
  sid: string;
  /** Refresh token (absent if the service issued none). */
  rt?: string;
  cid: string;
  /** Space ('' when the service named none and none was designated). */
  sp: string;
  /** redirect_uri the session was created with. */
  ru: string;
  /** Slot (the `session` field). */
  sl: string;
  /** Issued at, seconds since the epoch (the session's start; max age counts from it). */
  iat: number;
  /** Cached access token, its type, expiry (ms since the epoch), lifetime (s) and scope. */
  at?: string;
  tt?: string;
  exp?: number;
  life?: number;
  sc?: string;
  /** Other plain fields of the token answer (e.g. user_name). */
  x?: Record<string, string | number | boolean>;
}

const TOKEN_FIELDS = ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope', 'session', 'space_id', 'force'] as const;
const REVOKE_FIELDS = ['token', 'token_type_hint', 'session'] as const;
const MAX_COOKIE_BYTES = 3_800;
const BROWSER_HELD_OFF =
  'This token proxy keeps refresh tokens itself (token-mediating mode): send the session field. Returning refresh tokens to the browser needs the proxy option browserHeldRefreshTokens (CLI --browser-held-refresh-tokens).';

/** Creates the Fetch handler. Throws `EsignError('invalid_config')` on unsafe or missing options. */
export function createTokenProxy(options: TokenProxyOptions): TokenProxyHandler {
  const app = createTokenProxyApp(options);
  return async (request, env, executionCtx) => app.fetch(request, env, executionCtx);
}

/** The Hono application itself (mount it with `app.route()`, or serve `app.fetch`). */
export function createTokenProxyApp(options: TokenProxyOptions, hooks: AdapterHooks = {}): Hono<Env> {
  const config = resolveConfig(options);
  const upstream = new Upstream({ ...config, fetch: config.fetch });
  // without cookie keys (browser-held mode only) an ephemeral one seals the replay entries
  const sealer = (hooks.sealer ?? webCryptoSealer)(config.cookieKeys.length > 0 ? config.cookieKeys : [crypto.getRandomValues(new Uint8Array(32))]);
  const coordinator = new RefreshCoordinator({ store: config.store, sealer, replayMs: config.refreshReplayMs, callMs: config.timeoutMs });
  const ctx: Ctx = { config, upstream, sealer, refreshes: coordinator, hooks };

  const root = new Hono<Env>({ strict: true });
  root.notFound((c) => reply(c, oauthError(404, 'not_found', `Only POST ${config.basePath}/token and POST ${config.basePath}/revoke are served here.`), { Vary: 'Origin' }));
  root.onError((_error, c) => reply(c, { status: 500, body: { error: 'server_error', error_description: 'The token proxy failed unexpectedly.' } }, { Vary: 'Origin' }));

  // the routes under basePath (a view of the same router: root.fetch serves them)
  const app = config.basePath ? root.basePath(config.basePath) : root;

  // every answer of the two routes: no caching, no sniffing, never a redirect, Vary: Origin; then the
  // event. On the routes only, so that an app this one is mounted in (app.route) keeps its own headers;
  // the answers built here (reply) carry the same headers anyway.
  const finish: MiddlewareHandler<Env> = async (c, next) => {
    const started = performance.now();
    const state: RequestState = { type: c.req.method === 'OPTIONS' ? 'preflight' : 'rejected' };
    c.set('st', state);
    await next();
    if (c.res.status >= 300 && c.res.status < 400) {
      c.res = new Response(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Unexpected redirect.' }), { status: 502, headers: { 'Content-Type': 'application/json' } });
    }
    const headers = c.res.headers;
    headers.set('Cache-Control', 'no-store');
    headers.set('Pragma', 'no-cache');
    headers.set('X-Content-Type-Options', 'nosniff');
    if (!/\borigin\b/i.test(headers.get('Vary') ?? '')) headers.append('Vary', 'Origin');
    if (config.onEvent) {
      try {
        const event: TokenProxyEvent = { type: state.type, status: c.res.status, durationMs: Math.round(performance.now() - started) };
        if (state.mode) event.mode = state.mode;
        if (state.cached) event.cached = true;
        if (state.replayed) event.replayed = true;
        config.onEvent(event);
      } catch {
        // an observer's failure must not change the answer
      }
    }
  };
  const corsMiddleware = cors({
    origin: (origin) => (config.allowedOrigins.has(origin) ? origin : null),
    credentials: true,
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type', PROXY_HEADER],
    maxAge: 600,
  });
  const tooLarge = (c: C): Response => reply(c, oauthError(413, 'invalid_request', `The request body is over ${config.maxBodyBytes} bytes.`));
  const streamedLimit = bodyLimit({ maxSize: config.maxBodyBytes, onError: tooLarge });
  // hono/body-limit counts a streamed (chunked) body; a declared Content-Length is checked here first, as
  // body-limit would, because body-limit touches request.body, which under @hono/node-server builds a
  // whole WHATWG Request and stream that c.req.text() does not need
  const limit: MiddlewareHandler<Env> = async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (parseInt(length || '0', 10) > config.maxBodyBytes) return tooLarge(c);
      await next();
      return;
    }
    return streamedLimit(c, next);
  };

  for (const route of ['/token', '/revoke'] as const) {
    app.use(route, finish);
    // a browser on a foreign site gets nothing, not even a CORS answer to read
    app.use(route, async (c, next) => {
      const origin = c.req.header('origin');
      if (origin !== undefined && !originAllowed(config, origin, c.req.url)) {
        return reply(c, oauthError(403, 'access_denied', 'This origin is not allowed to use the token proxy.'));
      }
      await next();
    });
    app.use(route, corsMiddleware);
    app.post(
      route,
      async (c, next) => {
        if (c.req.header(PROXY_HEADER) !== '1') return reply(c, oauthError(403, 'access_denied', `The ${PROXY_HEADER}: 1 request header is required.`));
        if (!isUtf8Form(c.req.header('content-type'))) return reply(c, oauthError(415, 'invalid_request', 'Send an application/x-www-form-urlencoded (UTF-8) body.'));
        await next();
      },
      limit,
      async (c) => {
        const form = new URLSearchParams(await c.req.text());
        try {
          return reply(c, route === '/token' ? await handleToken(ctx, c, form) : await handleRevoke(ctx, c, form));
        } catch (error) {
          if (error instanceof StoreUnavailableError) {
            return reply(c, { status: 503, body: { error: 'temporarily_unavailable', error_description: 'The token proxy cannot reach its shared store; retry.' }, headers: { 'Retry-After': String(error.retryAfterSeconds) } });
          }
          throw error;
        }
      },
    );
    app.all(route, (c) => reply(c, oauthError(405, 'invalid_request', 'Use POST.'), { Allow: 'POST, OPTIONS' }));
  }
  return root;
}

interface Ctx {
  config: ResolvedConfig;
  upstream: Upstream;
  sealer: Sealer;
  refreshes: RefreshCoordinator;
  hooks: AdapterHooks;
}

type C = Context<Env>;

/** The proxy's JSON answers, with the headers every answer of the proxy carries. */
function reply(c: C, answer: Answer, extra?: Record<string, string>): Response {
  for (const [name, value] of Object.entries({ ...COMMON_HEADERS, ...answer.headers, ...extra })) c.header(name, value);
  return c.json(answer.body, answer.status as 200);
}

const COMMON_HEADERS: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Content-Type-Options': 'nosniff' };

function oauthError(status: number, error: string, description: string): Answer {
  return { status, body: { error, error_description: description } };
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
function checkClientId(config: ResolvedConfig, form: URLSearchParams): Answer | undefined {
  const ids = form.getAll('client_id');
  if (ids.length > 1) return oauthError(400, 'invalid_request', 'client_id is repeated.');
  if (ids.length === 1 && ids[0] !== config.clientId) return oauthError(401, 'invalid_client', 'client_id does not match the client this proxy serves.');
  return undefined;
}

// --- the caller: address and rate limit ------------------------------------------------------------

/** The caller's address: the `clientAddress` option, else the socket's, else X-Forwarded-For from a trusted proxy. */
export function callerAddress(ctx: Ctx, c: C): string {
  const { config } = ctx;
  if (config.clientAddress) {
    try {
      const address = config.clientAddress(c.req.raw);
      if (address) return normalizeAddress(address);
    } catch {
      // fall through to the socket's address
    }
  }
  let remote: string | undefined;
  try {
    const address = ctx.hooks.remoteAddress?.(c);
    remote = address ? normalizeAddress(address) : undefined;
  } catch {
    remote = undefined;
  }
  if (remote !== undefined && config.trustedProxies.has(remote)) {
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((hop) => normalizeAddress(hop)).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!config.trustedProxies.has(hops[i]!)) return hops[i]!;
    }
  }
  return remote ?? 'unknown';
}

async function rateLimited(ctx: Ctx, key: string): Promise<Answer | undefined> {
  const hit = rateHit(ctx, key);
  if (!hit) return undefined;
  const { count, resetMs } = await guard(ctx.config.store.hit(hit.key, hit.windowMs));
  return count <= hit.max ? undefined : tooMany(resetMs);
}

/** The caller's rate-limit hit, for a refresh to count in the same store step as its claim. */
function rateHit(ctx: Ctx, key: string): RateHit | undefined {
  const rate = ctx.config.rateLimit;
  return rate ? { key: `rl:${key}`, windowMs: rate.windowMs, max: rate.max } : undefined;
}

function tooMany(resetMs: number): Answer {
  return { ...oauthError(429, 'temporarily_unavailable', 'Too many token requests; retry later.'), headers: { 'Retry-After': String(Math.max(1, Math.ceil(resetMs / 1000))) } };
}

/** A store failure of any kind is the store being unavailable (503), never a 500. */
async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError('The store failed.');
  }
}

// --- the session cookie ----------------------------------------------------------------------------

interface CookieSpec {
  name: string;
  secure: boolean;
}

/** Slot -> cookie-name hash; slots are few per deployment (open, space:<id>), the cache is bounded. */
const slotHashes = new Map<string, string>();

async function cookieSpec(sealer: Sealer, c: C, slot: string): Promise<CookieSpec> {
  const url = new URL(c.req.url);
  const secure = !(url.protocol === 'http:' && isLoopbackHost(url.hostname));
  let hash = slotHashes.get(slot);
  if (hash === undefined) {
    hash = (await sealer.sha256url(slot)).slice(0, 16);
    if (slotHashes.size >= 1_000) slotHashes.clear();
    slotHashes.set(slot, hash);
  }
  return { name: `${secure ? '__Secure-' : ''}esign_s_${hash}`, secure };
}

function cookieAad(ctx: Ctx, spec: CookieSpec): string {
  return `${spec.name}|${ctx.config.clientId}`;
}

async function readSession(ctx: Ctx, c: C, spec: CookieSpec): Promise<Session | 'missing' | 'invalid'> {
  const value = getCookie(c, spec.name);
  if (value === undefined || value === '') return 'missing';
  const text = await ctx.sealer.open(value, cookieAad(ctx, spec));
  if (text === undefined) return 'invalid';
  try {
    const session = JSON.parse(text) as Session;
    return isRecord(session) && session.v === 1 && typeof session.sid === 'string' ? session : 'invalid';
  } catch {
    return 'invalid';
  }
}

async function writeSession(ctx: Ctx, c: C, spec: CookieSpec, session: Session): Promise<void> {
  const aad = cookieAad(ctx, spec);
  let value = await ctx.sealer.seal(JSON.stringify(session), aad);
  // a cookie over ~4 KB is dropped by browsers: leave out the extras, then the cached access token
  if (value.length + spec.name.length > MAX_COOKIE_BYTES && session.x) {
    session = { ...session };
    delete session.x;
    value = await ctx.sealer.seal(JSON.stringify(session), aad);
  }
  if (value.length + spec.name.length > MAX_COOKIE_BYTES) {
    const { at: _at, tt: _tt, exp: _exp, life: _life, ...rest } = session;
    value = await ctx.sealer.seal(JSON.stringify(rest), aad);
  }
  const maxAge = Math.max(0, session.iat + ctx.config.sessionMaxAgeSeconds - Math.floor(Date.now() / 1000));
  setCookie(c, spec.name, value, {
    httpOnly: true,
    secure: spec.secure,
    sameSite: 'Strict',
    path: ctx.config.basePath || '/',
    maxAge,
    ...(ctx.config.cookieDomain ? { domain: ctx.config.cookieDomain } : {}),
  });
}

function clearSession(ctx: Ctx, c: C, spec: CookieSpec): void {
  deleteCookie(c, spec.name, {
    httpOnly: true,
    secure: spec.secure,
    sameSite: 'Strict',
    path: ctx.config.basePath || '/',
    ...(ctx.config.cookieDomain ? { domain: ctx.config.cookieDomain } : {}),
  });
}

/** The access-token part of a session and the extras, from a token answer. */
function tokenPart(tokens: Record<string, unknown>): Pick<Session, 'at' | 'tt' | 'exp' | 'life' | 'sc' | 'x'> {
  const part: Pick<Session, 'at' | 'tt' | 'exp' | 'life' | 'sc' | 'x'> = { at: tokens.access_token as string, tt: tokens.token_type as string };
  if (typeof tokens.expires_in === 'number') {
    part.life = tokens.expires_in;
    part.exp = Date.now() + tokens.expires_in * 1000;
  }
  if (typeof tokens.scope === 'string') part.sc = tokens.scope;
  const extras: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(tokens)) {
    if (['access_token', 'refresh_token', 'token_type', 'expires_in', 'scope', 'space_id', 'id_token'].includes(key)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') extras[key] = value;
  }
  if (Object.keys(extras).length > 0) part.x = extras;
  return part;
}

/** What the browser gets for a session: the access token and plain fields, never the refresh token. */
function sessionAnswer(session: Session): Answer {
  const body: Record<string, unknown> = { access_token: session.at, token_type: session.tt };
  if (session.exp !== undefined) body.expires_in = Math.max(0, Math.floor((session.exp - Date.now()) / 1000));
  if (session.sc !== undefined) body.scope = session.sc;
  if (session.sp) body.space_id = session.sp;
  for (const [key, value] of Object.entries(session.x ?? {})) if (!(key in body)) body[key] = value;
  return { status: 200, body };
}

function withoutRefreshToken(tokens: Record<string, unknown>): Record<string, unknown> {
  const { refresh_token: _rt, ...rest } = tokens;
  return rest;
}

function slotOf(values: Map<string, string>): string | Answer {
  const slot = values.get('session')!;
  if (slot.length > 200) return oauthError(400, 'invalid_request', 'session is longer than 200 characters.');
  return slot;
}

// --- /token ------------------------------------------------------------------------------------------

async function handleToken(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  const { config } = ctx;
  const state = c.get('st');
  const picked = pickFields(form, TOKEN_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const grantType = values.get('grant_type');
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return oauthError(400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
  }
  state.type = grantType;
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;

  if (values.has('session')) {
    state.mode = 'mediated';
    if (values.has('refresh_token')) return oauthError(400, 'invalid_request', 'Send either session (token-mediating mode) or refresh_token (browser-held mode), not both.');
    if (config.cookieKeys.length === 0) return oauthError(400, 'invalid_request', 'This token proxy has no cookie keys: the token-mediating mode is off.');
    const slot = slotOf(values);
    if (typeof slot !== 'string') return slot;
    return grantType === 'authorization_code' ? mediatedCode(ctx, c, values, slot) : mediatedRefresh(ctx, c, values, slot);
  }
  if (!config.browserHeld) return oauthError(400, 'invalid_request', BROWSER_HELD_OFF);
  state.mode = 'browser-held';
  const address = `addr:${callerAddress(ctx, c)}`;
  const refreshToken = values.get('refresh_token');
  if (grantType === 'authorization_code' || !refreshToken) {
    const limited = await rateLimited(ctx, address);
    if (limited) return limited;
  }
  if (grantType === 'authorization_code') {
    const missing = checkCodeFields(config, values);
    if (missing) return missing;
    const result = await ctx.upstream.exchangeCode(values.get('code')!, values.get('code_verifier')!, values.get('redirect_uri')!, c.req.raw.signal);
    return result.ok ? { status: 200, body: result.tokens } : result.answer;
  }
  if (!refreshToken) return oauthError(400, 'invalid_request', 'refresh_token is required.');
  const scope = values.get('scope');
  const owner = `${address}|${c.req.header('origin') ?? ''}`;
  // the rate-limit hit goes with the refresh's claim: one store step
  const run = await guard(ctx.refreshes.run(refreshToken, scope, owner, () => ctx.upstream.refresh(refreshToken, scope), rateHit(ctx, address)));
  if ('limitedMs' in run) return tooMany(run.limitedMs);
  if (run.replayed) state.replayed = true;
  return run.result.ok ? { status: 200, body: run.result.tokens } : run.result.answer;
}

function checkCodeFields(config: ResolvedConfig, values: Map<string, string>): Answer | undefined {
  for (const field of ['code', 'code_verifier', 'redirect_uri'] as const) {
    if (!values.has(field)) return oauthError(400, 'invalid_request', `${field} is required for authorization_code.`);
  }
  if (!config.redirectUris.has(values.get('redirect_uri')!)) {
    return oauthError(400, 'invalid_request', 'redirect_uri is not one of the redirect URIs configured on the token proxy.');
  }
  return undefined;
}

async function mediatedCode(ctx: Ctx, c: C, values: Map<string, string>, slot: string): Promise<Answer> {
  const { config } = ctx;
  const limited = await rateLimited(ctx, `addr:${callerAddress(ctx, c)}`);
  if (limited) return limited;
  const missing = checkCodeFields(config, values);
  if (missing) return missing;
  // a browser that says this call is cross-site will neither keep nor send a SameSite=Strict cookie: refuse before
  // redeeming the code, so no grant is left at the service with its refresh token in a cookie nobody can use
  if (c.req.header('sec-fetch-site') === 'cross-site') {
    return oauthError(
      400,
      'cookie_blocked',
      'The token proxy is on another site than this page, so the browser would not keep its session cookie. Serve the proxy from the page\'s site, or use the browser-held mode.',
    );
  }
  const redirectUri = values.get('redirect_uri')!;
  const result = await ctx.upstream.exchangeCode(values.get('code')!, values.get('code_verifier')!, redirectUri, c.req.raw.signal);
  if (!result.ok) return result.answer;
  const tokens = result.tokens;
  const designated = values.get('space_id');
  const answeredSpace = typeof tokens.space_id === 'string' ? tokens.space_id : undefined;
  if (designated !== undefined && answeredSpace !== undefined && answeredSpace !== designated) {
    // not the Space the page asked for: end the grant we just got rather than leave it unused
    if (typeof tokens.refresh_token === 'string') await ctx.upstream.revoke(tokens.refresh_token, 'refresh_token').catch(() => undefined);
    return oauthError(400, 'invalid_grant', 'The service connected another Space than the one requested (space_id).');
  }
  const spec = await cookieSpec(ctx.sealer, c, slot);
  const session: Session = {
    v: 1,
    sid: base64url(crypto.getRandomValues(new Uint8Array(16))),
    cid: config.clientId,
    sp: answeredSpace ?? designated ?? '',
    ru: redirectUri,
    sl: slot,
    iat: Math.floor(Date.now() / 1000),
    ...tokenPart(tokens),
  };
  if (typeof tokens.refresh_token === 'string') session.rt = tokens.refresh_token;
  await writeSession(ctx, c, spec, session);
  return { status: 200, body: withoutRefreshToken(tokens) };
}

/** The slot's session, checked against the request's binding; an Answer when there is none to use. */
async function boundSession(ctx: Ctx, c: C, spec: CookieSpec, slot: string, values: Map<string, string>): Promise<Session | Answer> {
  const session = await readSession(ctx, c, spec);
  if (session === 'missing') return oauthError(401, 'session_missing', 'No session cookie came with this request: connect first (the cookie may be blocked if the proxy is on another site).');
  const invalid = (): Answer => {
    clearSession(ctx, c, spec);
    return oauthError(401, 'session_invalid', 'The session cookie is not valid for this request; connect again.');
  };
  if (session === 'invalid') return invalid();
  const space = values.get('space_id');
  const redirectUri = values.get('redirect_uri');
  if (
    session.cid !== ctx.config.clientId ||
    session.sl !== slot ||
    (redirectUri !== undefined && session.ru !== redirectUri) ||
    (space !== undefined && session.sp !== space) ||
    session.iat + ctx.config.sessionMaxAgeSeconds <= Date.now() / 1000
  ) {
    return invalid();
  }
  return session;
}

async function mediatedRefresh(ctx: Ctx, c: C, values: Map<string, string>, slot: string): Promise<Answer> {
  const state = c.get('st');
  if (!values.has('redirect_uri')) return oauthError(400, 'invalid_request', 'redirect_uri is required (the session is bound to it).');
  const spec = await cookieSpec(ctx.sealer, c, slot);
  const session = await boundSession(ctx, c, spec, slot, values);
  const rateKey = 'status' in session ? `addr:${callerAddress(ctx, c)}` : `session:${session.sid}`;
  // every request counts against the caller's limit; one that refreshes counts in the same store step as its claim
  const cached = !('status' in session) && cachedAnswer(session, values);
  const refreshing = !('status' in session) && !cached && session.rt !== undefined;
  if (!refreshing) {
    const limited = await rateLimited(ctx, rateKey);
    if (limited) return limited;
  }
  if ('status' in session) return session;

  const scope = values.get('scope');
  if (cached) {
    state.cached = true;
    return sessionAnswer(session);
  }
  if (!session.rt) {
    clearSession(ctx, c, spec);
    return oauthError(400, 'invalid_grant', 'The service issued no refresh token for this session; connect again.');
  }
  const refreshToken = session.rt;
  const run = await guard(ctx.refreshes.run(refreshToken, scope, `session:${session.sid}`, () => ctx.upstream.refresh(refreshToken, scope), rateHit(ctx, rateKey)));
  if ('limitedMs' in run) return tooMany(run.limitedMs);
  if (run.replayed) state.replayed = true;
  return afterRefresh(ctx, c, spec, session, run.result);
}

/** The session's access token still serves this request (not forced, same scope, enough time left). */
function cachedAnswer(session: Session, values: Map<string, string>): boolean {
  const scope = values.get('scope');
  if (values.get('force') === '1' || !session.at || session.exp === undefined || (scope !== undefined && scope !== session.sc)) return false;
  const left = session.exp - Date.now();
  const lifetime = (session.life ?? 0) * 1000;
  return left > Math.min(60_000, lifetime / 2);
}

async function afterRefresh(ctx: Ctx, c: C, spec: CookieSpec, session: Session, result: TokenResult): Promise<Answer> {
  if (!result.ok) {
    // the service ended the grant: so does the session
    if (result.answer.body.error === 'invalid_grant') clearSession(ctx, c, spec);
    return result.answer;
  }
  const tokens = result.tokens;
  const next: Session = { v: 1, sid: session.sid, cid: session.cid, sp: session.sp, ru: session.ru, sl: session.sl, iat: session.iat, ...tokenPart(tokens) };
  next.rt = typeof tokens.refresh_token === 'string' ? tokens.refresh_token : session.rt;
  if (typeof tokens.space_id === 'string' && session.sp === '') next.sp = tokens.space_id;
  await writeSession(ctx, c, spec, next);
  return sessionAnswer(next);
}

// --- /revoke -----------------------------------------------------------------------------------------

async function handleRevoke(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  const { config } = ctx;
  const state = c.get('st');
  state.type = 'revoke';
  const picked = pickFields(form, REVOKE_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;
  const { values } = picked;

  if (values.has('session')) {
    state.mode = 'mediated';
    if (values.has('token')) return oauthError(400, 'invalid_request', 'Send either session (token-mediating mode) or token (browser-held mode), not both.');
    if (config.cookieKeys.length === 0) return oauthError(400, 'invalid_request', 'This token proxy has no cookie keys: the token-mediating mode is off.');
    const slot = slotOf(values);
    if (typeof slot !== 'string') return slot;
    const spec = await cookieSpec(ctx.sealer, c, slot);
    const session = await readSession(ctx, c, spec);
    const limited = await rateLimited(ctx, typeof session === 'object' ? `session:${session.sid}` : `addr:${callerAddress(ctx, c)}`);
    if (limited) return limited;
    // the cookie goes whatever the service says: the user asked to end the session
    clearSession(ctx, c, spec);
    if (typeof session !== 'object' || session.cid !== config.clientId || session.sl !== slot || !session.rt) return { status: 200, body: {} };
    const revoked = await ctx.upstream.revoke(session.rt, 'refresh_token', c.req.raw.signal);
    return revoked.ok ? { status: 200, body: {} } : revoked.answer;
  }
  if (!config.browserHeld) return oauthError(400, 'invalid_request', BROWSER_HELD_OFF);
  state.mode = 'browser-held';
  const limited = await rateLimited(ctx, `addr:${callerAddress(ctx, c)}`);
  if (limited) return limited;
  const token = values.get('token');
  if (!token) return oauthError(400, 'invalid_request', 'token is required.');
  const revoked = await ctx.upstream.revoke(token, values.get('token_type_hint'), c.req.raw.signal);
  // RFC 7009: 200 with any (usually empty) body means revoked or already invalid
  return revoked.ok ? { status: 200, body: {} } : revoked.answer;
}

