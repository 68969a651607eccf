import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { type Ctx, type EmuEnv, fail, oauthError } from './http.js';
import type { Runtime } from './runtime.js';
import { type Fault, shortId } from './state.js';

const DEFAULT_CODES: Record<number, string> = {
  400: 'InvalidParameter',
  401: 'AuthFailure.TokenInvalid',
  403: 'OperationDenied',
  404: 'ResourceNotFound',
  409: 'FailedOperation',
  413: 'LimitExceeded',
  429: 'RequestLimitExceeded',
};

/** Validates a POST /__emulator/faults body; returns the stored fault or a message. */
export function parseFault(body: unknown): Fault | string {
  if (typeof body !== 'object' || body === null) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.path !== 'string' || !b.path.startsWith('/')) return 'path must be a path prefix starting with /';
  if (b.method !== undefined && (typeof b.method !== 'string' || !/^[A-Za-z]+$/.test(b.method))) return 'method must be an HTTP method';
  if (b.kind !== 'delay' && b.kind !== 'status' && b.kind !== 'drop') return 'kind must be delay, status or drop';
  const status = b.status ?? 503;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return 'status must be an integer 400..599';
  // a status fault answers at once unless asked to wait (a slow failure); a delay waits 1 s by default
  const delayMs = b.delayMs ?? (b.kind === 'status' ? 0 : 1000);
  if (typeof delayMs !== 'number' || delayMs < 0 || delayMs > 120_000) return 'delayMs must be 0..120000';
  if (b.retryAfter !== undefined && (typeof b.retryAfter !== 'number' || !Number.isInteger(b.retryAfter) || b.retryAfter < 0))
    return 'retryAfter must be a non-negative integer (seconds)';
  const times = b.times ?? 1;
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 1) return 'times must be a positive integer';
  if (b.code !== undefined && typeof b.code !== 'string') return 'code must be a string';
  if (b.after !== undefined && (typeof b.after !== 'boolean' || b.kind === 'status')) return 'after must be a boolean, with kind delay or drop';
  return {
    id: shortId('fault_'),
    path: b.path,
    method: typeof b.method === 'string' ? b.method.toUpperCase() : undefined,
    kind: b.kind,
    status,
    delayMs,
    retryAfter: b.retryAfter as number | undefined,
    remaining: times,
    ...(typeof b.code === 'string' ? { code: b.code } : {}),
    ...(b.after === true ? { after: true as const } : {}),
  };
}

/** Waits `ms`: a held request or answer. */
const hold = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Applies injected faults to matching requests (never to /__emulator/ itself, never to preflights unless asked). */
export function faultMiddleware(rt: Runtime): MiddlewareHandler<EmuEnv> {
  return async (c, next) => {
    const path = new URL(c.req.url).pathname;
    const method = c.req.method.toUpperCase();
    if (path.startsWith('/__emulator/')) return next();
    const fault = rt.store.faults.find((f) => f.remaining > 0 && path.startsWith(f.path) && (f.method ? f.method === method : method !== 'OPTIONS'));
    if (!fault) return next();
    fault.remaining -= 1;
    rt.store.faults = rt.store.faults.filter((f) => f.remaining > 0);
    if (fault.kind === 'delay' && fault.after) {
      // processed now (a refresh token rotated), answered later
      await next();
      await hold(fault.delayMs);
      return;
    }
    if (fault.kind === 'delay') {
      await hold(fault.delayMs);
      return next();
    }
    if (fault.kind === 'drop') {
      // after: processed (a refresh token rotated), then the connection lost before the answer
      if (fault.after) await next();
      c.env.incoming.socket?.destroy();
      return new Response(null, { status: 599 });
    }
    if (fault.delayMs > 0) await hold(fault.delayMs);
    return faultResponse(c, path, fault);
  };
}

function faultResponse(c: Ctx, path: string, fault: Fault): Response {
  const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'Retry-After': String(fault.retryAfter) } : {};
  if (path.startsWith('/openapi/v1/oauth/'))
    return oauthError(
      fault.status,
      fault.status === 503 ? 'temporarily_unavailable' : fault.status >= 500 ? 'server_error' : 'invalid_request',
      'Injected fault.',
      headers,
    );
  const code = fault.code ?? DEFAULT_CODES[fault.status] ?? 'InternalError';
  return fail(c, fault.status, code, 'Injected fault.', headers);
}

/** Counts requests per route pattern (and the file domain separately) for GET /__emulator/requests. */
export function counterMiddleware(rt: Runtime, prefix: string): MiddlewareHandler<EmuEnv> {
  return async (c, next) => {
    try {
      await next();
    } finally {
      const path = new URL(c.req.url).pathname;
      if (!path.startsWith('/__emulator/') && c.req.method !== 'OPTIONS') {
        const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL');
        const route = routes.at(-1)?.path ?? '(unmatched)';
        rt.store.count(`${prefix}${c.req.method} ${route}`);
      }
    }
  };
}
