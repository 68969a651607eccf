/**
 * Bundle size (issue 13), built in-process as the CDN build bundles (scripts/cdn-options.mjs: Rolldown, minified, ESM,
 * browser, split at every dynamic import), gzip -9 per file. Prints, in one run:
 * - the three budgets with PASS/OVER: everything `import 'esign-elements'` can ever load (all chunks); what a page with
 *   all four tags loads before each element shows its first state (the entry and the chunks it imports statically,
 *   transitively: a lazy chunk loads only after a user acts or when the page's language asks for it); and
 *   `<esign-signing-frame>` alone, first render;
 * - per element (first render, and all it can load), Lit alone, the lazy chunks;
 * - the peers (`hellosign-embedded`, `pandadoc-signing`, `oidc-client-ts`) bundled with the same settings;
 * - where the bytes go (minified bytes per package or folder, all chunks).
 */
import { existsSync } from 'node:fs';
import { printTable, recordResults } from './results.js';
import {
  FIRST_STATE_BUDGET,
  measure,
  PEER_BUDGET,
  root,
  sideEffectImport,
  SIGNING_FRAME_BUDGET,
  type Chunk,
  type Measured,
  type MeasureOptions,
} from './size-measure.js';

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

const PEERS: Array<[string, string]> = [
  ['hellosign-embedded', "export { default } from 'hellosign-embedded';"],
  ['pandadoc-signing', "export * from 'pandadoc-signing';"],
  ['oidc-client-ts', "export * from 'oidc-client-ts';"],
];
const PEER_OPTIONS: MeasureOptions = { templates: false, define: { 'process.env.NODE_ENV': '"production"' } };

const elements = ['src/esign-connect.ts', 'src/esign-uploader.ts', 'src/esign-signing-frame.ts', 'src/esign-contract-list.ts'].filter((f) =>
  existsSync(`${root}${f}`),
);

// as a page does: `import 'esign-elements'` (or one tag's module) for its tags, the programmatic exports unused
const all = await measure("import 'esign-elements' (all four tags)", sideEffectImport('src/index.ts'));
const singles = await Promise.all(elements.map((f) => measure(f.replace(/^src\/|\.ts$/g, ''), sideEffectImport(f))));
// the CDN file keeps every export of the entry (EsignClient, SessionManager, …): its own row
const cdn = await measure('CDN build (entry with all its exports)', 'src/index.ts');
const lit = await measure('Lit alone (trivial LitElement)', { contents: LIT_ONLY });
const peers = await Promise.all(PEERS.map(([name, contents]) => measure(name, { contents }, PEER_OPTIONS)));

const kib = (n: number): string => (n / 1024).toFixed(1);
const row = (m: Measured) => ({
  bundle: m.name,
  'first render gzip': m.error ? 'error' : m.initial.gzip,
  'all chunks gzip': m.error ? 'error' : m.all.gzip,
  'first render min': m.initial.min,
  'all chunks min': m.all.min,
  chunks: m.chunks.length,
});
printTable('bundle sizes (Rolldown bundle + minify + splitting, ESM, browser, production conditions; bytes; gzip -9)', [
  ...[all, ...singles, cdn, lit].map(row),
]);
printTable('peers, same settings (bytes; gzip -9)', peers.map(row));
for (const m of [all, ...singles, lit, ...peers]) if (m.error) console.log(`  ${m.name}: ${m.error}`);

const frame = singles.find((s) => s.name === 'esign-signing-frame');
const peerBudget = peers.find((p) => p.name === PEER_BUDGET)?.all.gzip ?? 29_335;
const budgets = [
  { budget: `everything import 'esign-elements' can load <= ${PEER_BUDGET} (${peerBudget} B)`, measured: all.all.gzip, limit: peerBudget },
  {
    budget: `all four tags, before each shows its first state <= ${FIRST_STATE_BUDGET / 1024} KiB (${FIRST_STATE_BUDGET} B)`,
    measured: all.initial.gzip,
    limit: FIRST_STATE_BUDGET,
  },
  {
    budget: `<esign-signing-frame> alone, first render <= ${SIGNING_FRAME_BUDGET / 1024} KiB (${SIGNING_FRAME_BUDGET} B)`,
    measured: frame?.initial.gzip ?? Number.NaN,
    limit: SIGNING_FRAME_BUDGET,
  },
].map((b) => ({
  ...b,
  verdict: all.error || !Number.isFinite(b.measured) ? 'BUILD FAILED' : b.measured <= b.limit ? 'PASS' : 'OVER',
  margin: b.limit - b.measured,
}));
printTable(
  'budgets (gzip -9)',
  budgets.map((b) => ({ budget: b.budget, measured: b.measured, verdict: b.verdict, 'margin (B)': b.margin })),
);

printTable(
  "chunks of import 'esign-elements' (loaded at first render, or later: after a user acts, or for another language)",
  all.chunks.map((c) => ({ chunk: c.file, when: c.initial ? 'first render' : 'lazy', 'min bytes': c.min, 'gzip bytes': c.gzip, inputs: chunkInputs(c) })),
);

function chunkInputs(chunk: Chunk): string {
  const inputs = chunk.modules;
  return (
    inputs
      .slice(0, 3)
      .map(({ module }) => module.replace(/^.*node_modules\//, '').replace(/^src\//, ''))
      .join(', ') + (inputs.length > 3 ? ` +${inputs.length - 3}` : '')
  );
}

let byOwner: Array<{ owner: string; bytes: number }> = [];
let topModules: Array<{ module: string; bytes: number }> = [];
if (!all.error) {
  const inputs = all.chunks.flatMap((c) => c.modules);
  const total = inputs.reduce((s, i) => s + i.bytes, 0);
  const owners = new Map<string, number>();
  for (const i of inputs) owners.set(ownerOf(i.module), (owners.get(ownerOf(i.module)) ?? 0) + i.bytes);
  byOwner = [...owners].map(([owner, bytes]) => ({ owner, bytes })).sort((a, b) => b.bytes - a.bytes);
  topModules = inputs.sort((a, b) => b.bytes - a.bytes).slice(0, 15);
  const pct = (n: number): string => `${((n / total) * 100).toFixed(1)}%`;
  printTable(
    'where the bytes go, all chunks, by package or folder (minified bytes)',
    byOwner.slice(0, 12).map((o) => ({ owner: o.owner, 'min bytes': o.bytes, share: pct(o.bytes) })),
  );
  printTable(
    'top 15 modules (minified bytes)',
    topModules.map((t) => ({ module: t.module, 'min bytes': t.bytes, share: pct(t.bytes) })),
  );
}
// React wrappers (esign-elements/react/<tag>.js): what one wrapper adds to its element, react and react-dom being the
// app's own (external); all chunks of each, gzip -9. Budget: 2 KiB over the element alone.
const WRAPPER_BUDGET_BYTES = 2048;
const wrappers = await Promise.all(
  elements.map(async (f) => {
    const tag = f.replace(/^src\/|\.ts$/g, '');
    const wrapper = await measure(`react/${tag}`, `src/react/${tag}.ts`, { external: ['react', 'react-dom'] });
    const element = singles.find((s) => s.name === tag);
    const over = wrapper.error || !element || element.error ? null : wrapper.all.gzip - element.all.gzip;
    return { tag, element: element?.all.gzip ?? null, wrapper: wrapper.error ? null : wrapper.all.gzip, over };
  }),
);
printTable(
  `React wrappers: element + wrapper against the element alone (react external; all chunks; gzip -9), budget ${WRAPPER_BUDGET_BYTES} B over the element`,
  wrappers.map((w) => ({
    wrapper: `react/${w.tag}.js`,
    'element gzip B': w.element ?? 'error',
    'with wrapper gzip B': w.wrapper ?? 'error',
    'wrapper costs B': w.over ?? 'error',
    verdict: w.over === null ? 'BUILD FAILED' : w.over <= WRAPPER_BUDGET_BYTES ? 'PASS' : 'OVER',
  })),
);

console.log(`\n${budgets.map((b) => `${b.verdict}  ${b.budget}: ${b.measured} B`).join('\n')}`);
console.log(`(${kib(all.all.gzip)} KiB all chunks; ${kib(all.initial.gzip)} KiB first render; Lit alone ${lit.all.gzip} B)`);

const sizes = (m: Measured) => ({ firstRender: m.initial, allChunks: m.all, chunks: m.chunks.length, ...(m.error ? { error: m.error } : {}) });
recordResults('size', {
  reactWrappers: { budgetBytesOverElement: WRAPPER_BUDGET_BYTES, gzipLevel: 9, wrappers },
  budgets: budgets.map(({ budget, measured, limit, verdict }) => ({ budget, measuredGzipBytes: measured, limitGzipBytes: limit, verdict })),
  all: sizes(all),
  chunks: all.chunks.map((c) => ({ file: c.file, initial: c.initial, minBytes: c.min, gzipBytes: c.gzip })),
  elements: Object.fromEntries(singles.map((s) => [s.name, sizes(s)])),
  litAlone: sizes(lit),
  peers: Object.fromEntries(peers.map((p) => [p.name, sizes(p)])),
  byOwner: byOwner.slice(0, 12),
  topModules,
  settings:
    'scripts/cdn-options.mjs bundleForBrowser (Rolldown bundle + its minifier, esm, es2022, platform browser, conditions production, Lit css/html template text minified, split at every dynamic import), comments left out; gzip -9 (zlib level 9) per chunk, summed',
});
