/**
 * The packages as a consumer gets them: `npm pack` of esign-elements (its prepack runs the full build) and of the four
 * workspaces, then each tarball is checked with publint and arethetypeswrong (ESM-only profile); the browser kit's
 * manifest paths and editor data are checked against its own files, the links of its README against its own files;
 * and each is installed alone into an empty project (with the tarball of @esign-elements/shared, which is not on the
 * registry before the first release; production install, registry for the other dependencies, scripts allowed as a
 * consumer's install allows them) to see that npm has nothing to warn about, that a browser project pulls in no
 * server package, that a server project pulls in no Lit, and that `esign-emulator` / `esign-token-proxy` start.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packPackages, type PackageName } from '../helpers/pack.js';

/** Packages that only a server needs: none may reach a browser project's install. */
const SERVER_ONLY = [
  'hono',
  '@hono/node-server',
  'ioredis',
  'redis',
  '@redis/client',
  'oauth4webapi',
  '@esign-elements/token-proxy',
  '@esign-elements/emulator',
  '@esign-elements/testing',
];
/** Packages that only a browser needs: none may reach a server project's install. */
const BROWSER_ONLY = ['lit', 'lit-html', 'lit-element', '@lit/reactive-element', '@lit/context', '@lit/react', '@lit/task', 'idb-keyval', 'esign-elements'];
/** The workspaces, in build order, by folder. */
const WORKSPACES = {
  shared: '@esign-elements/shared',
  emulator: '@esign-elements/emulator',
  'token-proxy': '@esign-elements/token-proxy',
  testing: '@esign-elements/testing',
} as const;
type Workspace = keyof typeof WORKSPACES;
const TAGS = ['esign-connect', 'esign-contract-list', 'esign-signing-frame', 'esign-uploader'];

let work: string;
let tarball: string;
const tarballs = {} as Record<Workspace, string>;
let unpacked: string;
let packInfo: { size: number; unpackedSize: number; entryCount: number; files: Array<{ path: string; size: number }> };

const bin = (path: string, args: string[]): { ok: boolean; out: string } => {
  try {
    return { ok: true, out: execFileSync(process.execPath, [path, ...args], { encoding: 'utf8', stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
};
const pkgJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every file under `dir`, with its path relative to `base` and its size. */
function filesUnder(dir: string, base = dir): Array<{ path: string; size: number }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, base) : [{ path: relative(base, path).split(sep).join('/'), size: statSync(path).size }];
  });
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'esign-pack-'));
  // `npm pack` of the five (each one's prepack builds it), or under `npm test` the tarballs its pack stage made once
  // after the one build (test/helpers/pack.ts): packing here would rebuild dist/ under the stages running beside it
  const packed = packPackages(work);
  tarball = packed['esign-elements'];
  for (const [folder, name] of Object.entries(WORKSPACES) as Array<[Workspace, string]>) {
    tarballs[folder] = packed[name as PackageName];
    console.log(`tarball ${basename(tarballs[folder])}: ${(statSync(tarballs[folder]).size / 1024).toFixed(1)} KiB packed`);
  }
  unpacked = join(work, 'unpacked');
  execFileSync('mkdir', ['-p', unpacked]);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  unpacked = join(unpacked, 'package');
  // what npm's --json reports, read from the tarball itself
  const files = filesUnder(unpacked);
  packInfo = { size: statSync(tarball).size, unpackedSize: files.reduce((sum, f) => sum + f.size, 0), entryCount: files.length, files };
  console.log(
    `tarball ${basename(tarball)}: ${(packInfo.size / 1024).toFixed(1)} KiB packed, ${(packInfo.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${packInfo.entryCount} files`,
  );
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('passes publint with no error, warning or suggestion', () => {
    const result = bin('node_modules/publint/src/cli.js', [tarball, '--strict']);
    assert.ok(result.ok, result.out);
    assert.match(result.out, /All good!/);
  });

  it('passes arethetypeswrong (ESM-only profile) on every entry point, ./cdn included', () => {
    // the per-element React wrappers are a subpath pattern (./react/*.js): name them so attw resolves each
    const wrappers = TAGS.map((tag) => `./react/${tag}.js`);
    const result = bin('node_modules/@arethetypeswrong/cli/dist/index.js', [
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'json',
      '--include-entrypoints',
      ...wrappers,
      // a stylesheet has no types to resolve (attw reads every export as a module)
      '--exclude-entrypoints',
      './elements.css',
    ]);
    const report = JSON.parse(result.out.slice(result.out.indexOf('{')));
    const problems = (report.analysis?.problems ?? []).filter(
      (p: { resolutionKind?: string }) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
    );
    assert.deepEqual(problems, [], JSON.stringify(problems, null, 2));
    const entries = Object.keys(report.analysis.entrypoints);
    for (const entry of ['.', './cdn', './headless', './react', ...wrappers, './types/react', './types/vue', './core'])
      assert.ok(entries.includes(entry), `attw checked ${entry}`);
    for (const wrapper of wrappers)
      assert.match(report.analysis.entrypoints[wrapper].resolutions['node16-esm'].resolution.fileName, /dist\/react\/esign-[a-z-]+\.d\.ts$/);
    const cdn = report.analysis.entrypoints['./cdn'].resolutions.bundler.resolution;
    assert.match(cdn.fileName, /esign-elements\.min\.d\.ts$/, './cdn has types');
  });

  it('names only files it contains in custom-elements.json', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'custom-elements.json'), 'utf8'));
    const refs = new Set<string>();
    const walk = (node: unknown, key = ''): void => {
      if (Array.isArray(node)) node.forEach((n) => walk(n, key));
      else if (node && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        for (const [k, v] of Object.entries(record)) {
          if ((k === 'path' || k === 'module') && typeof v === 'string' && !('package' in record)) refs.add(v);
          else walk(v, k);
        }
      }
    };
    walk(manifest.modules);
    assert.ok(refs.size > 10, 'the manifest has module paths');
    const missing = [...refs].filter((p) => !existsSync(join(unpacked, p)));
    assert.deepEqual(missing, [], 'every path and module the manifest names is in the tarball');
    const tags = manifest.modules
      .flatMap((m: { declarations?: Array<{ tagName?: string }> }) => (m.declarations ?? []).map((d) => d.tagName).filter(Boolean))
      .sort();
    assert.deepEqual(tags, TAGS);
  });

  it('ships the editor data package.json points to, with every tag and attribute', () => {
    const pkg = pkgJson(unpacked);
    const vscode = JSON.parse(readFileSync(join(unpacked, pkg.contributes.html.customData[0]), 'utf8'));
    assert.deepEqual(vscode.tags.map((t: { name: string }) => t.name).sort(), TAGS);
    const uploader = vscode.tags.find((t: { name: string }) => t.name === 'esign-uploader');
    assert.ok(
      uploader.attributes.some((a: { name: string; description?: string }) => a.name === 'max-size' && a.description),
      'VS Code hover docs for max-size',
    );
    // hover links go to the element reference of this version, which the tarball ships
    assert.match(uploader.references[0].url, new RegExp(`/esign-elements@${pkg.version}/docs/elements\\.md$`));
    assert.ok(existsSync(join(unpacked, 'docs/elements.md')), 'the element reference is in the tarball');
    assert.ok(existsSync(join(unpacked, pkg.contributes.css.customData[0])), 'VS Code CSS custom data');
    const webTypes = JSON.parse(readFileSync(join(unpacked, pkg['web-types']), 'utf8'));
    const elements = webTypes.contributions.html.elements;
    assert.deepEqual(elements.map((e: { name: string }) => e.name).sort(), TAGS);
    assert.ok(
      elements.find((e: { name: string }) => e.name === 'esign-uploader').attributes.some((a: { name: string }) => a.name === 'max-size'),
      'JetBrains completion for max-size',
    );
    for (const framework of ['react', 'preact', 'solid', 'vue', 'svelte'])
      assert.ok(existsSync(join(unpacked, pkg.exports[`./types/${framework}`].types)), `types/${framework}`);
    // Next.js (App Router): the React wrappers are client modules, their directive first as tsc keeps it
    for (const file of ['index', ...TAGS])
      assert.match(readFileSync(join(unpacked, `dist/react/${file}.js`), 'utf8'), /^'use client';\n/, `dist/react/${file}.js starts with 'use client'`);
    // the stylesheet that reserves each element's space before it upgrades (server rendering)
    const css = readFileSync(join(unpacked, pkg.exports['./elements.css']), 'utf8');
    for (const tag of TAGS) assert.ok(css.includes(`${tag}:not(:defined)`), `elements.css reserves <${tag}>`);
    assert.equal(pkg.unpkg, pkg.jsdelivr);
    assert.ok(existsSync(join(unpacked, pkg.unpkg)), 'the unpkg/jsdelivr file is in the tarball');
  });

  it('has working source maps: every map carries the sources of this package', () => {
    const maps = packInfo.files.map((f) => f.path).filter((p) => p.endsWith('.map'));
    assert.ok(maps.length > 0);
    const broken: string[] = [];
    const upstream: string[] = [];
    for (const path of maps) {
      const map = JSON.parse(readFileSync(join(unpacked, path), 'utf8'));
      map.sources.forEach((source: string, i: number) => {
        if (typeof map.sourcesContent?.[i] === 'string') return;
        // a dependency whose own map names sources it does not publish (oauth4webapi's src/index.ts): its code is still mapped to its .js
        (source.includes('node_modules/') ? upstream : broken).push(`${path}: ${source}`);
      });
    }
    if (upstream.length) console.log(`sources a dependency's own map names but does not publish: ${[...new Set(upstream)].join(', ')}`);
    assert.deepEqual(broken, []);
  });

  it("has no install script: a contributor's build step is not a consumer's", () => {
    const scripts = pkgJson(unpacked).scripts ?? {};
    const install = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => name in scripts);
    assert.deepEqual(install, [], 'npm warns about (and, where allowed, runs) these on every install');
  });

  it('links from its README only to files it ships, or to absolute URLs', () => {
    const readme = readFileSync(join(unpacked, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length >= 10, `${links.length} links`);
    const broken = links.filter((target) => !/^(https?:|mailto:|#)/.test(target) && !existsSync(join(unpacked, target.split('#')[0]!)));
    assert.deepEqual(broken, [], 'every relative link of the shipped README resolves inside the tarball');
    assert.ok(links.includes('docs/guides/token-proxy.md') && existsSync(join(unpacked, 'docs/guides/token-proxy.md')), 'the guides are shipped');
  });

  it('installs into an empty project with no npm warning and without any server-only package', () => {
    const consumer = join(work, 'consumer');
    execFileSync('mkdir', ['-p', consumer]);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    // as a consumer runs it: install scripts allowed, so npm reports any the package has
    const install = spawnSync('npm', ['install', tarballs.shared, tarball, '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock'], {
      cwd: consumer,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    assert.equal(install.status, 0, install.stderr);
    assert.doesNotMatch(install.stderr, /install-scripts|install script/i, 'npm warns about no install script');
    assert.deepEqual(
      install.stderr.split('\n').filter((line) => /^npm warn/.test(line) && /esign-elements/.test(line)),
      [],
      'npm warns about nothing of this package',
    );
    const installed: string[] = [];
    const modules = join(consumer, 'node_modules');
    for (const name of readdirSync(modules)) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) for (const sub of readdirSync(join(modules, name))) installed.push(`${name}/${sub}`);
      else installed.push(name);
    }
    console.log(`a consumer install pulls ${installed.length} packages: ${installed.sort().join(', ')}`);
    assert.deepEqual(
      installed.filter((p) => SERVER_ONLY.includes(p)),
      [],
      'no server-only package',
    );
    assert.ok(installed.includes('lit') && installed.includes('esign-elements') && installed.includes('@esign-elements/shared'));
    const serverFiles = packInfo.files.map((f) => f.path).filter((path) => /^dist\/(proxy|emulator|testing|server)\//.test(path));
    assert.deepEqual(serverFiles, [], 'no server code in the browser kit');
    assert.ok(!existsSync(join(modules, '.bin', 'esign-token-proxy')) && !existsSync(join(modules, '.bin', 'esign-emulator')), 'no server command');
  });
});

/** Installs `tarballs` into a fresh project (as a consumer does); returns its folder and the packages installed. */
function installAlone(name: string, paths: string[]): { folder: string; installed: string[] } {
  const folder = join(work, `consumer-${name}`);
  execFileSync('mkdir', ['-p', folder]);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true, type: 'module' }));
  const install = spawnSync('npm', ['install', ...paths, '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock'], {
    cwd: folder,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  assert.equal(install.status, 0, install.stderr);
  assert.doesNotMatch(install.stderr, /install-scripts|install script/i, 'npm warns about no install script');
  assert.deepEqual(
    install.stderr.split('\n').filter((line) => /^npm warn/.test(line) && /esign-elements/.test(line)),
    [],
    'npm warns about nothing of these packages',
  );
  const installed: string[] = [];
  const modules = join(folder, 'node_modules');
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(modules, entry))) installed.push(`${entry}/${sub}`);
    else installed.push(entry);
  }
  console.log(`${name}: a consumer install pulls ${installed.length} packages: ${installed.sort().join(', ')}`);
  return { folder, installed };
}

/** Runs `attw` on a tarball (ESM-only profile) and returns the entry points it checked; fails on any problem. */
function attw(path: string): string[] {
  const result = bin('node_modules/@arethetypeswrong/cli/dist/index.js', [path, '--profile', 'esm-only', '--format', 'json']);
  const report = JSON.parse(result.out.slice(result.out.indexOf('{')));
  const problems = (report.analysis?.problems ?? []).filter(
    (p: { resolutionKind?: string }) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
  );
  assert.deepEqual(problems, [], JSON.stringify(problems, null, 2));
  return Object.keys(report.analysis.entrypoints);
}

describe('the server packages, each alone', () => {
  const ENTRIES: Record<Workspace, string[]> = {
    shared: ['.'],
    emulator: ['.'],
    'token-proxy': ['.', './node', './redis'],
    testing: ['.', './playwright', './web-test-runner'],
  };
  for (const [folder, name] of Object.entries(WORKSPACES) as Array<[Workspace, string]>) {
    it(`${name} passes publint and arethetypeswrong`, () => {
      const result = bin('node_modules/publint/src/cli.js', [tarballs[folder], '--strict']);
      assert.ok(result.ok, result.out);
      assert.match(result.out, /All good!/);
      const entries = attw(tarballs[folder]);
      for (const entry of ENTRIES[folder]) assert.ok(entries.includes(entry), `attw checked ${name} ${entry}`);
    });
  }

  it('@esign-elements/shared installs alone with no dependency', () => {
    const { installed } = installAlone('shared', [tarballs.shared]);
    assert.deepEqual(installed, ['@esign-elements/shared']);
  });

  it('@esign-elements/token-proxy installs alone without Lit, and `esign-token-proxy --help` runs', () => {
    const { folder, installed } = installAlone('token-proxy', [tarballs.shared, tarballs['token-proxy']]);
    assert.deepEqual(
      installed.filter((p) => BROWSER_ONLY.includes(p)),
      [],
      'no browser package',
    );
    assert.ok(installed.includes('hono') && installed.includes('@hono/node-server'), 'its server libraries, as dependencies');
    assert.ok(!installed.includes('@redis/client'), 'Redis stays optional');
    const result = bin(join(folder, 'node_modules', '.bin', 'esign-token-proxy'), ['--help']);
    assert.ok(result.ok, `esign-token-proxy --help: ${result.out}`);
    assert.match(result.out, /Usage: /);
  });

  it('@esign-elements/testing installs alone (with the emulator and the proxy) without Lit', () => {
    const { installed } = installAlone('testing', [tarballs.shared, tarballs.emulator, tarballs['token-proxy'], tarballs.testing]);
    assert.deepEqual(
      installed.filter((p) => BROWSER_ONLY.includes(p)),
      [],
      'no browser package',
    );
  });

  it('@esign-elements/emulator installs alone without Lit, and `esign-emulator` serves in one command', async () => {
    const { folder: consumer, installed } = installAlone('emulator', [tarballs.shared, tarballs.emulator]);
    assert.deepEqual(
      installed.filter((p) => BROWSER_ONLY.includes(p)),
      [],
      'no browser package',
    );
    const help = bin(join(consumer, 'node_modules', '.bin', 'esign-emulator'), ['--help']);
    assert.ok(help.ok, `esign-emulator --help: ${help.out}`);
    assert.match(help.out, /Usage: /);
    // started as `npx esign-emulator` would, it answers over HTTP
    const child = spawn(process.execPath, [join(consumer, 'node_modules', '.bin', 'esign-emulator'), '--port', '0', '--file-port', '0'], {
      cwd: consumer,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 15_000);
        const onData = (chunk: Buffer) => {
          out += chunk.toString();
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[0]);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const response = await fetch(`${url}/__emulator/outbox.html`);
      assert.equal(response.status, 200);
      await response.body?.cancel();
    } finally {
      child.kill();
    }
  });
});
