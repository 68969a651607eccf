/**
 * What every route of the token proxy shares: the per-app context (configuration, upstream client, sealer,
 * cookies, refresh coordinator), the JSON answer with the proxy's common headers, the caller's address and rate
 * limit, and the store guard. Runtime-free: no `node:` import.
 */
import type { Context } from 'hono';
import { normalizeAddress, type ResolvedConfig } from './config.js';
import type { TokenProxyEventType } from './event.js';
import type { LoginStates } from './login-state.js';
import type { RefreshCoordinator } from './refresh.js';
import { base64url } from '@esign-elements/shared';
import type { Sealer } from './seal.js';
import type { CookieSessions } from './session-cookie.js';
import { StoreUnavailableError, type RateHit } from './store.js';
import type { Upstream } from './upstream.js';
import type { Answer } from './upstream-answer.js';

/** What a runtime adapter adds: the socket's remote address (Node: @hono/node-server's getConnInfo), draining, background writes. */
export interface AdapterHooks {
  remoteAddress?: (c: Context) => string | undefined;
  /** True once the server is shutting down: `/ready` answers 503 so load balancers stop sending requests. */
  draining?: () => boolean;
  /**
   * Store writes an answer does not wait for (a refresh's settle), handed to the adapter so that a shutdown
   * waits for them before the store is closed (Node server), or `waitUntil` keeps them alive (Workers).
   */
  background?: (write: Promise<unknown>) => void;
}

export interface RequestState {
  type: TokenProxyEventType;
  mode?: 'mediated' | 'browser-held';
  cached?: boolean;
  replayed?: boolean;
  /** This request made the refresh call to the service (not a cached, shared or replayed answer). */
  refreshed?: boolean;
  /** The error code answered (JSON `error`, or the sign-in's outcome error). */
  error?: string;
  /** The proxy's own rate limit answered (429). */
  limited?: boolean;
  /** The store could not answer (503). */
  storeError?: boolean;
  /** Milliseconds spent waiting for the service, summed over this request's calls; undefined when it made none. */
  upstreamMs?: number;
  /** The headers every answer to this request carries (common, request id, Vary, CORS): `reply` builds its answer with them. */
  headers?: Record<string, string>;
  /** The Set-Cookie lines of this request's answer (session-cookie.ts), in the order written. */
  cookies?: string[];
  /** The answer `reply` built, complete: nothing to add to it afterwards. */
  answered?: Response;
}

export type Env = { Bindings: Record<string, unknown> | undefined; Variables: { st: RequestState } };

export type C = Context<Env>;

export interface Ctx {
  config: ResolvedConfig;
  upstream: Upstream;
  sealer: Sealer;
  cookies: CookieSessions;
  refreshes: RefreshCoordinator;
  /** The sign-in's `state`: issued and checked without the store. */
  states: LoginStates;
  hooks: AdapterHooks;
  /** The one-time warnings already given (`warnOnce`). */
  warned: Set<string>;
}

export const COMMON_HEADERS: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Content-Type-Options': 'nosniff' };

/** Marks the proxy's own 429 (tooMany), for the metrics and logs. */
const LIMITED = Symbol('limited');

/** The proxy's JSON answers, with the headers every answer of the proxy carries. */
export function reply(c: C, answer: Answer, extra?: Record<string, string>): Response {
  const state = c.get('st') as RequestState | undefined;
  if (state && answer.status >= 400) {
    if (typeof answer.body.error === 'string') state.error = answer.body.error;
    if ((answer as Answer & { [LIMITED]?: true })[LIMITED]) state.limited = true;
  }
  // one Response, built with all its headers at once: adding one afterwards would make @hono/node-server build a
  // whole WHATWG Response and stream its body (a tenth of a refresh's CPU). Its headers are a plain record, which
  // that adapter hands to Node's writeHead as it is (a Headers object, as c.json makes of more than one header,
  // costs a validation per header and a sorted copy); only two cookies or more need a Headers object
  const headers: Record<string, string> = { ...(state?.headers ?? COMMON_HEADERS), ...answer.headers, ...extra, 'Content-Type': 'application/json' };
  const cookies = state?.cookies ?? [];
  let init: Record<string, string> | Headers = headers;
  if (cookies.length === 1) headers['Set-Cookie'] = cookies[0]!;
  else if (cookies.length > 1) {
    init = new Headers(headers);
    for (const line of cookies) init.append('Set-Cookie', line);
  }
  const response = new Response(JSON.stringify(answer.body), { status: answer.status, headers: init });
  if (state) state.answered = response;
  return response;
}

export function oauthError(status: number, error: string, description: string): Answer {
  return { status, body: { error, error_description: description } };
}

/** Picks the allowed fields; RFC 6749 section 3.2 forbids repeating a parameter. */
export function pickFields(form: URLSearchParams, fields: readonly string[]): { values: Map<string, string> } | { duplicate: string } {
  const values = new Map<string, string>();
  for (const field of fields) {
    const all = form.getAll(field);
    if (all.length > 1) return { duplicate: field };
    if (all.length === 1 && all[0] !== '') values.set(field, all[0]!);
  }
  return { values };
}

/** A client_id in the request must be ours; 401 invalid_client, as the service answers an unknown client. */
export function checkClientId(config: ResolvedConfig, form: URLSearchParams): Answer | undefined {
  const ids = form.getAll('client_id');
  if (ids.length > 1) return oauthError(400, 'invalid_request', 'client_id is repeated.');
  if (ids.length === 1 && ids[0] !== config.clientId) return oauthError(401, 'invalid_client', 'client_id does not match the client this proxy serves.');
  return undefined;
}

/** The session slot of a request: `open`, or `space:<id>` (1..200 characters). */
export function slotOf(values: Map<string, string>): string | Answer {
  const slot = values.get('session')!;
  if (slot.length > 200) return oauthError(400, 'invalid_request', 'session is longer than 200 characters.');
  return slot;
}

/** The global guard's key: callers whose address is unknown and who hold nothing of their own (docs/proxy.md). */
export const UNKNOWN_CALLERS = 'unknown-callers';
/** The global guard allows this many times the per-caller limit per window, all such callers together. */
const UNKNOWN_CALLERS_FACTOR = 100;

/**
 * The rate-limit bucket of a caller without a session: its address (`addr:<address>`); with the address unknown,
 * `own` (a bucket of this sign-in alone: its attempt, its state), else the global guard. Never one bucket that one
 * caller can fill for everyone's sign-in.
 */
export function callerKey(ctx: Ctx, c: C, own?: string): string {
  const address = callerAddress(ctx, c);
  if (address !== undefined) return `addr:${address}`;
  warnOnce(
    ctx,
    'address',
    "esign token proxy: warning: the caller's address is unknown (no clientAddress, no socket address): each sign-in and session " +
      'is rate-limited on its own, other requests under one global guard. Pass the address: handler(request, { clientAddress }) ' +
      '(docs/proxy.md, "The caller\'s address").',
  );
  return own ?? UNKNOWN_CALLERS;
}

/** Tells the operator once per proxy (its `onWarning`, default console.warn); never a secret, token or address. */
export function warnOnce(ctx: Ctx, topic: string, message: string): void {
  if (ctx.warned.has(topic)) return;
  ctx.warned.add(topic);
  try {
    ctx.config.onWarning(message);
  } catch {
    // a failing logger must not change the answer
  }
}

/**
 * The caller's address: the `clientAddress` option (given the handler's second argument), else the one the handler
 * was handed (`{ clientAddress }`, or a server's socket), else X-Forwarded-For from a trusted proxy; undefined when
 * none of them knows.
 */
export function callerAddress(ctx: Ctx, c: C): string | undefined {
  const { config } = ctx;
  if (config.clientAddress) {
    try {
      const address = config.clientAddress(c.req.raw, c.env);
      if (typeof address === 'string' && address.trim() !== '') return normalizeAddress(address);
    } catch {
      // fall through to the socket's address
    }
  }
  let remote: string | undefined;
  try {
    const address = (ctx.hooks.remoteAddress ?? serverAddress)(c);
    remote = address ? normalizeAddress(address) : undefined;
  } catch {
    remote = undefined;
  }
  if (remote !== undefined && config.trustedProxies.has(remote)) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((hop) => normalizeAddress(hop))
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!config.trustedProxies.has(hops[i]!)) return hops[i]!;
    }
  }
  return remote;
}

/**
 * The caller's address as handed to the Fetch handler beside the Request: `{ clientAddress }` (a framework's, e.g.
 * SvelteKit's `event.getClientAddress()`), or the socket's as the usual servers pass it: @hono/node-server's
 * `getRequestListener` (and so Express) `{incoming}`, `Deno.serve`'s `info.remoteAddr`, `Bun.serve`'s
 * `server.requestIP()`. Property reads only: nothing runtime-specific is imported.
 */
export function serverAddress(c: Context): string | undefined {
  const env = c.env as
    | {
        clientAddress?: unknown;
        incoming?: { socket?: { remoteAddress?: unknown } };
        remoteAddr?: { hostname?: unknown };
        requestIP?: (request: Request) => { address?: unknown } | null;
      }
    | undefined;
  if (!env || typeof env !== 'object') return undefined;
  if (typeof env.clientAddress === 'string' && env.clientAddress.trim() !== '') return env.clientAddress;
  const node = env.incoming?.socket?.remoteAddress;
  if (typeof node === 'string') return node;
  const deno = env.remoteAddr?.hostname;
  if (typeof deno === 'string') return deno;
  if (typeof env.requestIP === 'function') {
    const bun = env.requestIP(c.req.raw)?.address;
    if (typeof bun === 'string') return bun;
  }
  return undefined;
}

export async function rateLimited(ctx: Ctx, key: string): Promise<Answer | undefined> {
  const hit = rateHit(ctx, key);
  if (!hit) return undefined;
  const { count, resetMs } = await guard(ctx.config.store.hit(hit.key, hit.windowMs));
  return count <= hit.max ? undefined : tooMany(resetMs);
}

/** The caller's rate-limit hit, for a refresh to count in the same store step as its claim. */
export function rateHit(ctx: Ctx, key: string): RateHit | undefined {
  const rate = ctx.config.rateLimit;
  // a Redis Cluster hash tag: a refresh's claim carries the same one (see RefreshCoordinator), one slot for both
  if (!rate) return undefined;
  return { key: `rl:{${key}}`, windowMs: rate.windowMs, max: key === UNKNOWN_CALLERS ? rate.max * UNKNOWN_CALLERS_FACTOR : rate.max };
}

export function tooMany(resetMs: number): Answer {
  const answer: Answer & { [LIMITED]?: true } = {
    ...oauthError(429, 'temporarily_unavailable', 'Too many token requests; retry later.'),
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(resetMs / 1000))) },
  };
  answer[LIMITED] = true;
  return answer;
}

/** A call to the service on behalf of this request: its time is added to the request's upstream time (metrics, logs). */
export async function timed<T>(c: C, call: Promise<T> | (() => Promise<T>)): Promise<T> {
  const started = performance.now();
  try {
    return await (typeof call === 'function' ? call() : call);
  } finally {
    const state = c.get('st');
    state.upstreamMs = (state.upstreamMs ?? 0) + (performance.now() - started);
  }
}

/** A store failure of any kind is the store being unavailable (503), never a 500. */
export async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError('The store failed.');
  }
}

/** base64url of `bytes` random bytes. */
export function randomId(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}
