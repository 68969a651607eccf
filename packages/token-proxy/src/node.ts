/**
 * The token proxy on Node: the Fetch application (app.ts) served by Hono's Node adapter
 * (`@hono/node-server`), the caller's address from its `getConnInfo` (the socket's remote address).
 * Exported as `@esign-elements/token-proxy/node`; the `@esign-elements/token-proxy` entry imports nothing from `node:`.
 */
import { serve, type HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { realpath } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { isLoopbackHost } from '@esign-elements/shared';
import { createTokenProxyApp, PROXY_ROUTES } from './app.js';
import { defaultShutdownMs, type TokenProxyOptions } from './config.js';
import { combineEvents, createJsonLog, createProxyMetrics, type JsonLog, type LogLevel } from './observe.js';
import { servableFile } from './static-path.js';

export interface ServeTokenProxyOptions extends TokenProxyOptions {
  /** Default 4020; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * A folder whose files are served at `/` beside the proxy's routes, so a static page and its token proxy
   * share one origin (the session cookie comes back with no CORS at all). For development and simple sites;
   * every path other than the proxy's routes (`${basePath}/login`, `/callback`, `/login/done`, `/token`,
   * `/revoke`, `/health`, `/ready`) is a file of this folder or a 404. Dotfiles (`.env`, `.git/`) and files
   * reached through a symlink pointing out of the folder are 404s.
   */
  staticDir?: string;
  /** One JSON line per request (and the server's own lines) at this level and above. Default: no logs. */
  logLevel?: LogLevel;
  /** Where log lines go (one JSON object, no newline). Default: stdout. */
  logWrite?: (line: string) => void;
  /**
   * Serve Prometheus metrics at `GET /metrics` on this port (0 picks a free one), on `metricsHost`: a port of its
   * own, so the public routes never expose them. Default: no metrics server.
   */
  metricsPort?: number;
  /** Default: `host`. */
  metricsHost?: string;
}

/**
 * `publicOrigin` when none is given: on a loopback host only (development), `http://localhost:<port>`, the
 * address a page on localhost reaches this server at. Anywhere else it must be configured.
 */
function developmentOrigin(options: ServeTokenProxyOptions, host: string, port: number): string | undefined {
  if (options.publicOrigin !== undefined || (options.cookieKeys ?? []).length === 0 || !isLoopbackHost(host.replace(/^\[|\]$/g, '')))
    return options.publicOrigin;
  return `http://localhost:${port}`;
}

export interface ServedTokenProxy {
  /** e.g. `http://127.0.0.1:4020` (append `${basePath}/token` or `${basePath}/revoke`). */
  url: string;
  /** The default mode's redirect URI, `${publicOrigin}${basePath}/callback` (register it at the service), when that mode is on. */
  callbackUrl: string | undefined;
  /** `http://host:port/metrics` when `metricsPort` was given. */
  metricsUrl: string | undefined;
  /** The server's JSON log (writes nothing unless `logLevel` was given). */
  log: JsonLog;
  /** Stops at once: open connections are cut, requests in flight lose their answers. */
  close(): Promise<void>;
  /**
   * Stops cleanly: stops accepting connections, `/ready` answers 503, idle keep-alive connections are closed, the
   * requests in flight finish (their answers and rotated cookies go out) and the store writes they left behind
   * land; after `timeoutMs` (default: the proxy's `timeoutMs` + 5 s) whatever is left is cut. Does not close the
   * store (its owner does, after this).
   */
  shutdown(options?: { timeoutMs?: number }): Promise<void>;
}

/** Serves the proxy on `host:port` (default 127.0.0.1:4020). Throws `EsignError('invalid_config')` on bad options. */
export async function serveTokenProxy(options: ServeTokenProxyOptions): Promise<ServedTokenProxy> {
  const log = createJsonLog({ level: options.logLevel ?? 'silent', write: options.logWrite ?? ((line) => void process.stdout.write(`${line}\n`)) });
  const metrics = options.metricsPort !== undefined ? createProxyMetrics() : undefined;
  const onEvent = combineEvents(options.onEvent, options.logLevel !== undefined && options.logLevel !== 'silent' ? log.onEvent : undefined, metrics?.onEvent);
  const host = options.host ?? '127.0.0.1';
  let draining = false;
  // store writes the answers did not wait for: a shutdown waits for them before the store is closed
  const pending = new Set<Promise<unknown>>();
  const background = (write: Promise<unknown>): void => {
    pending.add(write);
    void write.finally(() => pending.delete(write));
  };
  const build = (port: number) =>
    createTokenProxyApp(
      {
        ...options,
        ...(developmentOrigin(options, host, port) ? { publicOrigin: developmentOrigin(options, host, port)! } : {}),
        ...(onEvent ? { onEvent } : {}),
      },
      { remoteAddress: (c) => getConnInfo(c).remote.address, draining: () => draining, background },
    );
  // the options are checked before listening; with port 0 the development origin is known only once listening
  let app = build(options.port || 4020);
  const routes = new Set(PROXY_ROUTES.map((route) => `${(options.basePath ?? '').replace(/\/+$/, '')}${route}`));
  const files = options.staticDir !== undefined ? staticFiles(options.staticDir) : undefined;
  const fetch = (request: Request, env?: Record<string, unknown>): Response | Promise<Response> =>
    !files || routes.has(new URL(request.url).pathname) ? app.fetch(request, env) : files.fetch(request, env);
  const server = await listen(fetch, options.port ?? 4020, host);
  const info = server.address() as AddressInfo;
  if (options.port === 0 && developmentOrigin(options, host, info.port) !== undefined && options.publicOrigin === undefined) app = build(info.port);
  const origin = developmentOrigin(options, host, info.port);
  let metricsServer: Server | undefined;
  if (metrics) {
    const scrape = (request: Request): Response =>
      new URL(request.url).pathname === '/metrics' ? metrics.fetch(request) : new Response('Not found\n', { status: 404 });
    try {
      metricsServer = await listen(scrape, options.metricsPort!, options.metricsHost ?? host);
    } catch (error) {
      server.closeAllConnections();
      server.close();
      throw error;
    }
  }
  const metricsInfo = metricsServer?.address() as AddressInfo | undefined;
  const stopMetrics = (): Promise<void> =>
    new Promise((done) => {
      if (!metricsServer) return done();
      metricsServer.close(() => done());
      metricsServer.closeAllConnections();
    });
  const shutdownBoundMs = defaultShutdownMs(options.timeoutMs);
  return {
    url: `http://${urlHost(info)}:${info.port}`,
    callbackUrl: origin ? `${origin}${(options.basePath ?? '').replace(/\/+$/, '')}/callback` : undefined,
    metricsUrl: metricsInfo ? `http://${urlHost(metricsInfo)}:${metricsInfo.port}/metrics` : undefined,
    log,
    close: async () => {
      draining = true;
      await Promise.all([
        new Promise<void>((done, fail) => {
          server.close((error) => (error ? fail(error) : done()));
          server.closeAllConnections();
        }),
        stopMetrics(),
      ]);
    },
    shutdown: async ({ timeoutMs = shutdownBoundMs } = {}) => {
      draining = true;
      const deadline = Date.now() + timeoutMs;
      const closed = new Promise<void>((done) => server.close(() => done()));
      // a keep-alive connection between two requests is idle: closed now, and again as requests in flight finish
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 25);
      const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
      try {
        await closed;
      } finally {
        clearInterval(idle);
        clearTimeout(cut);
      }
      // the replay entries and released claims of the refreshes just answered, before the store is closed
      const left = Math.max(0, deadline - Date.now());
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all([...pending]), new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
      await stopMetrics();
    },
  };
}

function urlHost(info: AddressInfo): string {
  return info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
}

function listen(fetch: (request: Request, env?: Record<string, unknown>) => Response | Promise<Response>, port: number, hostname: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The files of the static folder (serveStatic), but for dotfiles, dot segments and symlinks out of the folder. */
function staticFiles(dir: string): Hono<{ Bindings: HttpBindings }> {
  const root = realpath(dir).catch(() => undefined);
  return new Hono<{ Bindings: HttpBindings }>().use(
    '/*',
    // the target as sent (the Request's URL has `%2e%2e` and `..` already resolved away)
    async (c, next) => ((await servableFile(await root, c.env.incoming.url ?? c.req.path)) !== undefined ? next() : c.notFound()),
    serveStatic({ root: dir }),
  );
}

/** Resolves a request path to a file under root (no traversal, no symlink out): the static file helper of the CLI's --static. */
export { servableFile } from './static-path.js';
