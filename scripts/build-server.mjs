// `npm run build:server`: the Node parts (emulator, token proxy, their CLIs) as ES modules with their
// server-only dependencies (hono, @hono/node-server, …) inlined, so those stay devDependencies and a
// browser project's install never carries them, while `npx esign-emulator` / `npx esign-token-proxy`
// still run from the one package. Runs after tsc: it replaces tsc's output for these entries and
// removes the per-file modules the bundles now contain (their .d.ts files stay for the types).
// Imports of the browser-safe library (src/core/**) stay imports of the shipped dist/core files, so
// `instanceof EsignError` holds across `esign-elements/core` and `esign-elements/proxy`.
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const SERVER_DIRS = ['emulator', 'proxy', 'testing'];
// every public entry of the server parts (package.json exports and bin); a file missing on this branch is skipped
const ENTRIES = [
  'src/emulator/index.ts',
  'src/emulator/cli.ts',
  'src/proxy/index.ts',
  'src/proxy/node.ts',
  'src/proxy/redis.ts',
  'src/proxy/cli.ts',
  'src/testing/index.ts',
  'src/testing/playwright.ts',
  'src/testing/web-test-runner.ts',
].filter((f) => existsSync(f));
const CHUNKS = 'server'; // dist/server/*.js: one folder deep, like the entries, so '../core/x.js' holds from every output

const keepLibraryExternal = {
  name: 'keep-library-external',
  setup(b) {
    // src/core/** is the browser-safe library, shipped as its own files: import it, do not copy it
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'resolving' });
      if (resolved.errors.length) return undefined;
      const fromSrc = relative('src', resolved.path).split(sep).join('/');
      if (!fromSrc.startsWith('core/')) return undefined;
      return { path: `../${fromSrc.replace(/\.ts$/, '.js')}`, external: true };
    });
  },
};

const BANNER = "import { createRequire as __esignCreateRequire } from 'node:module';\nconst require = __esignCreateRequire(import.meta.url);";

// the chunks' folder holds only this build's output: chunks of an earlier build (other hashes) would otherwise stay
// and ship in the package
rmSync(join('dist', CHUNKS), { recursive: true, force: true });

const result = await build({
  entryPoints: ENTRIES,
  outbase: 'src',
  outdir: 'dist',
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // node_modules are inlined; Node's own modules stay imports. The Redis client (1.2 MiB bundled) is an optional
  // peer instead: only a proxy started with --store redis:// needs it, and it says to install it
  packages: 'bundle',
  external: ['@redis/client', '@playwright/test'],
  allowOverwrite: true,
  // no source maps here: the map of the emulator bundle alone is 386 KiB (most of it hono's sources) for local
  // tools; the output is unminified ES2022 with its module comments, readable as it is in a stack trace
  sourcemap: false,
  legalComments: 'linked',
  metafile: true,
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
  plugins: [keepLibraryExternal],
  // a CommonJS dependency inlined into these ES modules (a Redis client, say) may require() Node's modules: give
  // each output a real require, else esbuild's stand-in throws "Dynamic require of … is not supported"
  banner: { js: BANNER },
  // the CLIs keep their #!/usr/bin/env node line (esbuild keeps a hashbang of an entry)
});

// the banner only where something calls require: `esign-elements/proxy` and its chunks run on Workers, Deno and
// Bun, and a `node:module` import there would break Workers without nodejs_compat
for (const path of Object.keys(result.metafile.outputs).filter((p) => p.endsWith('.js'))) {
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(BANNER);
  if (at < 0) continue;
  const rest = text.slice(at + BANNER.length);
  if (!/\brequire\s*\(|__require\b/.test(rest)) writeFileSync(path, text.slice(0, at) + rest.replace(/^\n/, ''));
}

// tsc's per-file JavaScript for the server folders is now inside the bundles: drop it (types stay)
const outputs = new Set(Object.keys(result.metafile.outputs).map((p) => p.split(sep).join('/')));
for (const dir of SERVER_DIRS) {
  const root = join('dist', dir);
  if (!existsSync(root)) continue;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.js(\.map)?$/.test(name) && !outputs.has(path.split(sep).join('/'))) rmSync(path);
    }
  };
  walk(root);
}
const bytes = Object.entries(result.metafile.outputs)
  .filter(([p]) => p.endsWith('.js'))
  .map(([p, o]) => `${p} ${(o.bytes / 1024).toFixed(1)} KiB`);
console.log(`server bundles (dependencies inlined):\n  ${bytes.join('\n  ')}`);
