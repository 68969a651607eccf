/**
 * One `npm install` for the four framework apps (test/e2e/*-app.test.ts): each app is a workspace of one temporary
 * root, its own package.json naming the packed tarballs (esign-elements, @esign-elements/token-proxy and /shared) and
 * its framework at the versions pinned here (from the registry, not the root lockfile), so what the apps share (the
 * tarballs, TypeScript, esbuild, Vite, Rollup…) is installed once and npm nests what conflicts. On this 2-core machine,
 * loaded, the four installs took 95 s apart and 61–70 s together (npm's CPU: 64 s apart, 35 s together).
 *
 * The root belongs to one test run: the first app test of a `node --test` run makes it, the others find it (keyed
 * by the runner's pid and by the manifest, tarballs' contents included), and it is removed once that runner exits.
 * The root's `allowScripts` denies the install scripts the apps' dependencies carry (esbuild's, lmdb's… each only
 * fetches or builds what a prebuilt optional dependency provides), so the install prints no advisory.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { packPackages } from './pack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const installed = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Each app's dependencies besides the tarballs, and whether its package.json says `"type": "module"`. */
export const APPS = {
  /** SvelteKit 3 needs Node 22: the newest 2.x and what it builds with. */
  sveltekit: {
    module: true,
    dependencies: ['@sveltejs/kit@2.70.4', '@sveltejs/adapter-node@5.5.7', '@sveltejs/vite-plugin-svelte@6.2.3', 'svelte@5.57.3', 'vite@7.3.8'],
  },
  /** Nuxt 4.3 (4.4 needs Node 22). */
  nuxt: { module: true, dependencies: ['nuxt@4.3.0'] },
  /** Next.js 16, React as the root has it. */
  nextjs: { module: false, dependencies: ['next@16.4.6', `react@${installed('react')}`, `react-dom@${installed('react-dom')}`] },
  /** Angular 21 (22 needs Node 22.22); the registry's newest @angular/ssr 21 is 21.2.24, and the CLI and builder pin it. */
  angular: {
    module: true,
    dependencies: [
      ...['core', 'common', 'compiler', 'platform-browser', 'platform-server', 'router', 'ssr', 'build', 'cli', 'compiler-cli'].map(
        (p) => `@angular/${p}@21.2.24`,
      ),
      'express@5.3.0',
      '@types/express@5.0.4',
      'rxjs@7.8.2',
      `typescript@${installed('typescript')}`,
      `@types/node@${installed('@types/node')}`,
    ],
  },
} as const;
export type AppName = keyof typeof APPS;

const TARBALLS = ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements'] as const;

/** Install scripts in the apps' dependencies, each denied: the prebuilt binaries come as optional dependencies. */
const ALLOW_SCRIPTS = { esbuild: false, lmdb: false, 'msgpackr-extract': false, '@parcel/watcher': false };

/** The environment of an app's install, build and server: no `ESIGN_` secret (a build in CI has none), no telemetry. */
export function appEnv(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ESIGN_'))),
    npm_config_update_notifier: 'false',
    NEXT_TELEMETRY_DISABLED: '1',
    NUXT_TELEMETRY_DISABLED: '1',
    NG_CLI_ANALYTICS: 'false',
  };
}

/** `name@version` (the name may be scoped) as a package.json dependency entry. */
function entry(spec: string): [string, string] {
  const at = spec.lastIndexOf('@');
  return [spec.slice(0, at), spec.slice(at + 1)];
}

/** The root's and each app's package.json, the tarballs named by their file in the root. */
function manifests(tarballs: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'esign-apps', private: true, workspaces: Object.keys(APPS), allowScripts: ALLOW_SCRIPTS }, null, 2),
  };
  for (const [name, app] of Object.entries(APPS)) {
    const dependencies = Object.fromEntries([
      ...TARBALLS.map((p): [string, string] => [p, `file:../${basename(tarballs[p]!)}`]),
      ...app.dependencies.map(entry),
    ]);
    files[`${name}/package.json`] = JSON.stringify(
      { name: `${name}-app`, private: true, version: '0.0.0', ...(app.module ? { type: 'module' } : {}), dependencies },
      null,
      2,
    );
  }
  return files;
}

/** Removes `folder` once the process `pid` (the test runner) has exited, from a process of its own. */
function removeAfter(pid: number, folder: string): void {
  const script = `setInterval(() => { try { process.kill(${pid}, 0); } catch { require('node:fs').rmSync(${JSON.stringify(folder)}, { recursive: true, force: true }); process.exit(); } }, 2000);`;
  spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' }).unref();
}

async function install(root: string, tarballs: Record<string, string>, files: Record<string, string>): Promise<void> {
  for (const path of Object.values(tarballs)) renameSync(path, join(root, basename(path)));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const { stderr } = await promisify(execFile)('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: root,
    env: appEnv(),
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  assert.doesNotMatch(stderr, /install-scripts/, 'every install script of the apps is reviewed in the root allowScripts');
}

/** How long an app test waits for the install another app test of the same run started. */
const INSTALL_WAIT_MS = 600_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits until the app test that made `root` has installed it (`.installed`), bounded; fails with its failure. */
async function installedBy(root: string): Promise<void> {
  const deadline = Date.now() + INSTALL_WAIT_MS;
  while (!existsSync(join(root, '.installed'))) {
    const failed = join(root, '.install-failed');
    assert.ok(!existsSync(failed), `the apps' shared install failed: ${existsSync(failed) ? readFileSync(failed, 'utf8') : ''}`);
    const installer = existsSync(join(root, '.installer')) ? Number(readFileSync(join(root, '.installer'), 'utf8')) : 0;
    assert.ok(!installer || alive(installer) || existsSync(join(root, '.installed')), `the app test installing ${root} (pid ${installer}) ended first`);
    assert.ok(Date.now() < deadline, `the apps' shared install in ${root} did not finish in ${INSTALL_WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The folder of app `name`, installed: the run's shared root made and installed by the first caller, waited for
 * (at most 10 min) by the others.
 */
export async function installedApp(name: AppName): Promise<string> {
  const staging = mkdtempSync(join(tmpdir(), 'esign-apps-pack-'));
  try {
    const tarballs = packPackages(staging, TARBALLS);
    const files = manifests(tarballs);
    const key = createHash('sha256').update(JSON.stringify(files));
    for (const path of Object.values(tarballs)) key.update(readFileSync(path));
    const root = join(tmpdir(), `esign-apps-${process.ppid}-${key.digest('hex').slice(0, 12)}`);
    try {
      mkdirSync(root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await installedBy(root);
      return join(root, name);
    }
    writeFileSync(join(root, '.installer'), String(process.pid));
    removeAfter(process.ppid, root);
    try {
      await install(root, tarballs, files);
      writeFileSync(join(root, '.installed'), '');
    } catch (error) {
      writeFileSync(join(root, '.install-failed'), String(error));
      throw error;
    }
    return join(root, name);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The folder of package `name` as Node resolves it from `folder` (in the app's node_modules or the root's). */
export function packageDir(folder: string, name: string): string {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return join(dir, 'node_modules', name);
    assert.notEqual(dirname(dir), dir, `${name} is not installed for ${folder}`);
  }
}
