/**
 * The token proxy as one Fetch-API application on Hono, and its routes: the default mode's sign-in
 * (`GET {basePath}/login`, `/callback`, `/login/done`: login.ts; `POST /login/status`: login-status.ts) and the token calls (`POST {basePath}/token`,
 * `/revoke`, OPTIONS preflight: token.ts), CORS for exact origins with credentials, `hono/body-limit`.
 * Cookies: session-cookie.ts. Modes and wire format: docs/proxy.md. Runtime-free: no `node:` import; the Node
 * server is in node.ts.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { normalizeAddress, resolveConfig, type ResolvedConfig, type TokenProxyOptions } from './config.js';
import type { TokenProxyEvent, TokenProxyOutcome } from './event.js';
import { COMMON_HEADERS, oauthError, reply, serverAddress, warnOnce, type AdapterHooks, type C, type Ctx, type Env, type RequestState } from './context.js';
import { handleCallback, handleDone, handleLogin } from './login.js';
import { LoginStates } from './login-state.js';
import { handleLoginStatus } from './login-status.js';
import { handleHandoff } from './handoff.js';
import { RefreshCoordinator } from './refresh.js';
import { webCryptoSealer } from './seal.js';
import { CookieSessions } from './session-cookie.js';
import { PROXY_HEADER, PROXY_HEADER_VALUE } from '@esign-elements/shared';
import { StoreUnavailableError, type ProxyStore } from './store.js';
import { handleRevoke, handleToken } from './token.js';
import { Upstream } from './upstream.js';

export type { AdapterHooks } from './context.js';

/** The header browsers must send (its name; its value is PROXY_HEADER_VALUE); a cross-site HTML form cannot set it. */
export { PROXY_HEADER, PROXY_HEADER_VALUE };

/** A Fetch handler: `(request, env?, ctx?) => Promise<Response>` (Hono's `app.fetch`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each runtime (Workers, Deno, Bun, Node) passes its own env and context types
export type TokenProxyHandler = (request: Request, env?: any, executionCtx?: any) => Promise<Response>;

/** The routes under basePath, as paths: what a server that serves other files beside the proxy passes to it. */
export const PROXY_ROUTES = ['/login', '/callback', '/login/done', '/login/status', '/login/handoff', '/token', '/revoke', '/health', '/ready'] as const;

/** The request id header: taken from a trusted proxy, else made; echoed in every answer and in the logs. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming request id is used only if it is this tame (no log injection, bounded). */
const REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** A preflight's answer: POST with the two headers the elements send, cached by the browser for 10 minutes. */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': `Content-Type,${PROXY_HEADER}`,
  'Access-Control-Max-Age': '600',
};

/** How long `/ready` waits for the store. */
const READY_TIMEOUT_MS = 2_000;

/**
 * Creates the Fetch handler. Given options, checks them at once: throws `EsignError('invalid_config')` on unsafe or
 * missing ones. Given a function returning them (or a promise of them: a store to connect), calls it on the first
 * request, with the handler's second argument (a Worker's bindings, say), so that a module that makes the handler at
 * its top level builds and loads without secrets (a framework's production build runs server modules). Bad options
 * then fail that request with the same error (the framework logs it), and the next request tries again.
 */
export function createTokenProxy(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the handler's second argument, whatever the runtime passes
  options: TokenProxyOptions | ((context: any) => TokenProxyOptions | Promise<TokenProxyOptions>),
): TokenProxyHandler {
  if (typeof options !== 'function') {
    const app = createTokenProxyApp(options);
    return async (request, env, executionCtx) => app.fetch(request, env, executionCtx);
  }
  let pending: Promise<Hono<Env>> | undefined;
  return async (request, env, executionCtx) => {
    const made = (pending ??= (async () => createTokenProxyApp(await options(env)))());
    let app: Hono<Env>;
    try {
      app = await made;
    } catch (error) {
      if (pending === made) pending = undefined;
      throw error;
    }
    return app.fetch(request, env, executionCtx);
  };
}

/** The Hono application itself (mount it with `app.route()`, or serve `app.fetch`). */
export function createTokenProxyApp(options: TokenProxyOptions, hooks: AdapterHooks = {}): Hono<Env> {
  const config = resolveConfig(options);
  const upstream = new Upstream({ ...config, fetch: config.fetch });
  // without cookie keys (browser-held mode only) an ephemeral one seals the replay entries
  const keys = config.cookieKeys.length > 0 ? config.cookieKeys : [crypto.getRandomValues(new Uint8Array(32))];
  const sealer = webCryptoSealer(keys);
  const coordinator = new RefreshCoordinator({
    store: config.store,
    sealer,
    replayMs: config.refreshReplayMs,
    callMs: config.timeoutMs,
    ...(hooks.background ? { background: hooks.background } : {}),
  });
  const states = new LoginStates(keys, { clientId: config.clientId, basePath: config.basePath, lifetimeMs: config.loginTimeoutSeconds * 1000 });
  const ctx: Ctx = { config, upstream, sealer, cookies: new CookieSessions(config, sealer), refreshes: coordinator, states, hooks, warned: new Set() };
  // mounted (the Node server's CLI says it itself): a store in memory holds for this instance alone
  if (options.store === undefined && !hooks.remoteAddress)
    warnOnce(
      ctx,
      'store',
      "esign token proxy: warning: store: memory (this process's only): rate limits, refresh dedupe and Disconnect hold for " +
        'this instance alone. With several (serverless functions, replicas), pass a shared store (docs/proxy.md, "Replicas and Redis").',
    );

  const root = new Hono<Env>({ strict: true });
  root.notFound((c) =>
    reply(c, oauthError(404, 'not_found', `Only ${PROXY_ROUTES.map((route) => config.basePath + route).join(', ')} are served here.`), {
      Vary: 'Origin',
      [REQUEST_ID_HEADER]: requestIdOf(config, hooks, c),
    }),
  );
  root.onError((_error, c) =>
    reply(c, { status: 500, body: { error: 'server_error', error_description: 'The token proxy failed unexpectedly.' } }, { Vary: 'Origin' }),
  );

  // the routes under basePath (a view of the same router: root.fetch serves them)
  const app = config.basePath ? root.basePath(config.basePath) : root;

  // every answer of the two routes: no caching, no sniffing, never a redirect, Vary: Origin; then the
  // event. On the routes only, so that an app this one is mounted in (app.route) keeps its own headers;
  // the answers built here (reply) carry the same headers anyway.
  const finish: MiddlewareHandler<Env> = async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(config, hooks, c);
    const state: RequestState = {
      type: c.req.method === 'OPTIONS' ? 'preflight' : 'rejected',
      headers: { ...COMMON_HEADERS, Vary: 'Origin', [REQUEST_ID_HEADER]: requestId },
    };
    c.set('st', state);
    await next();
    if (c.res !== state.answered) {
      // an answer not built by reply (the sign-in's pages and redirects): the same headers, added to it
      // the token calls never redirect (the sign-in routes do, on purpose)
      if (c.res.status >= 300 && c.res.status < 400 && state.type !== 'login' && state.type !== 'callback') {
        c.res = new Response(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Unexpected redirect.' }), {
          status: 502,
          headers: { 'Content-Type': 'application/json' },
        });
      }
      const headers = c.res.headers;
      for (const [name, value] of Object.entries(COMMON_HEADERS)) headers.set(name, value);
      if (!/\borigin\b/i.test(headers.get('Vary') ?? '')) headers.append('Vary', 'Origin');
      headers.set(REQUEST_ID_HEADER, requestId);
      for (const line of state.cookies ?? []) headers.append('Set-Cookie', line);
    }
    // shutting down: the connection ends with this answer, so the client's next request goes to another replica
    if (hooks.draining?.()) c.res.headers.set('Connection', 'close');
    if (config.onEvent) {
      try {
        const status = c.res.status;
        const event: TokenProxyEvent = {
          type: state.type,
          route: c.req.routePath.slice(config.basePath.length) || c.req.path,
          method: c.req.method,
          status,
          outcome: outcomeOf(state, status),
          requestId,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        };
        if (state.error !== undefined) event.error = state.error;
        if (state.upstreamMs !== undefined) event.upstreamMs = Math.round(state.upstreamMs * 10) / 10;
        if (state.refreshed) event.refreshed = true;
        if (state.limited) event.rateLimited = true;
        if (state.mode) event.mode = state.mode;
        if (state.cached) event.cached = true;
        if (state.replayed) event.replayed = true;
        config.onEvent(event);
      } catch {
        // an observer's failure must not change the answer
      }
    }
  };
  // CORS for exact origins with credentials (the session cookie): the allowed Origin gets its Allow-Origin and
  // Allow-Credentials, in the headers every answer of the request is built with; a request without an allowed
  // Origin gets neither. A preflight is answered here.
  const corsMiddleware: MiddlewareHandler<Env> = async (c, next) => {
    const origin = c.req.header('origin');
    const headers = c.get('st').headers!;
    if (origin !== undefined && config.allowedOrigins.has(origin)) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Credentials'] = 'true';
    }
    if (c.req.method !== 'OPTIONS') return next();
    return c.body(null, 204, { ...headers, ...PREFLIGHT_HEADERS, Vary: 'Origin, Access-Control-Request-Headers' });
  };
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

  // liveness and readiness for load balancers and orchestrators: no CORS, no cookie read or written, no rate limit, no event
  app.get('/health', (c) => probeAnswer(c, 200, { status: 'ok' }, requestIdOf(config, hooks, c)));
  app.get('/ready', async (c) => {
    const id = requestIdOf(config, hooks, c);
    if (hooks.draining?.()) return probeAnswer(c, 503, { status: 'unavailable', reason: 'shutting down' }, id);
    const problem = await storeProblem(config.store);
    return problem === undefined
      ? probeAnswer(c, 200, { status: 'ok', store: 'ok' }, id)
      : probeAnswer(c, 503, { status: 'unavailable', reason: `store: ${problem}` }, id);
  });
  for (const route of ['/health', '/ready'] as const)
    app.all(route, (c) => probeAnswer(c, 405, { status: 'method_not_allowed' }, requestIdOf(config, hooks, c), { Allow: 'GET, HEAD' }));

  // the sign-in: top-level navigations, no CORS, no body
  for (const route of ['/login', '/callback', '/login/done'] as const) {
    app.use(route, finish);
    app.get(route, async (c) => {
      try {
        return await (route === '/login' ? handleLogin(ctx, c) : route === '/callback' ? handleCallback(ctx, c) : handleDone(c));
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        c.get('st').storeError = true;
        return c.text('The sign-in service is busy; close this window and try again in a moment.', 503, {
          'Cache-Control': 'no-store',
          'Retry-After': String(error.retryAfterSeconds),
          'Referrer-Policy': 'no-referrer',
        });
      }
    });
    app.all(route, (c) => reply(c, oauthError(405, 'invalid_request', 'Use GET.'), { Allow: 'GET' }));
  }

  // the token calls, a popup sign-in's outcome for its page (login-status.ts) and a framed page's handoff
  // (handoff.ts): the same checks
  for (const route of ['/token', '/revoke', '/login/status', '/login/handoff'] as const) {
    app.use(route, finish);
    // a browser on a foreign site gets nothing, not even a CORS answer to read
    app.use(route, async (c, next) => {
      const origin = c.req.header('origin');
      if (origin !== undefined && !originAllowed(config, origin, c.req.url)) {
        return reply(c, oauthError(403, 'access_denied', 'This origin is not allowed to use the token proxy.'));
      }
      // framed: the cookies are SameSite=None, so a browser's request must say where it comes from (every browser
      // sends Origin on a POST)
      if (origin === undefined && config.framedBy.size > 0 && c.req.method !== 'OPTIONS') {
        return reply(c, oauthError(403, 'access_denied', 'An Origin header is required (this proxy serves framed pages).'));
      }
      await next();
    });
    app.use(route, corsMiddleware);
    app.post(
      route,
      async (c, next) => {
        if (c.req.header(PROXY_HEADER) !== PROXY_HEADER_VALUE)
          return reply(c, oauthError(403, 'access_denied', `The ${PROXY_HEADER}: ${PROXY_HEADER_VALUE} request header is required.`));
        if (!isUtf8Form(c.req.header('content-type')))
          return reply(c, oauthError(415, 'invalid_request', 'Send an application/x-www-form-urlencoded (UTF-8) body.'));
        await next();
      },
      limit,
      async (c) => {
        const form = new URLSearchParams(await c.req.text());
        try {
          const handle = route === '/token' ? handleToken : route === '/revoke' ? handleRevoke : route === '/login/status' ? handleLoginStatus : handleHandoff;
          return reply(c, await handle(ctx, c, form));
        } catch (error) {
          if (error instanceof StoreUnavailableError) {
            c.get('st').storeError = true;
            return reply(c, {
              status: 503,
              body: { error: 'temporarily_unavailable', error_description: 'The token proxy cannot reach its shared store; retry.' },
              headers: { 'Retry-After': String(error.retryAfterSeconds) },
            });
          }
          throw error;
        }
      },
    );
    app.all(route, (c) => reply(c, oauthError(405, 'invalid_request', 'Use POST.'), { Allow: 'POST, OPTIONS' }));
  }
  return root;
}

/** The request's id: a tame X-Request-Id from a trusted proxy (or any, with trustRequestId), else a new one. */
function requestIdOf(config: ResolvedConfig, hooks: AdapterHooks, c: Context<Env>): string {
  const sent = c.req.header('x-request-id');
  if (sent !== undefined && REQUEST_ID.test(sent)) {
    if (config.trustRequestId) return sent;
    if (config.trustedProxies.size > 0) {
      let remote: string | undefined;
      try {
        remote = (hooks.remoteAddress ?? serverAddress)(c);
      } catch {
        remote = undefined;
      }
      if (remote !== undefined && config.trustedProxies.has(normalizeAddress(remote))) return sent;
    }
  }
  return crypto.randomUUID();
}

function outcomeOf(state: RequestState, status: number): TokenProxyOutcome {
  if (state.storeError) return 'store_unavailable';
  if (status === 429 || state.limited || state.error === 'rate_limited') return 'rate_limited';
  if (status === 502 || status === 504 || (status < 400 && state.error === 'temporarily_unavailable')) return 'upstream_error';
  if (status >= 500) return status === 503 ? 'store_unavailable' : 'error';
  return status >= 400 || state.error !== undefined ? 'rejected' : 'ok';
}

/** `/health` and `/ready`: JSON, never cached, the request id; nothing else (no CORS). */
function probeAnswer(c: Context<Env>, status: number, body: Record<string, string>, requestId: string, extra: Record<string, string> = {}): Response {
  return new Response(c.req.method === 'HEAD' ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', [REQUEST_ID_HEADER]: requestId, ...extra },
  });
}

/** Undefined when the store answers within READY_TIMEOUT_MS; else why not (no secret: store messages are fixed sentences). */
async function storeProblem(store: ProxyStore): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      store.ping ? store.ping() : store.get('ready'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailableError('The store did not answer in time.')), READY_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (error) {
    return error instanceof StoreUnavailableError ? error.message : 'the store failed.';
  } finally {
    clearTimeout(timer);
  }
}

function originAllowed(config: ResolvedConfig, origin: string, requestUrl: string): boolean {
  if (config.allowedOrigins.has(origin)) return true;
  if (!config.allowSameOrigin || origin === 'null') return false;
  // the proxy's own origin is the configured one (behind TLS termination the request URL says http and the upstream host)
  if (config.publicOrigin !== undefined) return origin === config.publicOrigin;
  try {
    return new URL(requestUrl).origin === origin;
  } catch {
    return false;
  }
}

function isUtf8Form(contentType: string | undefined): boolean {
  const [mediaType = '', ...params] = (contentType ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return mediaType === 'application/x-www-form-urlencoded' && (charset === undefined || charset === 'utf-8');
}
