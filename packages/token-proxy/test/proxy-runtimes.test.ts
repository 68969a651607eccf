/**
 * The token proxy on every runtime the docs name, for real: the recipes of recipes/ (each one shown verbatim in
 * docs/proxy.md) run as an integrator runs them, importing the published entry `@esign-elements/token-proxy` (dist, as
 * `npm pack` ships it; built again first when older than its sources) from node_modules: Deno (`Deno.serve`), Bun (`Bun.serve`), workerd (the Worker bundled by
 * esbuild as wrangler would, served by the `workerd` binary) and Express on Node. Through each one: a real sign-in at
 * the emulator (the proxy's login route, consent, its callback), a token from the session cookie, a forced refresh
 * (one rotation at the service), `/health` and `/ready`, and Disconnect (the grant revoked at the service). And two
 * Workers in one workerd sharing the Durable Object store recipe: refresh dedupe, Disconnect and rate limit across
 * isolates. The
 * binaries come from devDependencies (`deno`, `bun`, `workerd`): a missing one fails the test, it is never skipped.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { DEMO_LOGIN, signInThroughProxy } from '@esign-elements/test-support/oauth-login';
import { freePort } from '@esign-elements/test-support/ports';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { applyCookies, embeddedStatus, fault, ORIGIN, post, refreshCount, refreshFields } from '@esign-elements/test-support/proxy-client';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const SHARED = join(ROOT, 'packages', 'shared');
const RECIPES = join(PACKAGE, 'recipes');
const KEY = generateCookieKey();
const RECIPE_FILES = ['deno.ts', 'bun.ts', 'worker.ts', 'express.mjs', 'durable-object-store.ts', 'worker-with-store.ts'];
let emulator: Emulator;
let work: string;
const children = new Set<ChildProcess>();

/** A devDependency's binary; its absence fails the test with what to do. */
function binary(name: string): string {
  const path = join(ROOT, 'node_modules', '.bin', name);
  assert.ok(existsSync(path), `the ${name} binary is missing (${path}): it comes with the devDependency "${name}"; run npm ci`);
  return path;
}

/** The newest modification time under `dir` of files matching `pattern`. */
function newest(dir: string, pattern: RegExp): number {
  let time = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) time = Math.max(time, newest(path, pattern));
    else if (pattern.test(name)) time = Math.max(time, stat.mtimeMs);
  }
  return time;
}

before(async () => {
  // the published entry is dist (its wireit script builds it first); when the package's or the shared package's sources
  // are newer (run alone after an edit), both are built again first
  const entry = join(PACKAGE, 'dist', 'index.js');
  const sources = Math.max(newest(join(PACKAGE, 'src'), /\.ts$/), newest(join(SHARED, 'src'), /\.ts$/));
  if (!existsSync(entry) || statSync(entry).mtimeMs < sources) {
    for (const workspace of ['@esign-elements/shared', '@esign-elements/token-proxy']) {
      execFileSync('npm', ['run', 'build', '-w', workspace], { cwd: ROOT, stdio: 'pipe' });
    }
  }
  assert.ok(existsSync(entry) && statSync(entry).mtimeMs >= sources, 'the dist of @esign-elements/token-proxy is older than its sources after building it');
  emulator = await createEmulator({ port: 0, filePort: 0 });
  // an integrator's project: @esign-elements/token-proxy (this package, as installed, with its dependencies) and the
  // recipe's other imports in node_modules
  work = await mkdtemp(join(tmpdir(), 'esign-runtimes-'));
  await mkdir(join(work, 'node_modules', '@hono'), { recursive: true });
  await mkdir(join(work, 'node_modules', '@esign-elements'), { recursive: true });
  await symlink(PACKAGE, join(work, 'node_modules', '@esign-elements', 'token-proxy'), 'dir');
  await symlink(SHARED, join(work, 'node_modules', '@esign-elements', 'shared'), 'dir');
  for (const name of ['hono', 'oauth4webapi']) await symlink(join(ROOT, 'node_modules', name), join(work, 'node_modules', name), 'dir');
  await symlink(join(ROOT, 'node_modules', 'express'), join(work, 'node_modules', 'express'), 'dir');
  await symlink(join(ROOT, 'node_modules', '@hono', 'node-server'), join(work, 'node_modules', '@hono', 'node-server'), 'dir');
  await writeFile(join(work, 'package.json'), JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }));
  for (const recipe of RECIPE_FILES) await copyFile(join(RECIPES, recipe), join(work, recipe));
});

after(async () => {
  // the whole process group: a runtime started through a Node shim (its bin without its install script) is a grandchild
  // that holds the output pipes open, and would keep this file running after its tests
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has ended already
    }
  }
  await emulator?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface Running {
  base: string;
  output: () => string;
}

/** Starts `command` in the project, with the proxy's settings in its environment, and waits for `/health`. */
async function start(command: string, args: string[], port: number, extraEnv: Record<string, string> = {}): Promise<Running> {
  const publicOrigin = `http://localhost:${port}`;
  emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${publicOrigin}/api/esign/callback`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ESIGN_') && k !== 'PORT'));
  const child = spawn(command, args, {
    cwd: work,
    env: {
      ...clean,
      ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      ESIGN_CLIENT_SECRET: DEMO_LOGIN.clientSecret,
      ESIGN_BASE_URL: emulator.baseUrl,
      ESIGN_COOKIE_KEYS: KEY,
      ESIGN_ALLOWED_ORIGINS: ORIGIN,
      ESIGN_PUBLIC_ORIGIN: publicOrigin,
      PORT: String(port),
      // no update checks or telemetry from the runtimes
      DENO_NO_UPDATE_CHECK: '1',
      DO_NOT_TRACK: '1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const base = `${publicOrigin}/api/esign`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}): ${out}`);
    if (Date.now() > deadline) throw new Error(`${command} did not answer /health: ${out}`);
    const health = await fetch(`${base}/health`).catch(() => undefined);
    if (health?.status === 200) {
      assert.deepEqual(await health.json(), { status: 'ok' });
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base, output: () => out };
}

/** Sign-in, token, forced refresh, ready, Disconnect: through the proxy at `base`, checked at the service. */
async function signInRefreshRevoke(running: Running): Promise<void> {
  const { base } = running;
  const signedIn = await signInThroughProxy({ proxyUrl: base, origin: ORIGIN, chooseSpaceId: 'space_acme' });
  assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
  assert.ok(signedIn.callbackUrl.startsWith(`${base}/callback?`), "the proxy's own callback received the code");
  const jar = signedIn.jar;
  const first = await post(`${base}/token`, refreshFields(), jar);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('access-control-allow-origin'), ORIGIN);
  assert.match(first.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(await embeddedStatus(emulator.baseUrl, first.json.access_token), 200, 'the first access token works');
  const refreshesBefore = await refreshCount(emulator.baseUrl);
  const forced = await post(`${base}/token`, refreshFields({ force: '1' }), jar);
  assert.equal(forced.status, 200, forced.text);
  assert.equal(await refreshCount(emulator.baseUrl), refreshesBefore + 1, 'one rotation at the service');
  assert.notEqual(forced.json.access_token, first.json.access_token);
  assert.ok(
    forced.setCookies.some((line) => /^esign_(?!l_)/.test(line)),
    'the rotated session cookie',
  );
  assert.equal(await embeddedStatus(emulator.baseUrl, forced.json.access_token), 200, 'the refreshed access token works');
  const ready = await fetch(`${base}/ready`);
  assert.equal(ready.status, 200, await ready.clone().text());
  const revoked = await post(`${base}/revoke`, { session: 'open' }, jar);
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(await embeddedStatus(emulator.baseUrl, forced.json.access_token), 401, 'Disconnect revoked the grant at the service');
  const after = await post(`${base}/token`, refreshFields(), jar);
  assert.equal(after.status, 401, after.text);
  assert.equal(after.json.error, 'session_missing', 'the session cookie was cleared');
  assert.ok(!running.output().includes(DEMO_LOGIN.clientSecret) && !running.output().includes(KEY), 'nothing secret printed');
}

/** The per-caller limit the lockout runs give a recipe (ESIGN_RATE_LIMIT), and the flood past it. */
const LOCKOUT = { ESIGN_RATE_LIMIT: '8' };

/** Issue 47: one caller (127.0.0.2, or an unknown address on workerd) floods the sign-in, then another person connects. */
async function lockout(running: Running): Promise<void> {
  await floodSignIn(running.base, { count: 10 });
  await personConnects(running.base);
}

describe('token proxy on real runtimes (the recipes of docs/proxy.md)', () => {
  test('every recipe is shown verbatim in docs/proxy.md', async () => {
    const docs = await readFile(join(ROOT, 'docs', 'proxy.md'), 'utf8');
    for (const recipe of RECIPE_FILES) {
      const code = (await readFile(join(RECIPES, recipe), 'utf8')).trim();
      assert.ok(docs.includes(code), `docs/proxy.md shows packages/token-proxy/recipes/${recipe} as it is`);
    }
  });

  test('Deno: Deno.serve(esignTokens)', async () => {
    const deno = binary('deno');
    await writeFile(join(work, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual' }));
    const running = await start(deno, ['run', '--allow-net', '--allow-env', '--allow-read', 'deno.ts'], await freePort(), LOCKOUT);
    await lockout(running);
    await signInRefreshRevoke(running);
  });

  test('Bun: Bun.serve({ fetch: esignTokens })', async () => {
    const bun = binary('bun');
    const running = await start(bun, ['run', 'bun.ts'], await freePort(), LOCKOUT);
    await lockout(running);
    await signInRefreshRevoke(running);
  });

  test('workerd: the Worker bundled as wrangler does (no node: import), its secrets as bindings', async () => {
    const workerd = binary('workerd');
    const bundle = await build({
      entryPoints: [join(work, 'worker.ts')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      outfile: join(work, 'worker.js'),
      logLevel: 'error',
      metafile: true,
    });
    const imports = Object.values(bundle.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    assert.deepEqual(
      imports.filter((path) => path.startsWith('node:')),
      [],
      'the Worker imports nothing from node:',
    );
    const port = await freePort();
    await writeFile(
      join(work, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .proxyWorker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const proxyWorker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
  bindings = [
    (name = "ESIGN_CLIENT_ID", fromEnvironment = "ESIGN_CLIENT_ID"),
    (name = "ESIGN_CLIENT_SECRET", fromEnvironment = "ESIGN_CLIENT_SECRET"),
    (name = "ESIGN_BASE_URL", fromEnvironment = "ESIGN_BASE_URL"),
    (name = "ESIGN_COOKIE_KEYS", fromEnvironment = "ESIGN_COOKIE_KEYS"),
    (name = "ESIGN_ALLOWED_ORIGINS", fromEnvironment = "ESIGN_ALLOWED_ORIGINS"),
    (name = "ESIGN_PUBLIC_ORIGIN", fromEnvironment = "ESIGN_PUBLIC_ORIGIN"),
    (name = "ESIGN_RATE_LIMIT", fromEnvironment = "ESIGN_RATE_LIMIT"),
  ],
);
`,
    );
    const running = await start(workerd, ['serve', 'config.capnp'], port, LOCKOUT);
    // no CF-Connecting-IP here (no Cloudflare edge in front): the address is unknown, and still no one is locked out
    await lockout(running);
    assert.match(running.output(), /caller's address is unknown/, 'the Worker says so in its log');
    await signInRefreshRevoke(running);
  });

  test('workerd with the Durable Object store: two Workers (isolates) share the refresh dedupe, Disconnect and the rate limit', async () => {
    const workerd = binary('workerd');
    await build({
      entryPoints: [join(work, 'worker-with-store.ts')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      outfile: join(work, 'worker-store.js'),
      logLevel: 'error',
    });
    const [portA, portB] = [await freePort(), await freePort()];
    const worker = (name: string, port: number, store: string): string => `const ${name} :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker-store.js") ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
  ${name === 'a' ? 'durableObjectNamespaces = [ (className = "ProxyStoreEntry", uniqueKey = "esign-proxy-store") ],\n  durableObjectStorage = (inMemory = void),' : ''}
  bindings = [
    (name = "ESIGN_CLIENT_ID", fromEnvironment = "ESIGN_CLIENT_ID"),
    (name = "ESIGN_CLIENT_SECRET", fromEnvironment = "ESIGN_CLIENT_SECRET"),
    (name = "ESIGN_BASE_URL", fromEnvironment = "ESIGN_BASE_URL"),
    (name = "ESIGN_COOKIE_KEYS", fromEnvironment = "ESIGN_COOKIE_KEYS"),
    (name = "ESIGN_ALLOWED_ORIGINS", fromEnvironment = "ESIGN_ALLOWED_ORIGINS"),
    (name = "ESIGN_PUBLIC_ORIGIN", text = "http://localhost:${port}"),
    (name = "ESIGN_STORE", durableObjectNamespace = ${store}),
  ],
);`;
    await writeFile(
      join(work, 'store.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "a", worker = .a),
    (name = "b", worker = .b),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [
    (name = "http-a", address = "127.0.0.1:${portA}", http = (), service = "a"),
    (name = "http-b", address = "127.0.0.1:${portB}", http = (), service = "b"),
  ],
);
${worker('a', portA, '"ProxyStoreEntry"')}
${worker('b', portB, '(className = "ProxyStoreEntry", serviceName = "a")')}
`,
    );
    // one workerd, two Workers: each its own isolate and module state, one Durable Object namespace
    const a = await start(workerd, ['serve', 'store.capnp'], portA);
    const b = `http://localhost:${portB}/api/esign`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `http://localhost:${portB}/api/esign/callback`);
    const ready = await fetch(`${b}/ready`);
    assert.equal(ready.status, 200, await ready.clone().text());
    const signedIn = await signInThroughProxy({ proxyUrl: a.base, origin: ORIGIN, chooseSpaceId: 'space_acme' });
    assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
    const jar = signedIn.jar;
    const first = await post(`${b}/token`, refreshFields(), jar);
    assert.equal(first.status, 200, `the session cookie serves on the other Worker: ${first.text}`);

    // four pages refresh at once through both Workers while the service takes its time: one refresh at the service
    const before = await refreshCount(emulator.baseUrl);
    await fault(emulator.baseUrl, { path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 800, times: 1 });
    const pages = await Promise.all(
      [0, 1, 2, 3].map((i) => post(`${i % 2 ? b : a.base}/token`, refreshFields({ force: '1', request_id: `page-${i}-0123456789abcdef` }), new Map(jar))),
    );
    assert.deepEqual(
      pages.map((page) => page.status),
      [200, 200, 200, 200],
      pages.map((page) => page.text).join('\n'),
    );
    assert.equal(await refreshCount(emulator.baseUrl), before + 1, 'exactly one refresh reached the service');
    assert.equal(new Set(pages.map((page) => page.json.access_token)).size, 1, 'one set of tokens');
    assert.equal(await embeddedStatus(emulator.baseUrl, pages[1]!.json.access_token), 200);

    // Disconnect through A: a copy of the cookie is refused by B too (its cached access token is not served)
    const copy = new Map(jar);
    applyCookies(copy, pages[0]!.setCookies);
    const mine = new Map(copy);
    assert.equal((await post(`${a.base}/revoke`, { session: 'open' }, mine)).status, 200);
    const stolen = await post(`${b}/token`, refreshFields(), copy);
    assert.equal(stolen.status, 401, stolen.text);
    assert.equal(stolen.json.error, 'session_invalid');

    // the rate limit of one caller (no session: its address, here CF-Connecting-IP) is counted across both Workers
    const statuses: number[] = [];
    for (let i = 0; i < 62; i++)
      statuses.push((await post(`${i % 2 ? b : a.base}/token`, refreshFields(), new Map(), { 'CF-Connecting-IP': '203.0.113.50' })).status);
    assert.deepEqual([...new Set(statuses.slice(0, 60))], [401]);
    assert.deepEqual(statuses.slice(60), [429, 429], 'the 61st request over both Workers is over the default 60 per minute');
  });

  test("Express: the proxy's routes before any body parser, the site's own routes untouched", async () => {
    const port = await freePort();
    const running = await start(process.execPath, ['express.mjs'], port, LOCKOUT);
    assert.equal(await (await fetch(`http://localhost:${port}/`)).text(), 'the rest of your site');
    await lockout(running);
    await signInRefreshRevoke(running);
  });
});
