/**
 * No caller can lock everyone else out of the sign-in, however the proxy is mounted (issue 47): for every recipe and
 * mounting snippet of the docs that runs in Node, one caller (127.0.0.2) floods the login route and the token route
 * without a session until its own sign-ins are refused, then another person (127.0.0.1) connects and gets an access
 * token. The frameworks' route handlers (Next.js, Nuxt, SvelteKit) are called as those frameworks call them, with a
 * Request and their context object, by a node:http server standing in for the framework's (the frameworks themselves
 * are not installed here). The Next.js, Nuxt, SvelteKit and Angular files are those of recipes/frameworks/ that the
 * guide quotes, imported as they are, with the framework's few imports stubbed (Angular's server.ts is real Express).
 * The same lockout runs through each of the four in a real app built from the packed tarballs, in test:all
 * (test/e2e/nextjs-app, nuxt-app, sveltekit-app and angular-app: the real @angular/ssr/node). Deno, Bun, workerd and the Express recipe run the same scenario in proxy-runtimes.test.ts.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { register } from 'node:module';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { getRequestListener, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createEmulator } from '@esign-elements/emulator';
import { createTokenProxy, createTokenProxyApp, generateCookieKey, tokenProxyOptionsFromEnv } from '../src/index.js';
import { serveTokenProxy } from '../src/node.js';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { ORIGIN } from '@esign-elements/test-support/proxy-client';
import { freePort } from '@esign-elements/test-support/ports';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;
let emulator: Emulator;
const closers: Array<() => Promise<unknown>> = [];
const KEY = generateCookieKey();
/** The per-caller limit of every proxy here; each flood is past it. */
const MAX = 5;
const FLOOD = 8;
const warnings: string[] = [];
/** What @hono/node-server's getRequestListener passes beside the Request: the Node request (its socket) and response. */
type Socketed = { incoming: { socket: { remoteAddress?: string } }; outgoing: unknown };

/** The app's environment, with the CLI's names, for a proxy reached at `http://localhost:<port>`. */
function environment(port: number): Record<string, string> {
  const publicOrigin = `http://localhost:${port}`;
  emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${publicOrigin}/api/esign/callback`);
  return {
    ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
    ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
    ESIGN_BASE_URL: emulator.baseUrl,
    ESIGN_COOKIE_KEYS: KEY,
    ESIGN_ALLOWED_ORIGINS: ORIGIN,
    ESIGN_PUBLIC_ORIGIN: publicOrigin,
    ESIGN_RATE_LIMIT: String(MAX),
  };
}

/** A node:http server on `port` answering with `listener`, closed after the file. */
async function listen(port: number, listener: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<string> {
  // the listeners answer their own errors (getRequestListener, Express)
  const server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://localhost:${port}/api/esign`;
}

// what the frameworks' build tools resolve and these tests do not install: SvelteKit's `$env/dynamic/private` (the
// server's environment at run time, as adapter-node gives it) and Angular's `@angular/ssr/node` (an engine that
// renders no page here; the server is not the main module, so it does not listen by itself)
const STUBS: Record<string, string> = {
  '$env/dynamic/private': 'export const env = process.env;',
  '@angular/ssr/node': [
    'export class AngularNodeAppEngine { async handle() { return null; } }',
    'export const createNodeRequestHandler = (handler) => handler;',
    'export const isMainModule = () => false;',
    'export const writeResponseToNodeResponse = async () => {};',
  ].join('\n'),
};
register(
  `data:text/javascript,${encodeURIComponent(`const stubs = ${JSON.stringify(STUBS)};
export async function resolve(specifier, context, next) {
  return specifier in stubs ? { url: 'data:text/javascript,' + encodeURIComponent(stubs[specifier]), shortCircuit: true } : next(specifier, context);
}`)}`,
);

/** A recipe of recipes/frameworks/, imported as the framework would (a path TypeScript does not follow: its globals are the framework's). */
async function frameworkRecipe<T>(file: string): Promise<T> {
  return (await import(new URL(`../recipes/frameworks/${file}`, import.meta.url).href)) as T;
}

/** Runs `body` with `variables` in process.env (the recipes read it), then puts process.env back. */
async function withProcessEnv(variables: Record<string, string>, body: () => Promise<void>): Promise<void> {
  const before = new Map(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    await body();
  } finally {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The scenario: the flood, then another person connects. */
async function lockoutScenario(base: string, floodHeaders: Record<string, string> = {}): Promise<void> {
  await floodSignIn(base, { count: FLOOD, headers: floodHeaders });
  await personConnects(base);
}

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
});

after(async () => {
  for (const close of closers) await close();
  await emulator.close();
});

describe('one caller floods the sign-in, another person then connects', () => {
  test('the Node server (serveTokenProxy): the socket address', async () => {
    const port = await freePort();
    const served = await serveTokenProxy({ ...tokenProxyOptionsFromEnv(environment(port), { basePath: '/api/esign' }), port });
    closers.push(() => served.close());
    await lockoutScenario(`http://localhost:${port}/api/esign`);
  });

  test('Hono: the lazy handler inside an app, given c.env (the socket) and the app.route form', async () => {
    for (const form of ['handler', 'route'] as const) {
      const port = await freePort();
      const env = environment(port);
      const app = new Hono();
      if (form === 'handler') {
        const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(env, { basePath: '/api/esign' }));
        app.all('/api/esign/*', (c) => esignTokens(c.req.raw, c.env));
      } else app.route('/', createTokenProxyApp(tokenProxyOptionsFromEnv(env, { basePath: '/api/esign' })));
      const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }) as Server;
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      closers.push(() => new Promise((resolve) => server.close(resolve)));
      await lockoutScenario(`http://localhost:${port}/api/esign`);
    }
  });

  test('Angular SSR (recipes/frameworks/angular-server.ts as written): the proxy before the Angular engine, the socket address', async () => {
    const port = await freePort();
    await withProcessEnv(environment(port), async () => {
      const { reqHandler } = await frameworkRecipe<{ reqHandler: (req: IncomingMessage, res: ServerResponse) => void }>('angular-server.ts');
      await lockoutScenario(await listen(port, reqHandler));
    });
  });

  // app/api/esign/[...path]/route.ts, as the Next.js guide gives it, with the address function of each deployment
  const nextRoute = (env: Record<string, string>, clientAddress: (request: Request) => string | null | undefined) => {
    const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(env, { basePath: '/api/esign', onWarning: (m) => void warnings.push(m) }));
    const handler = (request: Request): Promise<Response> => esignTokens(request, { clientAddress: clientAddress(request) });
    return { GET: handler, POST: handler, OPTIONS: handler };
  };
  /** As Next.js calls a route handler: its Request and `{ params }`; X-Forwarded-For set from the socket unless sent (as `next start` does). */
  const nextServer = (route: ReturnType<typeof nextRoute>, edge?: 'vercel') =>
    getRequestListener((request: Request, env: Socketed) => {
      const headers = new Headers(request.headers);
      if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', env.incoming.socket.remoteAddress!);
      // Vercel's edge: x-real-ip is the caller's address, whatever the caller sent
      if (edge === 'vercel') headers.set('x-real-ip', env.incoming.socket.remoteAddress!);
      const forwarded = new Request(request, { headers });
      const path = new URL(request.url).pathname.split('/').slice(3);
      const method = request.method as 'GET' | 'POST' | 'OPTIONS';
      const call = route[method] as (request: Request, context: { params: Promise<{ path: string[] }> }) => Promise<Response>;
      return call(forwarded, { params: Promise.resolve({ path }) });
    });

  test('Next.js route handler on Vercel (recipes/frameworks/next-route.ts as written): x-real-ip from its edge', async () => {
    const port = await freePort();
    await withProcessEnv({ ...environment(port), VERCEL: '1' }, async () => {
      const route = await frameworkRecipe<ReturnType<typeof nextRoute>>('next-route.ts');
      await lockoutScenario(await listen(port, nextServer(route, 'vercel')), { 'X-Real-IP': '198.51.100.7' });
    });
  });

  test('Next.js route handler behind a reverse proxy: the address it appends to X-Forwarded-For', async () => {
    const port = await freePort();
    const route = nextRoute(environment(port), (request) => request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim());
    // the reverse proxy (this server) appends the socket's address; the flooder's own X-Forwarded-For stays to the left
    const behind = nextServer(route);
    await lockoutScenario(
      await listen(port, (req, res) => {
        req.headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
        return behind(req, res);
      }),
      { 'X-Forwarded-For': '198.51.100.7' },
    );
  });

  test('Next.js route handler, `next start` exposed directly: no address to trust, and still no lockout', async () => {
    const port = await freePort();
    warnings.length = 0;
    const route = nextRoute(environment(port), () => undefined);
    // the flooder's forged X-Forwarded-For, kept by next start, is read by no one
    await lockoutScenario(await listen(port, nextServer(route)), { 'X-Forwarded-For': '198.51.100.7' });
    assert.equal(warnings.filter((m) => /caller's address is unknown/.test(m)).length, 1, 'the unknown address is said once');
    assert.equal(warnings.filter((m) => /store: memory/.test(m)).length, 1, 'and the store in memory, once');
  });

  test('Nuxt (recipes/frameworks/nuxt-route.ts as written): esignTokens(toWebRequest(event), { clientAddress: getRequestIP(event) })', async () => {
    const port = await freePort();
    // h3's auto-imports, as h3 1.x defines them for a Node event (getRequestIP without xForwardedFor: the socket's)
    type H3Event = { node: { req: IncomingMessage; res: ServerResponse }; web: { request: Request } };
    const h3 = {
      defineEventHandler: (handler: (event: H3Event) => Promise<Response>) => handler,
      toWebRequest: (event: H3Event): Request => event.web.request,
      getRequestIP: (event: H3Event): string | undefined => event.node.req.socket.remoteAddress,
    };
    Object.assign(globalThis, h3);
    try {
      await withProcessEnv(environment(port), async () => {
        const { default: route } = await frameworkRecipe<{ default: (event: H3Event) => Promise<Response> }>('nuxt-route.ts');
        const nitro = getRequestListener((request: Request, node: Socketed) =>
          route({ node: { req: node.incoming as IncomingMessage, res: node.outgoing as ServerResponse }, web: { request } }),
        );
        await lockoutScenario(await listen(port, nitro));
      });
    } finally {
      for (const name of Object.keys(h3)) delete (globalThis as Record<string, unknown>)[name];
    }
  });

  test('SvelteKit (recipes/frameworks/sveltekit-server.ts as written): esignTokens(request, { clientAddress: getClientAddress() })', async () => {
    const port = await freePort();
    type RequestEvent = { request: Request; url: URL; params: Record<string, string>; getClientAddress: () => string };
    await withProcessEnv(environment(port), async () => {
      const { GET, POST, OPTIONS } =
        await frameworkRecipe<Record<'GET' | 'POST' | 'OPTIONS', (event: RequestEvent) => Promise<Response>>>('sveltekit-server.ts');
      const routes = { GET, POST, OPTIONS };
      // as SvelteKit calls a +server.ts handler; adapter-node: getClientAddress() is the socket's address
      const kit = getRequestListener((request: Request, node: Socketed) =>
        routes[request.method as 'GET' | 'POST' | 'OPTIONS']({
          request,
          url: new URL(request.url),
          params: { path: new URL(request.url).pathname.slice('/api/esign/'.length) },
          getClientAddress: () => node.incoming.socket.remoteAddress!,
        }),
      );
      await lockoutScenario(await listen(port, kit));
    });
  });

  test('no address, the old recipe (esignTokens(request)): the flooder rotating attempts and cookies locks no one out', async () => {
    const port = await freePort();
    warnings.length = 0;
    const esignTokens = createTokenProxy(tokenProxyOptionsFromEnv(environment(port), { basePath: '/api/esign', onWarning: (m) => void warnings.push(m) }));
    const base = await listen(
      port,
      getRequestListener((request: Request) => esignTokens(request)),
    );
    // a flooder starting fresh sign-ins: each its own bucket, so nothing it does fills anyone else's
    for (let i = 0; i < 3; i++) await floodSignIn(base, { count: MAX + 1 });
    await personConnects(base);
    assert.equal(warnings.filter((m) => /caller's address is unknown/.test(m)).length, 1);
  });
});
