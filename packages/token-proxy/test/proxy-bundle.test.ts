/**
 * `@esign-elements/token-proxy` on a Workers-style runtime: bundled with esbuild for a neutral platform with the
 * workerd/worker conditions, the bundle has no `node:` import; then that bundle alone serves the default mode's
 * sign-in (its login and callback routes), a cached and a forced refresh and a revocation against the real emulator, on plain
 * Request/Response, in a fresh `node` process that loads nothing else of this repository.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { DEMO_LOGIN, driveConsent } from '@esign-elements/test-support/oauth-login';

const ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));
let emulator: Awaited<ReturnType<typeof createEmulator>>;
let dir: string;

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  dir = await mkdtemp(join(tmpdir(), 'esign-proxy-bundle-'));
});
after(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * What the fresh process runs: the bundle's handler on plain Requests, as a worker's fetch would be called. The
 * sign-in goes through the proxy's own routes: GET /login (its pre-login cookie kept), the authorization URL to the
 * parent on stdout (a person on the consent pages), the service's redirect back on stdin, GET /callback with that
 * cookie (the session cookie kept); then the page's calls to /token and /revoke.
 */
const RUNNER = `
import { createInterface } from 'node:readline';
import { createTokenProxy } from './proxy.mjs';
const { baseUrl, clientId, clientSecret, publicOrigin, key } = JSON.parse(process.argv[2]);
const handler = createTokenProxy({
  clientId, clientSecret, baseUrl, publicOrigin, allowedOrigins: ['https://app.example.com'],
  cookieKeys: [key], clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
});
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const cookieOf = (setCookies, pattern) => setCookies.find((line) => pattern.test(line)) ?? null;
const get = async (url, cookie) => {
  const headers = { 'CF-Connecting-IP': '198.51.100.1' };
  if (cookie) headers.Cookie = cookie;
  const response = await handler(new Request(url, { headers, redirect: 'manual' }));
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get('location'), setCookies: response.headers.getSetCookie() };
};
const call = async (path, fields, cookie) => {
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: 'https://app.example.com', 'CF-Connecting-IP': '198.51.100.1' };
  if (cookie) headers.Cookie = cookie;
  const response = await handler(new Request(publicOrigin + path, { method: 'POST', headers, body: new URLSearchParams(fields).toString() }));
  return { status: response.status, json: await response.json(), cookie: response.headers.getSetCookie()[0] ?? null };
};
const attempt = 'bundle-attempt-0123456789';
const login = await get(publicOrigin + '/login?' + new URLSearchParams({ session: 'open', origin: 'https://app.example.com', display: 'popup', attempt, scope: 'envelope:create envelope:read' }));
const preLogin = cookieOf(login.setCookies, /^__Host-esign_l_/);
process.stdout.write(JSON.stringify({ authorize: login.location }) + '\\n');
const back = (await lines.next()).value;
const callback = await get(back, preLogin.split(';')[0]);
const session = cookieOf(callback.setCookies, /^__Host-esign_(?!l_)/);
const cookie = session.split(';')[0];
const refresh = { grant_type: 'refresh_token', session: 'open' };
const first = await call('/token', refresh, cookie);
const cached = await call('/token', refresh, cookie);
const forced = await call('/token', { ...refresh, force: '1' }, cookie);
const revoked = await call('/revoke', { session: 'open' }, forced.cookie.split(';')[0]);
const notFound = await call('/anything/token', refresh, cookie);
process.stdout.write(JSON.stringify({ login: { status: login.status, preLogin }, callback: { status: callback.status, location: callback.location, session }, first, cached, forced, revoked, notFound }) + '\\n');
process.exit(0);
`;

describe('@esign-elements/token-proxy for a Workers-style runtime', () => {
  test('the esbuild bundle (platform neutral, workerd/worker conditions, esm) imports nothing from node:', async () => {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      platform: 'neutral',
      conditions: ['workerd', 'worker'],
      mainFields: ['module', 'main'],
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    assert.equal(result.errors.length, 0);
    assert.deepEqual(
      [...code.matchAll(/["'`]node:[\w/]+["'`]/g)].map((m) => m[0]),
      [],
      'no node: specifier',
    );
    for (const builtin of ['http', 'https', 'net', 'crypto', 'fs', 'buffer']) {
      assert.ok(!new RegExp(`(from|import\\(|require\\()\\s*["']${builtin}["']`).test(code), `no bare ${builtin} import`);
    }
    await writeFile(join(dir, 'proxy.mjs'), code);
  });

  test('the bundle alone serves the sign-in (login, callback), cached and forced refresh, revoke on plain Request/Response in a fresh process', async () => {
    const publicOrigin = 'https://auth.example.com';
    // the proxy's callback is the redirect URI registered at the service, as an integrator registers it
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${publicOrigin}/callback`);
    await writeFile(join(dir, 'runner.mjs'), RUNNER);
    const key = generateCookieKey();
    const args = JSON.stringify({ baseUrl: emulator.baseUrl, clientId: DEMO_LOGIN.clientId, clientSecret: DEMO_LOGIN.clientSecret, publicOrigin, key });
    // a plain node, no tsx, no loader: only the bundle and the runner
    const child = spawn(process.execPath, [join(dir, 'runner.mjs'), args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const firstLine = await lines.next();
    assert.ok(!firstLine.done, err);
    const { authorize } = JSON.parse(firstLine.value as string) as { authorize: string };
    const authUrl = new URL(authorize);
    assert.equal(authUrl.origin + authUrl.pathname, `${emulator.baseUrl}/openapi/v1/oauth/auth`);
    assert.equal(authUrl.searchParams.get('redirect_uri'), `${publicOrigin}/callback`, "the proxy's own callback");
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
    // a person on the consent pages; the service sends the browser back to the proxy's callback
    const back = await driveConsent(authUrl, { chooseSpaceId: 'space_acme' });
    assert.ok(back.startsWith(`${publicOrigin}/callback?`), back);
    child.stdin.end(`${back}\n`);
    const lastLine = await lines.next();
    const code = await exited;
    assert.equal(code, 0, err);
    const r = JSON.parse(lastLine.value as string) as Record<
      string,
      { status: number; json: Record<string, unknown>; cookie: string | null; location?: string; session?: string; preLogin?: string }
    >;
    assert.equal(r.login!.status, 303);
    assert.match(r.login!.preLogin ?? '', /^__Host-esign_l_[\w-]{16}=v1\..*; Path=\/; HttpOnly; Secure; SameSite=Lax/);
    assert.equal(r.callback!.status, 303);
    assert.equal(
      r.callback!.location,
      `${publicOrigin}/login/done#${new URLSearchParams({ attempt: 'bundle-attempt-0123456789', outcome: 'connected', origin: 'https://app.example.com' })}`,
    );
    // __Host- (https public origin), Path=/, named by client, basePath and slot
    const name = `__Host-esign_${createHash('sha256').update(`${DEMO_LOGIN.clientId}\u0000\u0000open`).digest('base64url').slice(0, 16)}`;
    assert.ok(r.callback!.session?.startsWith(`${name}=v1.`), r.callback!.session);
    assert.match(r.callback!.session ?? '', /; Path=\/; HttpOnly; Secure; SameSite=Strict/);
    assert.equal(r.first!.status, 200, JSON.stringify(r.first));
    assert.equal(r.first!.json.refresh_token, undefined);
    assert.equal(typeof r.first!.json.access_token, 'string');
    assert.equal(r.cached!.status, 200);
    assert.equal(r.cached!.json.access_token, r.first!.json.access_token, 'cached');
    assert.equal(r.forced!.status, 200);
    assert.notEqual(r.forced!.json.access_token, r.first!.json.access_token, 'rotated');
    assert.equal(r.forced!.json.refresh_token, undefined);
    assert.ok(r.forced!.cookie?.startsWith(`${name}=v1.`), 'the rotated session in the same cookie');
    assert.equal(r.revoked!.status, 200);
    assert.match(r.revoked!.cookie ?? '', new RegExp(`^${name}=;.*Max-Age=0`));
    assert.equal(r.notFound!.status, 404);
    const counters = (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
    assert.equal(counters['grant:authorization_code'], 1, 'the callback redeemed the code once');
    assert.equal(counters['grant:refresh_token'], 1);
    assert.equal(counters['POST /openapi/v1/oauth/revoke'], 1);
  });
});
