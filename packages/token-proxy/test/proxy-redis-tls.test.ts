/**
 * The token proxy on a TLS-only redis-server with an ACL user (issue 39): certificates made here with the openssl
 * CLI, `rediss://user:password@127.0.0.1:<port>` with --store-ca-file. Sign-in and refresh work; a wrong CA or a wrong
 * password fails at start with one line that names no password.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { RedisConfigError, RedisStore } from '../src/redis.js';
import { freePort } from '@esign-elements/test-support/ports';
import { EPHEMERAL_ARGS } from '@esign-elements/test-support/redis-server';
import { CliStartError, startCli } from './proxy-cli-process.js';
import { connectSession, embeddedStatus, post, refreshFields } from '@esign-elements/test-support/proxy-client';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const run = promisify(execFile);
const PASSWORD = 'tls-test-Pa55word';
let dir: string;
let server: ChildProcess | undefined;
let serverOutput = '';
let port: number;
// the redis-server is gone with this test process, however it ends
process.once('exit', () => server?.kill('SIGKILL'));

async function openssl(...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir, timeout: 20_000 });
}

/** A CA and a server certificate for 127.0.0.1 and redis.test signed by it; another CA that signed nothing. */
async function makeCertificates(): Promise<void> {
  for (const ca of ['ca', 'other-ca']) {
    await openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${ca}.key`, '-out', `${ca}.pem`, '-days', '1', '-subj', `/CN=${ca}`);
  }
  await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  await writeFile(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:redis.test\n');
  await openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
  );
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'esign-redis-tls-'));
  await makeCertificates();
  port = await freePort();
  server = spawn(
    '/usr/bin/redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      join(dir, 'server.pem'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      join(dir, 'ca.pem'),
      '--tls-auth-clients',
      'no',
      ...EPHEMERAL_ARGS,
      // an ACL user that may run anything on the proxy's keys and channel; the default user is off. Each word its own
      // argument: redis-server quotes an argument with a space, and "default off" as one is a user name it refuses
      '--user',
      'default',
      'off',
      '--user',
      'app',
      'on',
      `>${PASSWORD}`,
      '~esign-proxy:*',
      '&esign-proxy:*',
      '+@all',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout!.setEncoding('utf8').on('data', (chunk: string) => (serverOutput += chunk));
  server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (serverOutput += chunk));
  const ca = await readFile(join(dir, 'ca.pem'));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`redis-server exited: ${serverOutput}`);
    try {
      const store = await RedisStore.connect({ url: `rediss://app:${PASSWORD}@127.0.0.1:${port}`, ca });
      try {
        await store.ping();
        break;
      } finally {
        await store.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});
after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

/** Starts the CLI expecting it to exit at once: its exit code is 1 and stderr one line, returned. */
async function failedStart(emulator: Emulator, key: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const error = await startCli(emulator, key, args, env).then(
    async (replica) => {
      await replica.stop();
      return undefined;
    },
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof CliStartError, `it started, or failed otherwise: ${String(error)}`);
  assert.equal(error.code, 1, error.message);
  assert.equal(error.stdout, '', 'nothing on stdout');
  const lines = error.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${error.stderr}`);
  return lines[0]!;
}

describe('token proxy on a TLS-only Redis with an ACL user', { timeout: 90_000 }, () => {
  test('the store works with the CA and the user: counters, claims, settles', async () => {
    const store = await RedisStore.connect({ url: `rediss://127.0.0.1:${port}`, ca: await readFile(join(dir, 'ca.pem')), username: 'app', password: PASSWORD });
    try {
      assert.deepEqual((await store.hit('rl:{a}', 60_000)).count, 1);
      const claimed = await store.claimOrGet('rf:{a}:x', 'p:a', 3_000, { key: 'rl:{a}', windowMs: 60_000, max: 5 });
      assert.equal(claimed.claimed, true);
      await store.settle('rf:{a}:x', 'd:a', 3_000);
      assert.equal(await store.get('rf:{a}:x'), 'd:a');
    } finally {
      await store.close();
    }
  });

  test('the server name checked: --store-tls-server-name its certificate names works, another is refused', async () => {
    const ca = await readFile(join(dir, 'ca.pem'));
    const named = await RedisStore.connect({ url: `rediss://app:${PASSWORD}@127.0.0.1:${port}`, ca, tlsServerName: 'redis.test' });
    try {
      await named.ping();
    } finally {
      await named.close();
    }
    await assert.rejects(
      RedisStore.connect({ url: `rediss://app:${PASSWORD}@127.0.0.1:${port}`, ca, tlsServerName: 'other.test' }),
      (error: unknown) => error instanceof RedisConfigError && /TLS certificate was not accepted \(ERR_TLS_CERT_ALTNAME_INVALID\)/.test(error.message),
    );
  });

  test('a wrong CA or a wrong password: RedisStore.connect rejects with one sentence naming no password', async () => {
    const wrongCa = RedisStore.connect({ url: `rediss://app:${PASSWORD}@127.0.0.1:${port}`, ca: await readFile(join(dir, 'other-ca.pem')) });
    await assert.rejects(wrongCa, (error: unknown) => error instanceof RedisConfigError && /TLS certificate was not accepted/.test(error.message));
    const wrongPassword = RedisStore.connect({ url: `rediss://app:not-${PASSWORD}@127.0.0.1:${port}`, ca: await readFile(join(dir, 'ca.pem')) });
    await assert.rejects(
      wrongPassword,
      (error: unknown) => error instanceof RedisConfigError && /refused the user name or password/.test(error.message) && !error.message.includes(PASSWORD),
    );
  });

  test('the CLI: sign-in and refresh through rediss:// with --store-ca-file; a wrong CA or password fails at start with one line', async () => {
    const emulator = await createEmulator({ port: 0, filePort: 0 });
    const key = generateCookieKey();
    const url = `rediss://127.0.0.1:${port}`;
    const env = { ESIGN_STORE_USERNAME: 'app', ESIGN_STORE_PASSWORD: PASSWORD };
    const replica = await startCli(emulator, key, ['--store', url, '--store-ca-file', join(dir, 'ca.pem'), '--rate-limit', '5'], env);
    try {
      assert.doesNotMatch(replica.stdout() + replica.stderr(), new RegExp(PASSWORD), 'the password is never printed');
      const { jar, answer } = await connectSession(emulator.baseUrl, replica.url);
      assert.equal(await embeddedStatus(emulator.baseUrl, answer.json.access_token), 200);
      const refreshed = await post(`${replica.url}/token`, refreshFields({ force: '1' }), jar);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(await embeddedStatus(emulator.baseUrl, refreshed.json.access_token), 200);
    } finally {
      await replica.stop();
    }
    try {
      const ca = join(dir, 'ca.pem');
      const wrongPassword = await failedStart(emulator, key, ['--store', `rediss://app:not-${PASSWORD}@127.0.0.1:${port}`, '--store-ca-file', ca]);
      assert.match(wrongPassword, /^esign-token-proxy: --store rediss:\/\/127\.0\.0\.1:\d+: Redis refused the user name or password/);
      const wrongCa = await failedStart(emulator, key, ['--store', url, '--store-ca-file', join(dir, 'other-ca.pem')], env);
      assert.match(wrongCa, /^esign-token-proxy: --store rediss:\/\/127\.0\.0\.1:\d+: Redis's TLS certificate was not accepted/);
      for (const line of [wrongPassword, wrongCa]) assert.doesNotMatch(line, new RegExp(PASSWORD), 'the password is never printed');
    } finally {
      await emulator.close();
    }
  });
});
