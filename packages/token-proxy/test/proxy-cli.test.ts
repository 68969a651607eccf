/** The esign-token-proxy command: help, configuration errors, the secret and keys from the environment, a real sign-in, keys. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEmulator } from '@esign-elements/emulator';
import { codeExchangeForm, cookieHeader, DEMO_LOGIN, obtainAuthorizationCode, signInThroughProxy } from '@esign-elements/test-support/oauth-login';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ESIGN_') && k !== 'PORT' && k !== 'HOST'));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function listeningUrl(r: Run): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(r.stdout());
    if (match) return match[1]!;
    if (r.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`CLI did not start: ${r.stderr()}`);
}

let emulator: Awaited<ReturnType<typeof createEmulator>>;
before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await emulator.close();
});

describe('esign-token-proxy CLI', () => {
  test('--help prints usage and exits 0', async () => {
    const r = run(['--help']);
    assert.equal(await r.exited, 0);
    assert.match(r.stdout(), /Usage: esign-token-proxy/);
    assert.match(r.stdout(), /ESIGN_CLIENT_SECRET/);
    for (const flag of [
      '--public-origin',
      'ESIGN_PUBLIC_ORIGIN',
      '--cookie-key',
      'ESIGN_COOKIE_KEYS',
      '--generate-cookie-key',
      '--browser-held-refresh-tokens',
      '--trusted-proxy',
      '--base-path',
      '--cookie-domain',
      '--store',
      '--rate-limit',
      '--timeout-ms',
      '--session-max-age',
      '--issuer',
      '--log-level',
      'ESIGN_LOG_LEVEL',
      '--metrics-port',
      'ESIGN_METRICS_PORT',
      '--shutdown-timeout-ms',
      '--store-prefix',
      '--login-timeout',
      '--max-body-bytes',
      '--max-upstream-bytes',
      '--no-same-origin',
      '--trust-request-id',
      'ESIGN_PORT',
      '/health',
      '/ready',
    ]) {
      assert.ok(r.stdout().includes(flag), `help mentions ${flag}`);
    }
  });

  test('--generate-cookie-key prints a new 32-byte base64url key and exits 0', async () => {
    const a = run(['--generate-cookie-key']);
    const b = run(['--generate-cookie-key']);
    assert.equal(await a.exited, 0);
    await b.exited;
    const key = a.stdout().trim();
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(key, 'base64url').length, 32);
    assert.notEqual(key, b.stdout().trim(), 'random');
  });

  test('a malformed cookie key exits 1 without echoing it', async () => {
    const r = run(['--client-id', 'c', '--base-url', emulator.baseUrl, '--redirect-uri', 'https://app.example/cb', '--port', '0'], {
      ESIGN_CLIENT_SECRET: 'cli-secret-123',
      ESIGN_COOKIE_KEYS: 'short-key-value-xyz',
    });
    assert.equal(await r.exited, 1);
    assert.match(r.stderr(), /cookieKeys\[0\]/);
    assert.ok(!r.stderr().includes('short-key-value-xyz') && !r.stdout().includes('short-key-value-xyz'), 'the key is not echoed');
  });

  test('missing configuration exits 2 and says what is missing', async () => {
    const r = run(['--client-id', 'demo-client']);
    assert.equal(await r.exited, 2);
    assert.match(r.stderr(), /ESIGN_CLIENT_SECRET/);
    assert.match(r.stderr(), /--base-url/);
  });

  test('a malformed --refresh-replay-ms exits 2 and says so', async () => {
    const r = run(['--client-id', 'demo-client', '--refresh-replay-ms', '30s']);
    assert.equal(await r.exited, 2);
    assert.match(r.stderr(), /--refresh-replay-ms must be a whole number/);
  });

  test('an unsafe base URL exits 1 without echoing the secret', async () => {
    const r = run(['--client-id', 'c', '--base-url', 'http://esign.example', '--redirect-uri', 'https://app.example/cb'], {
      ESIGN_CLIENT_SECRET: 'cli-secret-123',
    });
    assert.equal(await r.exited, 1);
    assert.match(r.stderr(), /baseUrl/);
    assert.ok(
      !r.stderr().includes('cli-secret-123') && !r.stdout().includes('cli-secret-123'),
      '!r.stderr().includes("cli-secret-123") && !r.stdout().includes("cli-secret-123")',
    );
  });

  test('reads everything from the environment, runs a real sign-in in the mediated mode, never prints the secret or key', async () => {
    const key = Buffer.alloc(32, 7).toString('base64url');
    const r = run(['--port', '0'], {
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emulator.baseUrl,
      ESIGN_ALLOWED_ORIGINS: 'http://localhost:6006, http://127.0.0.1:6006',
      ESIGN_COOKIE_KEYS: key,
      ESIGN_BASE_PATH: '/api/esign',
      ESIGN_SESSION_MAX_AGE: '3600',
      ESIGN_TRUSTED_PROXIES: '127.0.0.1',
    });
    try {
      const url = await listeningUrl(r);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      // no public origin given, loopback host: http://localhost:<port>, and the callback to register is printed
      const port = new URL(url).port;
      const callback = `http://localhost:${port}/api/esign/callback`;
      assert.ok(r.stdout().includes(`redirect URI to register at the service: ${callback}\n`), r.stdout());
      emulator.registerRedirectUri(DEMO_LOGIN.clientId, callback);
      const signedIn = await signInThroughProxy({ proxyUrl: `${url}/api/esign`, origin: 'http://127.0.0.1:6006' });
      assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
      assert.ok(signedIn.callbackUrl.startsWith(`${callback}?`), signedIn.callbackUrl);
      // the session lifetime from the environment, less the second that may have turned since the sign-in; no prefix
      // and no Secure on loopback http, Path=/ whatever the base path
      const sessionCookie = signedIn.callbackSetCookies.find((line) => /^esign_(?!l_)/.test(line)) ?? '';
      assert.match(sessionCookie, /^esign_[\w-]{16}=v1\.[^;]*; Max-Age=(3600|3599); Path=\/; HttpOnly; SameSite=Strict$/);
      const response = await fetch(`${url}/api/esign/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Esign-Proxy': '1',
          Origin: 'http://127.0.0.1:6006',
          Cookie: cookieHeader(signedIn.jar)!,
        },
        body: 'grant_type=refresh_token&session=open',
      });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      assert.equal(response.headers.get('access-control-allow-origin'), 'http://127.0.0.1:6006');
      assert.match(body, /"access_token"/);
      assert.ok(!body.includes(DEMO_LOGIN.clientSecret), '!body.includes(DEMO_LOGIN.clientSecret)');
      assert.ok(!body.includes('refresh_token'), 'no refresh token in the mediated answer');
      // the browser-held mode is off by default
      const held = await fetch(`${url}/api/esign/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
        body: 'grant_type=refresh_token&refresh_token=x',
      });
      assert.equal(held.status, 400);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // one JSON line per request
      const lines = r
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((line) => [line.msg, line.route, line.type, line.status, line.mode, line.cached]),
        [
          ['request', '/login', 'login', 303, 'mediated', undefined],
          ['request', '/callback', 'callback', 303, 'mediated', undefined],
          ['request', '/token', 'refresh_token', 200, 'mediated', true],
          ['request', '/token', 'refresh_token', 400, undefined, undefined],
        ],
      );
      assert.equal(lines[3]!.error, 'invalid_request');
      assert.match(r.stdout(), /POST [^;)]*\/api\/esign\/token/);
      // the only warning: the memory store is this process's only
      assert.equal(r.stderr().trim().split('\n').length, 1, r.stderr());
      assert.match(r.stderr(), /warning: store: memory is this process's only/);
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
    for (const text of [r.stdout(), r.stderr()]) {
      assert.ok(!text.includes(DEMO_LOGIN.clientSecret), 'the secret is never printed');
      assert.ok(!text.includes(key), 'the key is never printed');
    }
  });

  test('without a key: an ephemeral one, said on stderr; --browser-held-refresh-tokens serves the opt-in mode', async () => {
    const r = run(['--port', '0', '--browser-held-refresh-tokens'], {
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emulator.baseUrl,
      ESIGN_REDIRECT_URIS: DEMO_LOGIN.redirectUri,
    });
    try {
      const url = await listeningUrl(r);
      assert.match(r.stderr(), /ephemeral/);
      assert.match(r.stdout(), /browser-held/);
      const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
        body: codeExchangeForm(login).toString(),
      });
      const json = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 200);
      assert.equal(typeof json.refresh_token, 'string');
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
  });

  test('--client-secret on the command line works but warns', async () => {
    const r = run([
      '--client-id',
      DEMO_LOGIN.clientId,
      '--client-secret',
      DEMO_LOGIN.clientSecret,
      '--base-url',
      emulator.baseUrl,
      '--public-origin',
      'https://proxy.example.com',
      '--allowed-origin',
      'http://localhost:6006',
      '--port',
      '0',
    ]);
    try {
      await listeningUrl(r);
      assert.match(r.stderr(), /warning: --client-secret is visible in the process list/);
      // --public-origin names the callback to register
      assert.match(r.stdout(), /redirect URI to register at the service: https:\/\/proxy\.example\.com\/callback\n/);
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
  });
});
