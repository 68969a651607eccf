/**
 * The shape of the real framework app tests (nextjs-app, nuxt-app, sveltekit-app, angular-app, issue 47):
 * `frameworkApp({...})` lays out an app in its workspace of the run's shared install (app-installs.ts), writes its
 * files and copies the guide's and the recipes' files into it as they are, runs its production build with no `ESIGN_`
 * variable at all (the secrets exist only at run time, as in CI or Docker), then serves the build with the token
 * proxy's settings against the emulator, and declares what every app checks:
 * - the server's HTML: the app's own assertions, and `esign-elements/elements.css` among its stylesheets;
 * - one caller (127.0.0.2) floods the sign-in, then another person connects through the app's origin;
 * - in Chromium, a person connects, uploads, sends and finds the envelope through the app's own handlers
 *   (app-flow.ts), with no esign-error and no hydration message;
 * - nothing secret (the client_secret, the cookie key) in anything the server printed.
 * A test file says only what is particular to its framework, and adds its own tests with the returned app.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { freePort } from '@esign-elements/test-support/ports';
import { personSendsFromApp } from './app-flow.js';
import { appEnv, installedApp, type AppName } from './app-installs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

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

/** A server of the app: its name in messages, `node`'s arguments, the environment it adds to the proxy's. */
export interface ServerOptions {
  name: string;
  args: (folder: string, port: number) => string[];
  env?: (emulator: Emulator, origin: string, port: number) => Record<string, string>;
}

export interface FrameworkAppOptions {
  /** The app's workspace in the shared install (its dependencies are pinned there). */
  app: AppName;
  /** The describe block's title. */
  title: string;
  /** The name the app writes in its status lines (`<label> sees Space …`). */
  label: string;
  /** Files the test writes: path in the app → text. */
  files?: (emulator: Emulator) => Record<string, string> | Promise<Record<string, string>>;
  /** Files of this repository (the guide's, the recipes') copied as they are: path in the app → path in the repository. */
  copies?: Record<string, string>;
  /** `npm exec` arguments of the production build. */
  build: string[];
  /** Public settings the build reads (never a secret); the servers get them too. */
  buildEnv?: (emulator: Emulator) => Record<string, string>;
  /** The production server. */
  server: ServerOptions;
  /** What the server's HTML of `/` shows besides the stylesheet. */
  rendered: (page: string, app: FrameworkApp) => void;
  /** Headers the flooder adds, and what the server's log must say after the flood. */
  flood?: { headers?: Record<string, string>; logs?: RegExp };
}

export interface FrameworkApp {
  readonly folder: string;
  readonly emulator: Emulator;
  readonly origin: string;
  /** Starts another server of the built app (`next dev`, say) on a free port, its redirect URI registered. */
  serve(server: ServerOptions): Promise<{ server: AppServer; origin: string }>;
  /** Asserts that nothing secret is in anything `server` printed. */
  printedNoSecret(server?: AppServer): void;
}

/** The hrefs of the page's `<link rel="stylesheet">`, fetched and joined. */
async function stylesheets(page: string, origin: string): Promise<string> {
  const links = (page.match(/<link\b[^>]*>/g) ?? []).filter((link) => /\brel="stylesheet"/.test(link));
  const hrefs = links.map((link) => /\bhref="([^"]+)"/.exec(link)?.[1]).filter((href): href is string => href !== undefined);
  return (await Promise.all(hrefs.map(async (href) => (await fetch(new URL(href, origin))).text()))).join('\n');
}

/** Declares the app's hooks and the tests every app runs (the module comment); returns the app for more tests. */
export function frameworkApp(options: FrameworkAppOptions): FrameworkApp {
  const cookieKey = randomBytes(32).toString('base64url');
  let emulator: Emulator;
  let folder: string;
  let server: AppServer | undefined;
  let origin: string;
  const env = (): NodeJS.ProcessEnv => ({ ...appEnv(), ...options.buildEnv?.(emulator) });

  const app: FrameworkApp = {
    get folder() {
      return folder;
    },
    get emulator() {
      return emulator;
    },
    get origin() {
      return origin;
    },
    async serve(serverOptions) {
      const port = await freePort();
      const served = `http://localhost:${port}`;
      emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${served}/api/esign/callback`);
      const started = await startAppServer(serverOptions.name, serverOptions.args(folder, port), {
        cwd: folder,
        origin: served,
        env: { ...env(), ...serverOptions.env?.(emulator, served, port), ...proxyEnv(emulator.baseUrl, served, cookieKey) },
      });
      return { server: started, origin: served };
    },
    printedNoSecret(printed = server) {
      assert.ok(!printed!.output().includes(DEMO_LOGIN.clientSecret) && !printed!.output().includes(cookieKey), 'nothing secret printed');
    },
  };

  before(
    async () => {
      emulator = await createEmulator({ port: 0, filePort: 0 });
      folder = await installedApp(options.app);
      const files = (await options.files?.(emulator)) ?? {};
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(folder, path)), { recursive: true });
        writeFileSync(join(folder, path), text);
      }
      for (const [path, from] of Object.entries(options.copies ?? {})) {
        mkdirSync(dirname(join(folder, path)), { recursive: true });
        copyFileSync(join(ROOT, from), join(folder, path));
      }
      // the production build, with no secret anywhere in its environment
      await promisify(execFile)('npm', ['exec', '--offline', '--', ...options.build], {
        cwd: folder,
        env: env(),
        timeout: 400_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      ({ server, origin } = await app.serve(options.server));
    },
    { timeout: 1_200_000 },
  );

  after(async () => {
    await server?.stop();
    await emulator?.close();
  });

  describe(options.title, () => {
    it("the server's HTML: the page rendered with the tags, and elements.css among its stylesheets", async () => {
      const page = await (await fetch(`${origin}/`)).text();
      options.rendered(page, app);
      assert.match(await stylesheets(page, origin), /esign-connect:not\(:defined\)/, 'elements.css is in the server HTML');
    });

    it('built without secrets: one caller floods the sign-in, another person then connects', async () => {
      await floodSignIn(`${origin}/api/esign`, { count: 10, origin, headers: options.flood?.headers });
      await personConnects(`${origin}/api/esign`, {}, origin);
      if (options.flood?.logs) assert.match(server!.output(), options.flood.logs, 'the proxy says so in the log');
      app.printedNoSecret();
    });

    it('in Chromium: a person connects, uploads, sends and finds the envelope; the handlers fire; no hydration message', { timeout: 180_000 }, async () => {
      await personSendsFromApp(origin, options.label, DEMO_LOGIN.clientSecret);
      app.printedNoSecret();
    });
  });
  return app;
}
