/**
 * What the real framework app tests share (nextjs-app, nuxt-app, sveltekit-app, angular-app): an environment with no `ESIGN_`
 * variable (a build in CI has no secrets), the files of an app, the token proxy's settings for the app's server, and
 * that server started from its build and waited for until the proxy's health route answers.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';

/** This process's environment without any `ESIGN_` variable. */
export function withoutSecrets(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ESIGN_')));
}

/**
 * Removes an app's folder (its node_modules, its build) in a process of its own that outlives the test: deleting a
 * framework app's tens of thousands of files took the app tests about 15 s each, spent waiting on the disk.
 */
export function removeInBackground(folder: string): void {
  spawn('rm', ['-rf', folder], { detached: true, stdio: 'ignore' }).unref();
}

export function writeFiles(folder: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
}

/** The token proxy's settings, with the CLI's names, for an app served at `origin` in front of the emulator at `baseUrl`. */
export function proxyEnv(baseUrl: string, origin: string, cookieKey: string): Record<string, string> {
  return {
    ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
    ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
    ESIGN_BASE_URL: baseUrl,
    ESIGN_COOKIE_KEYS: cookieKey,
    ESIGN_ALLOWED_ORIGINS: origin,
    ESIGN_PUBLIC_ORIGIN: origin,
    ESIGN_RATE_LIMIT: '8',
  };
}

export interface AppServer {
  /** Everything the server printed so far. */
  output(): string;
  /** Ends the server's process group (`next dev` runs its server in a child) and resolves once the server has exited. */
  stop(): Promise<void>;
}

/** Starts `node <args>` (the app's built server) and waits until `<origin>/api/esign/health` answers 200, at most 60 s. */
export async function startAppServer(name: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; origin: string }): Promise<AppServer> {
  // in a process group of its own, so that stop() ends what the server started too
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const stop = async (): Promise<void> => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch (error) {
      // the whole group has exited already
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    await exited;
  };
  const server: AppServer = { output: () => output, stop };
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) assert.fail(`${name} exited: ${output}`);
      const health = await fetch(`${options.origin}/api/esign/health`).catch(() => undefined);
      if (health?.status === 200) return server;
      assert.ok(Date.now() < deadline, `the app did not answer: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
