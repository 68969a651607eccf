/**
 * The ways docs/proxy.md and the README mount the token proxy, each run as written against the real emulator:
 * inside an existing Hono app, under `getRequestListener` in a plain node:http server, and as a Next.js-style route
 * handler (a function of Request returning Response, called with no server at all). Each one completes a real
 * sign-in: the proxy's login route and callback (the callback redeems the code and sets the session cookie), then a
 * refresh through that cookie answers an access token the service accepts. Deno, Bun, workerd and Express run
 * their recipes in proxy-runtimes.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { getRequestListener, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createEmulator } from '@esign-elements/emulator';
import { createTokenProxy, createTokenProxyApp, generateCookieKey, MemoryStore, tokenProxyOptionsFromEnv, type TokenProxyOptions } from '../src/index.js';
import { EsignError } from '@esign-elements/shared';
import { applyCookies, cookieHeader, DEMO_LOGIN, driveConsent, type Jar } from '@esign-elements/test-support/oauth-login';
import { freePort } from '@esign-elements/test-support/ports';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;
type Fetch = (request: Request) => Promise<Response>;

const ORIGIN = 'http://localhost:6006';
let emulator: Emulator;
const servers: Array<{ close(): unknown }> = [];

/** The recipe's options; `publicOrigin` is where browsers reach the proxy, and its callback is registered at the service. */
function options(publicOrigin: string): TokenProxyOptions {
  emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${publicOrigin}/api/esign/callback`);
  return {
    clientId: DEMO_LOGIN.clientId,
    clientSecret: DEMO_LOGIN.clientSecret,
    baseUrl: emulator.baseUrl,
    cookieKeys: [generateCookieKey()],
    allowedOrigins: [ORIGIN],
    publicOrigin,
    basePath: '/api/esign',
  };
}

/** The recipe's settings as environment variables of the CLI's names. */
function envFor(publicOrigin: string): Record<string, string> {
  const given = options(publicOrigin);
  return {
    ESIGN_CLIENT_ID: given.clientId,
    ESIGN_CLIENT_SECRET: given.clientSecret,
    ESIGN_BASE_URL: given.baseUrl,
    ESIGN_COOKIE_KEYS: given.cookieKeys!.join(','),
    ESIGN_ALLOWED_ORIGINS: given.allowedOrigins.join(','),
    ESIGN_PUBLIC_ORIGIN: given.publicOrigin!,
  };
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise((resolve) => server.close(resolve)) });
}

/** A GET a browser makes (a popup's navigation), through `send`, its cookies in and out of the jar; no redirect followed. */
async function navigate(send: Fetch, url: string, jar: Jar): Promise<Response> {
  const cookie = cookieHeader(jar);
  const response = await send(new Request(url, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} }));
  applyCookies(jar, response.headers.getSetCookie());
  return response;
}

/**
 * A sign-in through the proxy at `base` (…/api/esign), by whatever `send` reaches it, as a browser goes through it:
 * the login route (its pre-login cookie), the consent pages, the callback (the session cookie); then the page's
 * refresh with the cookie, whose access token the service accepts.
 */
async function signInThrough(send: Fetch, base: string): Promise<string> {
  const jar: Jar = new Map();
  const attempt = randomBytes(16).toString('base64url');
  const login = await navigate(
    send,
    `${base}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: DEMO_LOGIN.scope })}`,
    jar,
  );
  assert.equal(login.status, 303, await login.clone().text());
  const authorizationUrl = new URL(login.headers.get('location')!);
  assert.equal(authorizationUrl.searchParams.get('redirect_uri'), `${base}/callback`, "the proxy's own callback");
  const back = await driveConsent(authorizationUrl, { chooseSpaceId: 'space_acme' });
  assert.ok(back.startsWith(`${base}/callback?`), back);
  const callback = await navigate(send, back, jar);
  assert.equal(callback.status, 303, await callback.clone().text());
  assert.equal(callback.headers.get('location'), `${base}/login/done#${new URLSearchParams({ attempt, outcome: 'connected', origin: ORIGIN })}`);
  const name = `esign_${createHash('sha256').update(`${DEMO_LOGIN.clientId}\u0000/api/esign\u0000open`).digest('base64url').slice(0, 16)}`;
  const cookie = callback.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  // plain http on loopback: no prefix and no Secure; Path=/ whatever the basePath (the name carries the basePath)
  assert.ok(
    cookie?.includes('HttpOnly') && cookie.includes('Path=/;') && cookie.includes('SameSite=Strict') && !cookie.includes('Secure'),
    `the session cookie: ${cookie}`,
  );
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN };
  const refreshed = await send(
    new Request(`${base}/token`, {
      method: 'POST',
      headers: { ...headers, Cookie: cookieHeader(jar)! },
      body: new URLSearchParams({ grant_type: 'refresh_token', session: 'open', force: '1' }),
    }),
  );
  assert.equal(refreshed.status, 200, await refreshed.clone().text());
  const body = (await refreshed.json()) as Record<string, unknown>;
  assert.equal(body['refresh_token'], undefined, 'the page never gets the refresh token');
  const token = body['access_token'] as string;
  const view = await fetch(`${emulator.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  assert.equal(view.status, 200, 'the service accepts the refreshed access token');
  return token;
}

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
});

after(async () => {
  for (const server of servers) await server.close();
  await emulator.close();
});

describe('token proxy recipes', () => {
  test('inside an existing Hono app: its own routes untouched, the proxy on /api/esign', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const app = new Hono();
    app.get('/', (c) => c.text('the integrator home page'));
    app.route('/', createTokenProxyApp(options(base)));
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    servers.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    assert.equal(await (await fetch(`${base}/`)).text(), 'the integrator home page');
    await signInThrough((request) => fetch(request), `${base}/api/esign`);
    assert.equal((await fetch(`${base}/somewhere/api/esign/token`, { method: 'POST' })).status, 404, 'exact routes only');
  });

  test('a plain node:http server with getRequestListener (clientAddress given, as the docs say)', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const esignTokens = createTokenProxy({ ...options(base), clientAddress: (request) => request.headers.get('x-test-client') ?? undefined });
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- @hono/node-server's listener answers its own errors
    await listen(createServer(getRequestListener(esignTokens)), port);
    await signInThrough((request) => fetch(request), `${base}/api/esign`);
  });

  test('getRequestListener without clientAddress: the socket address comes with the request, so trustedProxies and the rate limit hold', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const esignTokens = createTokenProxy({ ...options(base), rateLimit: { windowMs: 60_000, max: 2 }, trustedProxies: ['127.0.0.1'] });
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- @hono/node-server's listener answers its own errors
    await listen(createServer(getRequestListener(esignTokens)), port);
    const ask = async (client: string): Promise<number> =>
      (
        await fetch(`${base}/api/esign/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN, 'X-Forwarded-For': client },
          body: 'grant_type=refresh_token&session=open',
        })
      ).status;
    // no session cookie: 401 until the caller's limit, then 429; the caller is X-Forwarded-For's, believed because
    // the socket's address (127.0.0.1) is a trusted proxy
    assert.deepEqual([await ask('203.0.113.1'), await ask('203.0.113.1'), await ask('203.0.113.1')], [401, 401, 429]);
    assert.equal(await ask('203.0.113.2'), 401, 'another caller has a limit of its own');
  });

  test("Workers: a refresh's store write after the answer is handed to the request's ctx.waitUntil", async () => {
    // a store whose writes take a while, as a remote one's do: here until the test lets them land (a fixed delay
    // raced the rest of the sign-in on a loaded machine)
    let letWritesLand!: () => void;
    const writesMayLand = new Promise<void>((resolve) => (letWritesLand = resolve));
    // a proxy that waited for the write before answering would hang the sign-in: after 10 s it fails the test instead
    const fallback = setTimeout(() => letWritesLand(), 10_000);
    class SlowStore extends MemoryStore {
      settle(key: string, value: string | undefined, ttlMs: number): Promise<void> {
        return writesMayLand.then(() => (value === undefined ? this.delete(key) : this.set(key, value, ttlMs)));
      }
    }
    const waited: Array<Promise<unknown>> = [];
    const executionCtx = { waitUntil: (promise: Promise<unknown>) => void waited.push(promise), passThroughOnException: () => undefined };
    const esignTokens = createTokenProxy({ ...options('http://localhost:3001'), store: new SlowStore() });
    await signInThrough((request) => esignTokens(request, {}, executionCtx), 'http://localhost:3001/api/esign');
    assert.equal(waited.length, 1, "the forced refresh's replay entry, written after its answer");
    let landed = false;
    void waited[0]!.then(() => (landed = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(landed, false, 'still being written when the answer was out');
    letWritesLand();
    clearTimeout(fallback);
    await Promise.all(waited);
    assert.equal(landed, true);
  });

  test('made at module scope without secrets (a production build): checked on the first request, and again after a failure', async () => {
    const env: Record<string, string> = {};
    let calls = 0;
    // what a build does: load the module, which makes the handler; nothing is read yet
    const esignTokens = createTokenProxy(async () => {
      calls++;
      return tokenProxyOptionsFromEnv(env, { basePath: '/api/esign', store: await Promise.resolve(new MemoryStore()) });
    });
    assert.equal(calls, 0, 'no option read at build time');
    const health = (): Promise<Response> => esignTokens(new Request('http://localhost:3002/api/esign/health'));
    await assert.rejects(health(), (error: unknown) => {
      assert.ok(error instanceof EsignError && error.code === 'invalid_config');
      assert.match(error.message, /clientId is required\.\nclientSecret is required\./, 'every mistake named');
      assert.ok(!/undefined|split/.test(error.message));
      return true;
    });
    // the secrets arrive (a fixed deployment): the next request makes the proxy
    Object.assign(env, envFor('http://localhost:3002'));
    assert.equal((await health()).status, 200);
    await signInThrough((request) => esignTokens(request), 'http://localhost:3002/api/esign');
    assert.equal(calls, 2, 'made once after the failure, then kept');
  });

  test('a Next.js-style route handler: GET, POST and OPTIONS are the handler, called with a Request and no server', async () => {
    const esignTokens = createTokenProxy(options('http://localhost:3000'));
    // app/api/esign/[...path]/route.ts (GET: the sign-in's login, callback and done page)
    const handler = (request: Request): Promise<Response> => esignTokens(request);
    const GET = handler;
    const POST = handler;
    const OPTIONS = handler;
    const preflight = await OPTIONS(
      new Request('http://localhost:3000/api/esign/token', {
        method: 'OPTIONS',
        headers: { Origin: 'http://localhost:6006', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-esign-proxy' },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:6006');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
    const route = (request: Request): Promise<Response> => (request.method === 'GET' ? GET(request) : POST(request));
    await signInThrough(route, 'http://localhost:3000/api/esign');
  });
});
