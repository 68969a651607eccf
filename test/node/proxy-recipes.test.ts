/**
 * The ways docs/proxy.md and the README mount the token proxy, each run as written against the real emulator:
 * inside an existing Hono app, under `getRequestListener` in a plain node:http server, and as a Next.js-style route
 * handler (a function of Request returning Response, called with no server at all). Each one completes a real
 * sign-in: the code exchange sets the session cookie, a refresh through that cookie answers an access token the
 * service accepts. (The Workers-style bundle is tested in proxy-bundle.test.ts; Deno and Bun are not installed
 * here.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getRequestListener, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createEmulator } from '../../src/emulator/index.js';
import { createTokenProxy, createTokenProxyApp, generateCookieKey, type TokenProxyOptions } from '../../src/proxy/index.js';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '../helpers/oauth-login.js';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;
type Fetch = (request: Request) => Promise<Response>;

let emulator: Emulator;
const servers: Array<{ close(): unknown }> = [];

function options(): TokenProxyOptions {
  return {
    clientId: DEMO_LOGIN.clientId,
    clientSecret: DEMO_LOGIN.clientSecret,
    baseUrl: emulator.baseUrl,
    cookieKeys: [generateCookieKey()],
    allowedOrigins: ['http://localhost:6006'],
    redirectUris: [DEMO_LOGIN.redirectUri],
    basePath: '/api/esign',
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise((resolve) => server.close(resolve)) });
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

/** A sign-in through the proxy at `base` (…/api/esign), by whatever `send` reaches it: exchange, then refresh with the cookie. */
async function signInThrough(send: Fetch, base: string): Promise<string> {
  const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId: 'space_acme' });
  const form = codeExchangeForm(login, DEMO_LOGIN.clientId);
  form.set('session', 'open');
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: 'http://localhost:6006' };
  const exchanged = await send(new Request(`${base}/token`, { method: 'POST', headers, body: form }));
  assert.equal(exchanged.status, 200, await exchanged.clone().text());
  const body = (await exchanged.json()) as Record<string, unknown>;
  assert.equal(body['refresh_token'], undefined, 'the page never gets the refresh token');
  const cookie = exchanged.headers.getSetCookie().find((c) => c.startsWith('esign_s_'));
  assert.ok(cookie?.includes('HttpOnly') && cookie.includes('Path=/api/esign'), `the session cookie: ${cookie}`);
  const refreshed = await send(
    new Request(`${base}/token`, {
      method: 'POST',
      headers: { ...headers, Cookie: cookie!.split(';')[0]! },
      body: new URLSearchParams({ grant_type: 'refresh_token', session: 'open', redirect_uri: DEMO_LOGIN.redirectUri, force: '1' }),
    }),
  );
  assert.equal(refreshed.status, 200, await refreshed.clone().text());
  const token = ((await refreshed.json()) as { access_token: string }).access_token;
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
    const app = new Hono();
    app.get('/', (c) => c.text('the integrator home page'));
    app.route('/', createTokenProxyApp(options()));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    servers.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const base = `http://localhost:${(server.address() as AddressInfo).port}`;
    assert.equal(await (await fetch(`${base}/`)).text(), 'the integrator home page');
    await signInThrough((request) => fetch(request), `${base}/api/esign`);
    assert.equal((await fetch(`${base}/somewhere/api/esign/token`, { method: 'POST' })).status, 404, 'exact routes only');
  });

  test('a plain node:http server with getRequestListener (clientAddress given, as the docs say)', async () => {
    const esignTokens = createTokenProxy({ ...options(), clientAddress: (request) => request.headers.get('x-test-client') ?? undefined });
    const base = await listen(createServer(getRequestListener(esignTokens)));
    await signInThrough((request) => fetch(request), `${base}/api/esign`);
  });

  test('a Next.js-style route handler: POST and OPTIONS are the handler, called with a Request and no server', async () => {
    const esignTokens = createTokenProxy(options());
    // app/api/esign/[action]/route.ts
    const POST = (request: Request): Promise<Response> => esignTokens(request);
    const OPTIONS = POST;
    const preflight = await OPTIONS(
      new Request('http://localhost:3000/api/esign/token', {
        method: 'OPTIONS',
        headers: { Origin: 'http://localhost:6006', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-esign-proxy' },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:6006');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
    await signInThrough(POST, 'http://localhost:3000/api/esign');
  });
});
