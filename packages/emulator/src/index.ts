/**
 * The service emulator: a local stand-in for the hosted e-signature service (business API,
 * consent and embedded pages, file-management domain) plus test helpers under /__emulator/.
 * Contract: docs/architecture.md, "The emulator's wire contract".
 */
import type { AddressInfo, Socket } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { mountBusiness } from './app.js';
import { mountDevRoutes } from './dev-routes.js';
import { mountEmbedded } from './embedded-pages.js';
import { counterMiddleware, faultMiddleware } from './faults.js';
import { mountFileDomain } from './file-domain.js';
import { type Ctx, type EmuEnv, fail, originAllowed, requestIdMiddleware, ServiceError } from './http.js';
import { mountOAuth } from './oauth.js';
import type { Runtime } from './runtime.js';
import { demoSeed, mergeSeed } from './seed.js';
import { OPENER_POLICIES, Store } from './state.js';
import { DEFAULT_LIMITS, type EmulatorLimits, type EmulatorOptions, type RunningEmulator } from './types.js';

export { demoSeed, mergeSeed, parseSeedInput } from './seed.js';
export { DEFAULT_LIMITS } from './types.js';
export type { OutboxEmail } from './state.js';
export type {
  EmulatorLimits,
  EmulatorOptions,
  EmulatorSeed,
  EmulatorSeedInput,
  MemberRole,
  MemberStatus,
  OriginList,
  RunningEmulator,
  SeedApp,
  SeedMember,
  SeedSpace,
  SeedUser,
} from './types.js';

function corsFor(rt: Runtime): MiddlewareHandler<EmuEnv> {
  return cors({
    origin: (origin) => (originAllowed(rt.corsOrigins, origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Operator-User-Id', 'X-TC-Action'],
    exposeHeaders: ['Retry-After', 'X-Request-Id'],
    maxAge: 600,
  }) as MiddlewareHandler<EmuEnv>;
}

function handleError(rt: Runtime) {
  return (err: Error, c: Ctx): Response => {
    if (err instanceof ServiceError) return fail(c, err.status, err.code, err.message, err.headers);
    if (err instanceof HTTPException && err.status < 500) return fail(c, err.status, 'InvalidParameter', 'The request could not be read.');
    // never the message: it might echo request data
    rt.log(`internal error: ${err?.name ?? 'Error'}`);
    return fail(c, 500, 'InternalError', 'Internal error.');
  };
}

function baseApp(rt: Runtime, counterPrefix: string): Hono<EmuEnv> {
  const app = new Hono<EmuEnv>();
  app.use('*', requestIdMiddleware);
  app.use('*', counterMiddleware(rt, counterPrefix));
  app.onError(handleError(rt));
  app.notFound((c) => fail(c, 404, 'ResourceNotFound', `No route ${c.req.method} ${new URL(c.req.url).pathname}.`));
  // a browser showing the consent page asks for it: an icon, not a 404 in the console
  app.get('/favicon.ico', (c) => c.body(FAVICON, 200, { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=86400' }));
  return app;
}

/** The emulator's icon: one blue pixel (PNG), for /favicon.ico. */
const FAVICON = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (ch) =>
  ch.charCodeAt(0),
);

export function buildBusinessApp(rt: Runtime): Hono<EmuEnv> {
  const app = baseApp(rt, '');
  const withCors = corsFor(rt);
  // token and revoke are server to server only: no CORS, so a browser cannot call them directly
  app.use('/openapi/v1/*', (c, next) => (/^\/openapi\/v1\/oauth\/(token|revoke)$/.test(c.req.path) ? next() : withCors(c, next)));
  app.use('/__emulator/*', withCors);
  app.use('*', faultMiddleware(rt));
  // every body except the upload's (which has its own, larger cap) is small: forms, JSON
  const smallBodies = bodyLimit({ maxSize: 1024 * 1024, onError: (c) => fail(c as Ctx, 413, 'LimitExceeded.RequestSize', 'The request body is too large.') });
  app.use('*', (c, next) => (c.req.path === '/openapi/v1/files/upload' ? next() : smallBodies(c, next)));
  mountOAuth(app, rt);
  mountBusiness(app, rt);
  mountEmbedded(app, rt);
  mountDevRoutes(app, rt);
  return app;
}

export function buildFileApp(rt: Runtime): Hono<EmuEnv> {
  const app = baseApp(rt, 'file:');
  app.use('*', corsFor(rt));
  app.use('*', faultMiddleware(rt));
  mountFileDomain(app, rt);
  mountDevRoutes(app, rt);
  return app;
}

function listen(
  fetch: (req: Request, env: never) => Response | Promise<Response>,
  port: number,
  hostname: string,
): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: fetch as never, port, hostname }, (info: AddressInfo) => {
      server.off('error', reject);
      resolve({ server, port: info.port });
    });
    server.once('error', reject);
  });
}

/** Cuts a server off the network and back: open connections are reset, and new ones while it is cut. */
function severable(server: ServerType): (offline: boolean) => void {
  const sockets = new Set<Socket>();
  let offline = false;
  server.on('connection', (socket: Socket) => {
    if (offline) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return (next) => {
    offline = next;
    if (offline) for (const socket of sockets) socket.destroy();
  };
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    const s = server as import('node:http').Server;
    s.close(() => resolve());
    s.closeAllConnections?.();
  });
}

function checkPublicUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`publicUrl is not a URL: ${value}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('publicUrl must be http(s)');
  // pages link with absolute paths, so only an origin works (no path prefix)
  if (u.search || u.hash || u.pathname !== '/') throw new Error('publicUrl must be an origin, e.g. https://esign.example.test');
  return u.origin;
}

function checkLimits(limits: EmulatorLimits): void {
  for (const [k, v] of Object.entries(limits)) {
    // a grace of 0 means none; every other limit must be positive
    const min = k === 'refreshReuseGraceSeconds' ? 0 : Number.MIN_VALUE;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new Error(`limits.${k} must be a ${min === 0 ? 'non-negative' : 'positive'} number`);
  }
}

/** Starts the business API and the file-management domain; both listen on 127.0.0.1 by default. */
export async function createEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const seed = options.seed ? mergeSeed(demoSeed(), options.seed) : demoSeed();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  checkLimits(limits);
  const host = options.host ?? '127.0.0.1';
  const store = new Store(seed, limits);
  const policy = options.consentOpenerPolicy;
  if (policy !== undefined && !OPENER_POLICIES.includes(policy)) throw new Error(`consentOpenerPolicy must be one of ${OPENER_POLICIES.join(', ')}`);
  store.consentOpenerPolicy = store.consentOpenerPolicyDefault = policy;
  const rt: Runtime = {
    store,
    limits,
    publicUrl: '',
    fileUrl: '',
    corsOrigins: options.corsOrigins,
    frameAncestors: options.frameAncestors,
    devRedirects: options.devRedirects === true,
    log: options.log ?? (() => {}),
  };
  const business = await listen(buildBusinessApp(rt).fetch as never, options.port ?? 0, host);
  let files: { server: ServerType; port: number };
  try {
    files = await listen(buildFileApp(rt).fetch as never, options.filePort ?? 0, host);
  } catch (err) {
    await closeServer(business.server);
    throw err;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${business.port}`;
  const fileUrl = `http://${urlHost}:${files.port}`;
  rt.publicUrl = options.publicUrl ? checkPublicUrl(options.publicUrl) : baseUrl;
  rt.fileUrl = fileUrl;
  let closed: Promise<void> | undefined;
  const cuts = [severable(business.server), severable(files.server)];
  return {
    baseUrl,
    fileUrl,
    seed,
    reset: () => store.reset(),
    advanceClock: (seconds: number) => store.advance(seconds),
    now: () => store.now(),
    setLimits: (changes) => {
      checkLimits({ ...limits, ...changes });
      Object.assign(limits, changes);
    },
    registerRedirectUri: (clientId, redirectUri) => {
      const seeded = seed.apps.find((app) => app.clientId === clientId);
      const live = store.apps.get(clientId);
      if (!seeded || !live) throw new Error(`registerRedirectUri: no app ${clientId}`);
      for (const app of [seeded, live]) if (!app.redirectUris.includes(redirectUri)) app.redirectUris.push(redirectUri);
    },
    setOffline: (offline) => {
      for (const cut of cuts) cut(offline);
    },
    close: () => (closed ??= Promise.all([closeServer(business.server), closeServer(files.server)]).then(() => undefined)),
  };
}
