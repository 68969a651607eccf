// `npm run build:cdn`: the CDN build, for a plain <script type="module" src="…/esign-elements.min.js"> with no build
// step. Lit and every dependency are inlined; code that runs only after a user acts or for another language (the
// opt-in browser-held session, …) is split into chunks under chunks/, which the entry imports relative to its own
// URL: serve the folder as it is (any npm CDN does), and one <script> tag still loads everything it needs.
// Beside it, esign-elements.bundle.min.js: the same kit in one file with no chunk (issue 49), so a page can pin all
// the code it runs with Subresource Integrity; its sha384 is printed and written to integrity.json.
// Bundled as the size budgets measure it (scripts/cdn-options.mjs: Rolldown), then one pass of terser.
// `--outdir <folder>` builds into another folder than dist/cdn (the integrity test builds its own).
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { minify } from 'terser';
import { bundleForBrowser } from './cdn-options.mjs';

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist/cdn' } } });
const outdir = values.outdir;
const entry = `${outdir}/esign-elements.min.js`;
const BUNDLE = 'esign-elements.bundle.min.js';
const LEGAL = `${entry}.LEGAL.txt`;
// no chunk of an earlier build may linger beside the new ones
rmSync(outdir, { recursive: true, force: true });
const options = { entries: { 'esign-elements.min': 'src/index.ts' }, chunkFileNames: 'chunks/[name]-[hash].js', sourcemap: true, legalComments: true };
const chunks = await bundleForBrowser(options);
const bundle = await bundleForBrowser({ ...options, entries: { 'esign-elements.bundle.min': 'src/index.ts' }, singleFile: true });
if (bundle.length !== 1) throw new Error(`${BUNDLE} must be one file, not ${bundle.length}`);
// a second pass of terser over the bundler's output (about -1.6 KB gzip over all files, bench/SIZE-NOTES.md); the
// source maps are carried through. The licence comments of the inlined packages move to one file beside the entry,
// which each file names in its first line (as esbuild's legalComments: 'linked' does)
const legal = new Set();
const sizes = [];
/** The Subresource Integrity value of each file, by its path under outdir. */
const integrity = {};
for (const chunk of [...chunks, ...bundle]) {
  const file = join(outdir, chunk.fileName);
  const name = chunk.fileName.split('/').pop();
  let found = false;
  const result = await minify(chunk.code, {
    module: true,
    compress: { passes: 2 },
    mangle: true,
    format: {
      comments: (_node, comment) => {
        if (/@license|@preserve|^!/.test(comment.value)) {
          legal.add(
            comment.value
              .replace(/^!/, '')
              .split('\n')
              .map((line) => line.replace(/^\s*\*?\s?/, ''))
              .join('\n')
              .trim(),
          );
          found = true;
        }
        return false;
      },
    },
    sourceMap: { content: chunk.map ? chunk.map.toString() : undefined, url: `${name}.map` },
  });
  const pointer = found ? `/*! For license information please see ${relative(dirname(file), LEGAL)} */\n` : '';
  mkdirSync(dirname(file), { recursive: true });
  // the pointer line shifts the code one line down: the map says so with one leading ';'
  const map = JSON.parse(typeof result.map === 'string' ? result.map : JSON.stringify(result.map));
  if (pointer) map.mappings = `;${map.mappings}`;
  const text = pointer + result.code;
  writeFileSync(file, text);
  writeFileSync(`${file}.map`, JSON.stringify(map));
  if (chunk.fileName === BUNDLE) integrity[BUNDLE] = `sha384-${createHash('sha384').update(text).digest('base64')}`;
  sizes.push({ file, min: Buffer.byteLength(text), gzip: gzipSync(text, { level: 9 }).length });
}
writeFileSync(LEGAL, `Licences of the packages bundled into esign-elements' CDN build (dist/cdn):\n\n${[...legal].join('\n\n')}\n`);
for (const { file, min, gzip } of sizes) console.log(`${file}: ${(min / 1024).toFixed(1)} KiB minified, ${(gzip / 1024).toFixed(1)} KiB gzip -9`);
// what a page pins: <script type="module" src="…/esign-elements.bundle.min.js" integrity="…" crossorigin="anonymous">
writeFileSync(join(outdir, 'integrity.json'), `${JSON.stringify(integrity, null, 2)}\n`);
console.log(`integrity of ${join(outdir, BUNDLE)}: ${integrity[BUNDLE]} (also in ${join(outdir, 'integrity.json')})`);
// its types: the same exports as the package root (the bundle is src/index.ts), for `import … from 'esign-elements/cdn'`
const types = "// The CDN bundle exports what the package root exports.\nexport * from '../index.js';\n";
writeFileSync(entry.replace(/\.js$/, '.d.ts'), types);
writeFileSync(join(outdir, BUNDLE.replace(/\.js$/, '.d.ts')), types);
