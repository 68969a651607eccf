/**
 * The token proxy as one Fetch-API application on Hono, and its routes: the default mode's sign-in
 * (`GET {basePath}/login`, `/callback`, `/login/done`: login.ts) and the token calls (`POST {basePath}/token`,
 * `/revoke`, OPTIONS preflight: token.ts), `hono/cors` for exact origins with credentials, `hono/body-limit`.
 * Cookies: session-cookie.ts. Modes and wire format: docs/proxy.md. Runtime-free: no `node:` import; the Node
 * server is in node.ts.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { resolveConfig, type ResolvedConfig, type TokenProxyEvent, type TokenProxyOptions } from './config.js';
import { oauthError, reply, type AdapterHooks, type C, type Ctx, type Env, type RequestState } from './context.js';
import { handleCallback, handleDone, handleLogin } from './login.js';
import { RefreshCoordinator } from './refresh.js';
import { webCryptoSealer } from './seal.js';
import { CookieSessions } from './session-cookie.js';
import { StoreUnavailableError } from './store.js';
import { handleRevoke, handleToken } from './token.js';
import { Upstream } from './upstream.js';

export type { AdapterHooks } from './context.js';

/** The header browsers must send; a cross-site HTML form cannot set it. */
export const PROXY_HEADER = 'X-Esign-Proxy';

/** A Fetch handler: `(request, env?, ctx?) => Promise<Response>` (Hono's `app.fetch`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TokenProxyHandler = (request: Request, env?: any, executionCtx?: any) => Promise<Response>;

/** The routes under basePath, as paths: what a server that serves other files beside the proxy passes to it. */
export const PROXY_ROUTES = ['/login', '/callback', '/login/done', '/token', '/revoke'] as const;

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
  const ctx: Ctx = { config, upstream, sealer, cookies: new CookieSessions(config, sealer), refreshes: coordinator, hooks };

  const root = new Hono<Env>({ strict: true });
  root.notFound((c) => reply(c, oauthError(404, 'not_found', `Only ${PROXY_ROUTES.map((route) => config.basePath + route).join(', ')} are served here.`), { Vary: 'Origin' }));
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
    // the token calls never redirect (the sign-in routes do, on purpose)
    if (c.res.status >= 300 && c.res.status < 400 && (state.type !== 'login' && state.type !== 'callback')) {
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

  // the sign-in: top-level navigations, no CORS, no body
  for (const route of ['/login', '/callback', '/login/done'] as const) {
    app.use(route, finish);
    app.get(route, async (c) => {
      try {
        return await (route === '/login' ? handleLogin(ctx, c) : route === '/callback' ? handleCallback(ctx, c) : handleDone(c));
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        return c.text('The sign-in service is busy; close this window and try again in a moment.', 503, { 'Cache-Control': 'no-store', 'Retry-After': String(error.retryAfterSeconds), 'Referrer-Policy': 'no-referrer' });
      }
    });
    app.all(route, (c) => reply(c, oauthError(405, 'invalid_request', 'Use GET.'), { Allow: 'GET' }));
  }

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
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return mediaType === 'application/x-www-form-urlencoded' && (charset === undefined || charset === 'utf-8');
}

