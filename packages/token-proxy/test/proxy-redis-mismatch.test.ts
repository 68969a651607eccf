/**
 * An operator's slip with Redis, found at connect instead of as a 503 on every sign-in (issue 46): real
 * redis-servers on free loopback ports, each a mismatch an operator meets: a Redis Cluster node given by a plain
 * `redis://` URL, a read-only replica (`--replicaof`), a read-only ACL user and one without the store's channel, a
 * Sentinel's port, a `redis-cluster://` URL for a standalone server. Each refuses to start with its own sentence
 * naming the fix; found later (Redis up after the proxy, a primary turned replica), `/ready` answers 503 with it
 * and recovers once it is fixed. The ACL rule the sentence gives is enough for the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy } from '../src/node.js';
import { RedisConfigError, RedisStore } from '../src/redis.js';
import { aclRule } from '../src/redis-checks.js';
import { CliStartError, startCli } from './proxy-cli-process.js';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
const PASSWORD = 'hunter2-acl-password';
let primary: RedisServer;
let emulator: Emulator;
const servers: RedisServer[] = [];

before(async () => {
  primary = await startRedisServer();
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await emulator.close();
  await Promise.all([primary, ...servers].map((s) => s.stop()));
});

async function server(options: Parameters<typeof startRedisServer>[0]): Promise<RedisServer> {
  const started = await startRedisServer(options);
  servers.push(started);
  return started;
}

/** A command on a server, as an operator would type it in redis-cli. */
async function command(port: number, ...args: string[]): Promise<unknown> {
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

/** RedisStore.connect's rejection: a RedisConfigError whose sentence matches, and never the password. */
async function refused(options: Parameters<typeof RedisStore.connect>[0], sentence: RegExp): Promise<string> {
  let message = '';
  await assert.rejects(RedisStore.connect(options), (error: unknown) => {
    assert.ok(error instanceof RedisConfigError, `a RedisConfigError, not ${String(error)}`);
    message = error.message;
    return true;
  });
  assert.match(message, sentence);
  assert.ok(!message.includes(PASSWORD), 'no password in the sentence');
  return message;
}

const clusterNode = (): Promise<RedisServer> => server({ args: ['--cluster-enabled', 'yes'] });

describe('RedisStore.connect refuses a server that cannot hold the store, naming the fix', () => {
  test('a Redis Cluster node by a plain redis:// URL: use redis-cluster://', async () => {
    const node = await clusterNode();
    await refused(
      node.url,
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${node.port} is a node of a Redis Cluster .*: use --store redis-cluster://127\\.0\\.0\\.1:${node.port} `),
    );
  });

  test('a read-only replica: give the primary', async () => {
    const replica = await server({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    await refused(
      replica.url,
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${replica.port} is a read-only replica of 127\\.0\\.0\\.1:${primary.port} .*primary's address`),
    );
  });

  test('a Sentinel port: give the primary it watches', async () => {
    const sentinel = await server({ sentinelOf: primary.port });
    await refused(
      sentinel.url,
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${sentinel.port} is a Redis Sentinel, which holds no data: .*SENTINEL get-master-addr-by-name`),
    );
  });

  test('a redis-cluster:// URL for a standalone Redis: use redis://', async () => {
    await refused(`redis-cluster://127.0.0.1:${primary.port}`, /is not in a cluster .*: use --store redis:\/\/host:port\.$/);
  });

  test('a read-only ACL user, and one without the store channel: each names what it may not do and the rule to grant', async () => {
    await command(primary.port, 'ACL', 'SETUSER', 'reader', 'on', `>${PASSWORD}`, '~*', '&*', '+@all', '-@write');
    await command(primary.port, 'ACL', 'SETUSER', 'nochannel', 'on', `>${PASSWORD}`, '~*', 'resetchannels', '+@all');
    const rule = aclRule('esign-proxy:').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await refused(
      { url: primary.url, username: 'reader', password: PASSWORD },
      new RegExp(`^The ACL user reader may not run the commands the store's scripts run .*ACL SETUSER reader ${rule}\\)`),
    );
    await refused({ url: primary.url, username: 'nochannel', password: PASSWORD }, /^The ACL user nochannel may not use the channel esign-proxy:settled: /);
  });

  test("a user with exactly the rule's rights works: counters, claims, settles, /ready", async () => {
    await command(primary.port, 'ACL', 'SETUSER', 'esign', 'on', `>${PASSWORD}`, ...aclRule('esign-proxy:').split(' '));
    const store = await RedisStore.connect({ url: primary.url, username: 'esign', password: PASSWORD, prefix: 'esign-proxy:' });
    try {
      assert.equal((await store.hit('rl:{a}', 60_000)).count, 1);
      assert.deepEqual(await store.claimOrGet('rt:{a}', 'v', 5_000), { claimed: true });
      await store.settle('rt:{a}', 'done', 5_000);
      assert.equal(await store.get('rt:{a}'), 'done');
      await store.ping();
    } finally {
      await store.close();
    }
  });
});

describe('found after start: /ready answers 503 with the sentence until it is fixed', () => {
  test('Redis up after the proxy turns out a cluster node: onMistake once, /ready 503 naming redis-cluster://', async () => {
    const node = await clusterNode();
    await node.stop();
    const seen: string[] = [];
    let noticed: () => void = () => undefined;
    const mistake = new Promise<void>((resolve) => (noticed = resolve));
    const store = await RedisStore.connect({
      url: node.url,
      onMistake: (sentence) => {
        seen.push(sentence);
        noticed();
      },
    });
    const served = await serveTokenProxy({
      clientId: DEMO_LOGIN.clientId,
      clientSecret: DEMO_LOGIN.clientSecret,
      baseUrl: emulator.baseUrl,
      cookieKeys: [KEY],
      allowedOrigins: [],
      port: 0,
      logWrite: () => undefined,
      store,
    });
    try {
      assert.equal((await fetch(`${served.url}/ready`)).status, 503, 'not connected yet');
      await node.start();
      // the client reconnects within its backoff (1 s at most) plus the 2 s connect limit; then it checks at once
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        mistake,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no mistake reported after the reconnection')), 15_000))),
      ]).finally(() => clearTimeout(timer));
      const ready = await fetch(`${served.url}/ready`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { reason: string };
      assert.match(
        body.reason,
        new RegExp(`^store: Redis at 127\\.0\\.0\\.1:${node.port} is a node of a Redis Cluster .*redis-cluster://127\\.0\\.0\\.1:${node.port}`),
      );
      assert.equal(seen.length, 1, 'said once');
    } finally {
      await served.close();
      await store.close();
    }
  });

  test('a primary turned replica under a running store: its commands and /ready say so; REPLICAOF NO ONE recovers', async () => {
    const other = await server({});
    const seen: string[] = [];
    const store = await RedisStore.connect({ url: other.url, onMistake: (sentence) => seen.push(sentence) });
    try {
      assert.equal((await store.hit('rl:{b}', 60_000)).count, 1);
      await command(other.port, 'REPLICAOF', '127.0.0.1', String(primary.port));
      await assert.rejects(
        store.hit('rl:{b}', 60_000),
        (error: Error) => error.name === 'StoreUnavailableError' && /is a read-only replica/.test(error.message),
      );
      await assert.rejects(
        store.ping(),
        (error: Error) => error.name === 'StoreUnavailableError' && /is a read-only replica of 127\.0\.0\.1:/.test(error.message),
      );
      assert.equal(seen.length, 1, `said once: ${seen.join(' | ')}`);
      await command(other.port, 'REPLICAOF', 'NO', 'ONE');
      await store.ping();
      assert.equal((await store.hit('rl:{c}', 60_000)).count, 1);
    } finally {
      await store.close();
    }
  });
});

describe('the CLI', () => {
  test('a cluster node by a plain URL: exit 1 at start with one line naming --store redis-cluster://, no password', async () => {
    const node = await clusterNode();
    const url = node.url.replace('redis://', `redis://ops:${PASSWORD}@`);
    await command(node.port, 'ACL', 'SETUSER', 'ops', 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
    const error = await startCli(emulator, KEY, ['--store', url]).then(
      async (replica) => {
        await replica.stop();
        return undefined;
      },
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof CliStartError, `it started, or failed otherwise: ${String(error)}`);
    assert.equal(error.code, 1, error.message);
    const lines = error.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, error.stderr);
    assert.match(
      lines[0]!,
      new RegExp(
        `^esign-token-proxy: --store redis://127\\.0\\.0\\.1:${node.port}: Redis at 127\\.0\\.0\\.1:${node.port} is a node of a Redis Cluster .*--store redis-cluster://127\\.0\\.0\\.1:${node.port}`,
      ),
    );
    assert.ok(!(error.stdout + error.stderr).includes(PASSWORD), 'the password is never printed');
  });
});
