/**
 * `esign-elements/proxy` on a Workers-style runtime: bundled with esbuild for a neutral platform with the
 * workerd/worker conditions, the bundle has no `node:` import; then that bundle alone serves a code
 * exchange, a cached and a forced refresh and a revocation against the real emulator, on plain
 * Request/Response, in a fresh `node` process that loads nothing else of this repository.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createEmulator } from '../../src/emulator/index.js';
import { generateCookieKey } from '../../src/proxy/index.js';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '../helpers/oauth-login.js';

const ENTRY = fileURLToPath(new URL('../../src/proxy/index.ts', import.meta.url));
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

/** What the fresh process runs: the bundle's handler on plain Requests, as a worker's fetch would be called. */
const RUNNER = `
import { createTokenProxy } from './proxy.mjs';
const { baseUrl, clientId, clientSecret, redirectUri, key, code, verifier } = JSON.parse(process.argv[2]);
const handler = createTokenProxy({
  clientId, clientSecret, baseUrl, redirectUris: [redirectUri], allowedOrigins: ['https://app.example.com'],
  cookieKeys: [key], clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
});
const call = async (path, fields, cookie) => {
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: 'https://app.example.com', 'CF-Connecting-IP': '198.51.100.1' };
  if (cookie) headers.Cookie = cookie;
  const response = await handler(new Request('https://auth.example.com' + path, { method: 'POST', headers, body: new URLSearchParams(fields).toString() }));
  return { status: response.status, json: await response.json(), cookie: response.headers.getSetCookie()[0] ?? null };
};
const exchange = await call('/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, session: 'open' });
const cookie = exchange.cookie.split(';')[0];
const refresh = { grant_type: 'refresh_token', session: 'open', redirect_uri: redirectUri };
const cached = await call('/token', refresh, cookie);
const forced = await call('/token', { ...refresh, force: '1' }, cookie);
const revoked = await call('/revoke', { session: 'open' }, forced.cookie.split(';')[0]);
const notFound = await call('/anything/token', refresh, cookie);
process.stdout.write(JSON.stringify({ exchange, cached, forced, revoked, notFound }));
`;

describe('esign-elements/proxy for a Workers-style runtime', () => {
  test('the esbuild bundle (platform neutral, workerd/worker conditions, esm) imports nothing from node:', async () => {
    const result = await build({ entryPoints: [ENTRY], bundle: true, platform: 'neutral', conditions: ['workerd', 'worker'], mainFields: ['module', 'main'], format: 'esm', write: false, logLevel: 'silent' });
    const code = result.outputFiles[0]!.text;
    assert.equal(result.errors.length, 0);
    assert.deepEqual([...code.matchAll(/["'`]node:[\w/]+["'`]/g)].map((m) => m[0]), [], 'no node: specifier');
    for (const builtin of ['http', 'https', 'net', 'crypto', 'fs', 'buffer']) {
      assert.ok(!new RegExp(`(from|import\\(|require\\()\\s*["']${builtin}["']`).test(code), `no bare ${builtin} import`);
    }
    await writeFile(join(dir, 'proxy.mjs'), code);
  });

  test('the bundle alone serves code exchange, cached and forced refresh, revoke on plain Request/Response in a fresh process', async () => {
    const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId: 'space_acme' });
    const form = codeExchangeForm(login);
    await writeFile(join(dir, 'runner.mjs'), RUNNER);
    const args = JSON.stringify({
      baseUrl: emulator.baseUrl,
      clientId: DEMO_LOGIN.clientId,
      clientSecret: DEMO_LOGIN.clientSecret,
      redirectUri: DEMO_LOGIN.redirectUri,
      key: generateCookieKey(),
      code: form.get('code'),
      verifier: form.get('code_verifier'),
    });
    // a plain node, no tsx, no loader: only the bundle and the runner
    const child = spawn(process.execPath, [join(dir, 'runner.mjs'), args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, err);
    const r = JSON.parse(out) as Record<string, { status: number; json: Record<string, unknown>; cookie: string | null }>;
    assert.equal(r.exchange!.status, 200, JSON.stringify(r.exchange));
    assert.equal(r.exchange!.json.refresh_token, undefined);
    assert.match(r.exchange!.cookie ?? '', /^__Secure-esign_s_[\w-]{16}=v1\..*; Secure/);
    assert.equal(r.cached!.status, 200);
    assert.equal(r.cached!.json.access_token, r.exchange!.json.access_token, 'cached');
    assert.equal(r.forced!.status, 200);
    assert.notEqual(r.forced!.json.access_token, r.exchange!.json.access_token, 'rotated');
    assert.equal(r.revoked!.status, 200);
    assert.match(r.revoked!.cookie ?? '', /Max-Age=0/);
    assert.equal(r.notFound!.status, 404);
    const counters = (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
    assert.equal(counters['grant:refresh_token'], 1);
    assert.equal(counters['POST /openapi/v1/oauth/revoke'], 1);
  });
});
