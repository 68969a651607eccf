/**
 * A real Redis Cluster (Debian's redis-server and redis-cli) for the proxy's cluster tests: 3 primaries with 1
 * replica each on loopback, free ports, no persistence, a short node timeout so a killed primary is replaced
 * by its replica in about a second. `stop()` stops every node (also the ones a test killed or restarted).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { clusterPort } from './ports.js';
import { EPHEMERAL_ARGS } from './redis-server.js';

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  /** Primary or replica, as the cluster says now. */
  role(): Promise<'master' | 'slave' | 'unknown'>;
  /** SIGKILL: the node is gone at once, as a lost machine. */
  kill(): void;
  pid(): number | undefined;
}

export interface RedisCluster {
  nodes: ClusterNode[];
  /** `redis-cluster://127.0.0.1:p1,127.0.0.1:p2,…` (every node). */
  url: string;
  /** CLUSTER INFO's cluster_state on a live node. */
  state(): Promise<string>;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.on('error', () => resolve(false));
  });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('/usr/bin/redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

/** Every redis-server started and not yet stopped: killed when this test process exits, however it ends. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startRedisCluster(nodeTimeoutMs = 1_000): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'esign-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: ClusterNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const port = await clusterPort();
      // each node's cluster config file in its own directory (the test's, removed at the end)
      const child = spawn(
        '/usr/bin/redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          '--dir',
          dir,
          ...EPHEMERAL_ARGS,
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      live.add(child);
      child.once('exit', () => live.delete(child));
      nodes.push({
        port,
        role: async () => {
          try {
            const info = await cli(port, 'ROLE');
            return info.startsWith('master') ? 'master' : info.startsWith('slave') ? 'slave' : 'unknown';
          } catch {
            return 'unknown';
          }
        },
        kill: () => child.kill('SIGKILL'),
        pid: () => child.pid,
      });
    }
    const deadline = Date.now() + 10_000;
    for (const node of nodes) {
      while (!(await ping(node.port))) {
        if (Date.now() > deadline) throw new Error('redis-server (cluster node) did not start');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    await run('/usr/bin/redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: 30_000,
    });
    const state = async (): Promise<string> => {
      for (const node of nodes) {
        try {
          return /cluster_state:(\w+)/.exec(await cli(node.port, 'CLUSTER', 'INFO'))?.[1] ?? 'unknown';
        } catch {
          // a killed node: ask the next
        }
      }
      return 'unknown';
    };
    // every node agrees the cluster is whole (slots assigned, replicas attached) before a test uses it
    for (;;) {
      const states = await Promise.all(nodes.map((n) => cli(n.port, 'CLUSTER', 'INFO').catch(() => '')));
      const replicasUp = (await Promise.all(nodes.map((n) => n.role()))).filter((r) => r === 'slave').length === 3;
      if (states.every((s) => s.includes('cluster_state:ok')) && replicasUp) break;
      if (Date.now() > deadline + 20_000) throw new Error('the Redis Cluster did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { nodes, url: `redis-cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`, state, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
