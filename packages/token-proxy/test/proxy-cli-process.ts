/** The esign-token-proxy CLI as a child process (a replica), for the operations suites: its output, its JSON log lines, a signal. */
import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

export interface CliReplica {
  /** http://localhost:<port> (the session cookie's host) */
  url: string;
  callbackUrl: string;
  /** The metrics URL it printed, when started with --metrics-port. */
  metricsUrl: string | undefined;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The JSON lines of stdout, parsed. */
  lines: () => Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (unless already gone), then waits for the exit. */
  stop(): Promise<void>;
}

/** The CLI exited, or did not say it listens in time: what it printed. */
export class CliStartError extends Error {
  constructor(
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
    startMs: number,
  ) {
    super(code === null ? `the CLI did not start within ${startMs} ms: ${stdout}\n${stderr}` : `the CLI exited with ${code}: ${stdout}\n${stderr}`);
  }
}

/**
 * Every CLI started and not yet gone: killed once the file's tests are done, however they ended. A CLI a failed test
 * left running (started after its test timed out, or one of three when another failed to start) would otherwise
 * keep this process, and the whole node suite behind it, waiting for ever: its pipes hold the event loop open, so
 * 'exit' alone never comes.
 */
const live = new Set<ChildProcess>();
after(() => {
  for (const child of live) {
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  }
});
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts the CLI with the demo app's secret and `key` from the environment; `env` adds to or overrides that.
 * `startMs`: how long it may take to say it listens (node --import tsx compiles the sources first: 2–3 s alone, 8 s
 * for three at once on a busy 2-core machine).
 */
export async function startCli(emulator: Emulator, key: string, args: string[], env: Record<string, string> = {}, startMs = 60_000): Promise<CliReplica> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ESIGN_') && k !== 'PORT' && k !== 'HOST'));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', ...args], {
    env: {
      ...clean,
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emulator.baseUrl,
      ESIGN_ALLOWED_ORIGINS: 'http://localhost:6006',
      ESIGN_COOKIE_KEYS: key,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + startMs;
  let url: string | undefined;
  while (!url) {
    url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url && /^logs: /m.test(out)) break;
    url = undefined;
    if (child.exitCode !== null || Date.now() > deadline) {
      const code = child.exitCode;
      child.kill('SIGKILL');
      // what it printed last (its stderr may come after the exit is seen)
      await new Promise((resolve) => setTimeout(resolve, 100));
      throw new CliStartError(code, out, err, startMs);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const callbackUrl = /redirect URI to register at the service: (\S+)/.exec(out)?.[1];
  if (!callbackUrl) throw new Error(`the CLI printed no callback: ${out}`);
  emulator.registerRedirectUri(DEMO_LOGIN.clientId, callbackUrl);
  return {
    url: url.replace('//127.0.0.1:', '//localhost:'),
    callbackUrl,
    metricsUrl: /^metrics: (\S+)/m.exec(out)?.[1],
    child,
    stdout: () => out,
    stderr: () => err,
    lines: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
