/** A real redis-server (Debian's, /usr/bin/redis-server) for the proxy's Redis tests: loopback, a free port, no persistence. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterPort, freePort } from './ports.js';

export interface RedisServer {
  port: number;
  url: string;
  /** The running server's process id (for CPU accounting in the bench). */
  pid(): number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  start(): Promise<void>;
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

export interface RedisServerOptions {
  /** More redis-server options, e.g. `['--replicaof', '127.0.0.1', '6379']` or `['--cluster-enabled', 'yes']`. */
  args?: string[];
  /** Starts a Sentinel (`redis-server <conf> --sentinel`) watching the primary on this port instead of a data server. */
  sentinelOf?: number;
}

/** A test server's data stays in memory, unsaved, and it logs warnings only. */
export const EPHEMERAL_ARGS = ['--save', '', '--appendonly', 'no', '--loglevel', 'warning'];

/** A server in a folder of its own (a cluster node's nodes.conf, a Sentinel's conf), removed when it stops. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  // a cluster node also listens on port + 10000, which must be free too and out of the ephemeral range
  const port = options.args?.includes('--cluster-enabled') ? await clusterPort() : await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'esign-redis-'));
  let args: string[] = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...EPHEMERAL_ARGS, ...(options.args ?? [])];
  const conf = join(dir, 'sentinel.conf');
  if (options.sentinelOf !== undefined) args = [conf, '--sentinel', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--loglevel', 'warning'];
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    await mkdir(dir, { recursive: true });
    if (options.sentinelOf !== undefined) await writeFile(conf, `sentinel monitor primary 127.0.0.1 ${options.sentinelOf} 1\n`);
    child = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => child?.pid,
    stop: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    start,
  };
}
