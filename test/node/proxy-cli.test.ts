/** The esign-token-proxy command: help, configuration errors, the secret from the environment, a real exchange. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEmulator } from '../../src/emulator/index.js';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '../helpers/oauth-login.js';

const CLI = fileURLToPath(new URL('../../src/proxy/cli.ts', import.meta.url));

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
    const r = run(['--client-id', 'c', '--base-url', 'http://esign.example', '--redirect-uri', 'https://app.example/cb'], { ESIGN_CLIENT_SECRET: 'cli-secret-123' });
    assert.equal(await r.exited, 1);
    assert.match(r.stderr(), /baseUrl/);
    assert.ok(!r.stderr().includes('cli-secret-123') && !r.stdout().includes('cli-secret-123'), '!r.stderr().includes("cli-secret-123") && !r.stdout().includes("cli-secret-123")');
  });

  test('reads everything from the environment, serves a real exchange, never prints the secret', async () => {
    const r = run(['--port', '0'], {
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emulator.baseUrl,
      ESIGN_ALLOWED_ORIGINS: 'http://localhost:6006, http://127.0.0.1:6006',
      ESIGN_REDIRECT_URIS: DEMO_LOGIN.redirectUri,
    });
    try {
      const url = await listeningUrl(r);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: 'http://127.0.0.1:6006' },
        body: codeExchangeForm(login).toString(),
      });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      assert.equal(response.headers.get('access-control-allow-origin'), 'http://127.0.0.1:6006');
      assert.ok(!body.includes(DEMO_LOGIN.clientSecret), '!body.includes(DEMO_LOGIN.clientSecret)');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(r.stdout(), /authorization_code 200 \d+ms/);
      assert.equal(r.stderr(), '', 'no warning when the secret comes from the environment');
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
    assert.ok(!r.stdout().includes(DEMO_LOGIN.clientSecret) && !r.stderr().includes(DEMO_LOGIN.clientSecret), '!r.stdout().includes(DEMO_LOGIN.clientSecret) && !r.stderr().includes(DEMO_LOGIN.clientSecret)');
  });

  test('--client-secret on the command line works but warns', async () => {
    const r = run([
      '--client-id', DEMO_LOGIN.clientId, '--client-secret', DEMO_LOGIN.clientSecret, '--base-url', emulator.baseUrl,
      '--redirect-uri', DEMO_LOGIN.redirectUri, '--allowed-origin', 'http://localhost:6006', '--port', '0',
    ]);
    try {
      await listeningUrl(r);
      assert.match(r.stderr(), /warning: --client-secret is visible in the process list/);
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
  });
});
