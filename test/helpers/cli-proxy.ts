/**
 * The real token-proxy CLI (`esign-token-proxy`, run from its source) as a process the browser tests stop and start
 * again, as an operator restarts it: the same port and cookie key (the session lives in the sealed cookie, which the
 * same key opens again after the restart), and a Redis store of its own (a real redis-server), as a deployment that
 * restarts runs it, so the refresh in-flight and replay entries outlive the process too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { freePort } from '@esign-elements/test-support/ports';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

const CLI = fileURLToPath(new URL('../../packages/token-proxy/src/cli.ts', import.meta.url));
/** How long the CLI may take to say it listens: `node --import tsx` compiles the sources first (8 s seen under load). */
const START_MS = 60_000;

export interface CliProxySettings {
  clientId: string;
  clientSecret: string;
  baseUrl: string;
  pageOrigin: string;
  redirectUris: string[];
}

export interface CliProxy {
  /** http://localhost:<port>: the same site as the test page, so its session cookie comes back. */
  url: string;
  /** Its callback, to register at the emulator. */
  callbackUrl: string;
  /** SIGTERM, then waits for the exit: connections to its port are refused until `start`. */
  stop(): Promise<void>;
  /** Starts the CLI (again) on the same port, key and store; resolves once it says it listens. */
  start(): Promise<void>;
  /** Stops the CLI and its Redis. */
  close(): Promise<void>;
}

/** Every CLI child of this process, killed if the test runner exits without closing it. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startCliProxy(settings: CliProxySettings): Promise<CliProxy> {
  const redis: RedisServer = await startRedisServer();
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ESIGN_') && k !== 'PORT' && k !== 'HOST'));
  const env = {
    ...clean,
    ESIGN_CLIENT_ID: settings.clientId,
    ESIGN_CLIENT_SECRET: settings.clientSecret,
    ESIGN_BASE_URL: settings.baseUrl,
    ESIGN_ALLOWED_ORIGINS: settings.pageOrigin,
    ESIGN_REDIRECT_URIS: settings.redirectUris.join(','),
    ESIGN_COOKIE_KEYS: generateCookieKey(),
    ESIGN_STORE: redis.url,
    ESIGN_RATE_LIMIT: 'off',
    ESIGN_HOST: '127.0.0.1',
    ESIGN_PORT: String(port),
    // a stop is a restart's first half: connections still open are cut after 2 s rather than the default 15
    ESIGN_SHUTDOWN_TIMEOUT_MS: '2000',
  };
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function start(): Promise<void> {
    if (child) return;
    const started = spawn(process.execPath, ['--import', 'tsx', CLI], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    live.add(started);
    exited = new Promise((resolve) =>
      started.once('exit', () => {
        live.delete(started);
        resolve();
      }),
    );
    let out = '';
    started.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out = (out + chunk).slice(-20_000)));
    started.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out = (out + chunk).slice(-20_000)));
    const deadline = Date.now() + START_MS;
    while (!/listening on http:\/\//.test(out)) {
      if (started.exitCode !== null || Date.now() > deadline) {
        started.kill('SIGKILL');
        child = undefined;
        throw new Error(`the token-proxy CLI did not start: ${out}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running) return;
    if (running.exitCode === null && running.signalCode === null) running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url,
    callbackUrl: `${url}/callback`,
    stop,
    start,
    close: async () => {
      await stop();
      await redis.stop();
    },
  };
}
