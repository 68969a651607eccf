/**
 * Bundle size: minified and gzip bytes of the CDN bundle (src/index.ts, every dependency inlined), of each
 * single-element import, and of Lit alone, all built in-process with the settings of scripts/build-cdn.mjs.
 * Prints PASS/OVER against the 20 KiB gzip budget and the modules the bytes come from (esbuild metafile; gzip per
 * module through the source map).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { cdnOptions } from '../scripts/cdn-options.mjs';
import { printTable, recordResults } from './results.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUDGET_GZIP_BYTES = 20 * 1024;

/** The options of scripts/build-cdn.mjs (the same module), minus the file output (sourcemap off: it is a separate file there). */
const CDN_OPTIONS: BuildOptions = {
  ...cdnOptions,
  logLevel: 'silent',
  absWorkingDir: root,
  write: false,
  metafile: true,
  outdir: 'bench/tmp/size',
};

interface Measured {
  name: string;
  entry: string;
  min: number;
  gzip: number;
  metafile: Metafile | undefined;
  error?: string;
}

async function measure(name: string, entry: string | { contents: string }): Promise<Measured> {
  const label = typeof entry === 'string' ? entry : '(stdin)';
  try {
    const result = await build({
      ...CDN_OPTIONS,
      ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: 'lit-only.ts' } }),
    });
    const js = result.outputFiles?.find((f) => f.path.endsWith('.js'));
    if (!js) throw new Error('no JavaScript output');
    return { name, entry: label, min: js.contents.byteLength, gzip: gzipSync(js.contents).byteLength, metafile: result.metafile };
  } catch (error) {
    // another engineer may be mid-edit on an element: report it, keep measuring the rest
    return { name, entry: label, min: 0, gzip: 0, metafile: undefined, error: (error as Error).message.split('\n')[0] ?? 'build failed' };
  }
}

/** Groups an input path into a package (node_modules/<pkg>) or a source folder. */
function ownerOf(input: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (pkg) return pkg[1]!;
  const parts = input.split('/');
  return parts.length > 2 ? parts.slice(0, parts.length - 1).join('/') : input;
}

const LIT_ONLY = `import { LitElement, html } from 'lit';
class LitOnly extends LitElement { render() { return html\`<p>lit</p>\`; } }
customElements.define('lit-only', LitOnly);`;

const elements = ['src/esign-connect.ts', 'src/esign-uploader.ts', 'src/esign-signing-frame.ts', 'src/esign-contract-list.ts'].filter((f) => existsSync(`${root}${f}`));

const all = await measure('CDN bundle (src/index.ts, all elements)', 'src/index.ts');
const singles = await Promise.all(elements.map((f) => measure(f.replace(/^src\/|\.ts$/g, ''), f)));
const lit = await measure('Lit alone (trivial LitElement)', { contents: LIT_ONLY });

const kib = (n: number): string => (n / 1024).toFixed(1);
const verdict = all.error ? 'BUILD FAILED' : all.gzip <= BUDGET_GZIP_BYTES ? 'PASS' : 'OVER';
printTable('bundle sizes (esbuild, minified, es2022, production conditions; gzip level 6)', [
  ...[all, ...singles, lit].map((m) => ({
    bundle: m.name,
    'min KiB': m.error ? 'error' : kib(m.min),
    'gzip KiB': m.error ? 'error' : kib(m.gzip),
    'min bytes': m.min,
    'gzip bytes': m.gzip,
    'own share of gzip': m.error || m === lit || lit.error ? '' : `${kib(m.gzip - lit.gzip)} KiB over Lit`,
  })),
]);
for (const m of [all, ...singles, lit]) if (m.error) console.log(`  ${m.name}: ${m.error}`);
console.log(
  `\nbudget: whole bundle ≤ ${kib(BUDGET_GZIP_BYTES)} KiB gzip (${BUDGET_GZIP_BYTES} B): ${verdict}` +
    (all.error ? '' : ` (${all.gzip} B, ${all.gzip <= BUDGET_GZIP_BYTES ? 'under' : 'over'} by ${Math.abs(BUDGET_GZIP_BYTES - all.gzip)} B)`),
);

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The output text of each source of the CDN bundle, found through its source map, gzipped on its own: what a module
 * costs after compression (an upper bound: inside the bundle gzip also finds repeats across modules).
 */
async function gzipBySource(): Promise<Map<string, number>> {
  const result = await build({ ...CDN_OPTIONS, entryPoints: ['src/index.ts'], metafile: false, sourcemap: 'external' });
  const js = result.outputFiles?.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const map = JSON.parse(result.outputFiles?.find((f) => f.path.endsWith('.map'))?.text ?? '{"sources":[],"mappings":""}') as { sources: string[]; mappings: string };
  const lineStarts = [0];
  for (let i = 0; i < js.length; i++) if (js[i] === '\n') lineStarts.push(i + 1);
  // segments as [output offset, source index]; fields are VLQ deltas, the source index carried across lines
  const segments: Array<[number, number]> = [];
  let source = 0;
  map.mappings.split(';').forEach((line, lineIndex) => {
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >> 1) : value >> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length > 1) source += fields[1]!;
      segments.push([lineStarts[lineIndex]! + column, fields.length > 1 ? source : -1]);
    }
  });
  const text = new Map<string, string>();
  segments.forEach(([start, index], i) => {
    if (index < 0) return;
    const name = map.sources[index]!.replace(/^(\.\.\/)+/, '');
    text.set(name, (text.get(name) ?? '') + js.slice(start, segments[i + 1]?.[0] ?? js.length));
  });
  return new Map([...text].map(([name, t]) => [name, gzipSync(t).byteLength]));
}

/** A package module's metafile path and its source-map source differ (build/x.js vs src/x.ts): match on package and file name. */
function looseKey(path: string): string {
  return `${ownerOf(path)}/${path.replace(/^.*\//, '').replace(/\.[^.]+$/, '')}`;
}

let topModules: Array<{ module: string; bytes: number }> = [];
let byOwner: Array<{ owner: string; bytes: number }> = [];
if (all.metafile) {
  const output = Object.values(all.metafile.outputs).find((o) => o.entryPoint === 'src/index.ts');
  const inputs = Object.entries(output?.inputs ?? {}).map(([module, v]) => ({ module, bytes: v.bytesInOutput }));
  const total = inputs.reduce((s, i) => s + i.bytes, 0);
  topModules = inputs.sort((a, b) => b.bytes - a.bytes).slice(0, 15);
  const owners = new Map<string, number>();
  for (const i of inputs) owners.set(ownerOf(i.module), (owners.get(ownerOf(i.module)) ?? 0) + i.bytes);
  byOwner = [...owners].map(([owner, bytes]) => ({ owner, bytes })).sort((a, b) => b.bytes - a.bytes);
  const pct = (n: number): string => `${((n / total) * 100).toFixed(1)}%`;
  const gzipped = await gzipBySource().catch(() => new Map<string, number>());
  const ownerGzip = new Map<string, number>();
  const looseGzip = new Map<string, number>();
  for (const [name, bytes] of gzipped) {
    ownerGzip.set(ownerOf(name), (ownerGzip.get(ownerOf(name)) ?? 0) + bytes);
    looseGzip.set(looseKey(name), bytes);
  }
  printTable(
    'where the bundle bytes go, by package or folder (minified bytes in output; gzip of those bytes alone)',
    byOwner.slice(0, 12).map((o) => ({ owner: o.owner, 'min bytes': o.bytes, share: pct(o.bytes), 'gzip alone': ownerGzip.get(o.owner) ?? '' })),
  );
  printTable(
    'top 15 modules (minified bytes in output; gzip of those bytes alone)',
    topModules.map((t) => ({ module: t.module, 'min bytes': t.bytes, share: pct(t.bytes), 'gzip alone': gzipped.get(t.module) ?? looseGzip.get(looseKey(t.module)) ?? '' })),
  );
}

// React wrappers (esign-elements/react/<tag>.js): what one wrapper adds to its element, react and react-dom being the
// app's own (external); gzip -9 of each bundle. Budget: 2 KiB over the element alone.
const WRAPPER_BUDGET_BYTES = 2048;
async function gzip9(entry: string): Promise<number | string> {
  try {
    const result = await build({ ...CDN_OPTIONS, entryPoints: [entry], metafile: false, legalComments: 'none', external: ['react', 'react-dom'] });
    const js = result.outputFiles?.find((f) => f.path.endsWith('.js'));
    return js ? gzipSync(js.contents, { level: 9 }).byteLength : 'no output';
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? 'build failed';
  }
}
const wrappers = await Promise.all(
  elements.map(async (f) => {
    const tag = f.replace(/^src\/|\.ts$/g, '');
    const [element, wrapper] = await Promise.all([gzip9(f), gzip9(`src/react/${tag}.ts`)]);
    const over = typeof element === 'number' && typeof wrapper === 'number' ? wrapper - element : null;
    return { tag, element, wrapper, over };
  }),
);
printTable(
  `React wrappers: element + wrapper against the element alone (react external; gzip -9), budget ${WRAPPER_BUDGET_BYTES} B over the element`,
  wrappers.map((w) => ({ wrapper: `react/${w.tag}.js`, 'element gzip B': w.element, 'with wrapper gzip B': w.wrapper, 'wrapper costs B': w.over ?? 'error', verdict: w.over === null ? 'BUILD FAILED' : w.over <= WRAPPER_BUDGET_BYTES ? 'PASS' : 'OVER' })),
);

recordResults('size', {
  reactWrappers: { budgetBytesOverElement: WRAPPER_BUDGET_BYTES, gzipLevel: 9, wrappers },
  budgetGzipBytes: BUDGET_GZIP_BYTES,
  verdict,
  bundle: { minBytes: all.min, gzipBytes: all.gzip, ...(all.error ? { error: all.error } : {}) },
  elements: Object.fromEntries(singles.map((s) => [s.name, { minBytes: s.min, gzipBytes: s.gzip, ...(s.error ? { error: s.error } : {}) }])),
  litAlone: { minBytes: lit.min, gzipBytes: lit.gzip },
  ownGzipBytesOverLit: all.error || lit.error ? null : all.gzip - lit.gzip,
  byOwner: byOwner.slice(0, 12),
  topModules,
  settings: 'scripts/cdn-options.mjs: esbuild bundle, minify, esm, es2022, platform browser, conditions production, legalComments linked, Lit css/html template text minified; gzip zlib default level',
});
