/**
 * The token proxy: a server-side Fetch handler that adds the app's client_secret to token, refresh and
 * revocation requests from the browser and forwards them to the service. Runs in Node or any Fetch
 * runtime (workers, Next.js route handlers); `serveTokenProxy` is the Node server. The rules live in
 * core.ts; this module adapts them to `Request`/`Response`.
 */

import { readStreamText, resolveConfig, runProxy, type ProxyRequest, type ResolvedConfig, type TokenProxyOptions } from './core.js';

export { PROXY_HEADER, sanitizeTokenResponse } from './core.js';
export type { TokenProxyEvent, TokenProxyEventType, TokenProxyOptions } from './core.js';

export type TokenProxyHandler = (request: Request) => Promise<Response>;

/** Creates the Fetch handler. Throws `EsignError('invalid_config')` on unsafe or missing options. */
export function createTokenProxy(options: TokenProxyOptions): TokenProxyHandler {
  const config = resolveConfig(options);
  return async (request: Request): Promise<Response> => {
    const answer = await runProxy(config, fetchRequest(config, request));
    // a HEAD answer has no body (it is a 405 anyway)
    return new Response(request.method === 'HEAD' ? null : answer.body, { status: answer.status, headers: answer.headers });
  };
}

/** Best effort without trusting X-Forwarded-For: one bucket per Origin, one shared bucket for requests without it. */
export function defaultClientKey(request: Request): string {
  const origin = request.headers.get('origin');
  return origin ? `origin:${origin}` : 'global';
}

/** A Fetch Request as the rules see it. */
function fetchRequest(config: ResolvedConfig, request: Request): ProxyRequest {
  return {
    method: request.method,
    url: request.url,
    get pathname() {
      return new URL(request.url).pathname;
    },
    header: (name) => request.headers.get(name) ?? undefined,
    text: (max) => readRequestText(request, max),
    clientKey: () => (config.customClientKey ?? defaultClientKey)(request),
    onAbort: (listener) => {
      const signal = request.signal;
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

/** The body up to `max` bytes: a declared Content-Length (without Transfer-Encoding) is checked before reading. */
async function readRequestText(request: Request, max: number): Promise<string | undefined> {
  // the declared length first: under @hono/node-server, touching request.body would build a stream that
  // text() does not need
  const length = request.headers.get('content-length');
  if (length !== null && !request.headers.has('transfer-encoding')) {
    return parseInt(length || '0', 10) > max ? undefined : request.text();
  }
  return request.body ? readStreamText(request.body, max) : '';
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
 * Node server: `node:http` driving the rules straight from `IncomingMessage` (no Request/Response on the
 * hot path), and, unless `fetch` is given, a keep-alive `node:http`/`node:https` client for the service.
 * Answers are the same as the Fetch handler's. Without a `clientKey`, requests that carry no Origin are
 * bucketed by the socket's remote address (X-Forwarded-For is never trusted).
 */
export async function serveTokenProxy(options: ServeTokenProxyOptions): Promise<ServedTokenProxy> {
  const config = resolveConfig(options);
  // Imported lazily so this module stays free of Node-only imports for worker runtimes.
  const { createNodeUpstream, listenTokenProxy } = await import('./node.js');
  const nodeUpstream = config.customFetch ? undefined : createNodeUpstream();
  if (nodeUpstream) config.upstream = nodeUpstream.upstream;
  return listenTokenProxy(config, options.port ?? 4020, options.host ?? '127.0.0.1', nodeUpstream);
}
