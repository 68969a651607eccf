// `npm run build:cdn`: the CDN build, for a plain <script type="module" src="…/esign-elements.min.js"> with no build
// step. Lit and every dependency are inlined; code that runs only after a user acts or for another language (the
// opt-in browser-held session, …) is split into chunks under chunks/, which the entry imports relative to its own
// URL: serve the folder as it is (any npm CDN does), and one <script> tag still loads everything it needs.
// Bundled as the size budgets measure it (scripts/cdn-options.mjs: Rolldown), then one pass of terser.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { minify } from 'terser';
import { bundleForBrowser } from './cdn-options.mjs';

const outdir = 'dist/cdn';
const entry = `${outdir}/esign-elements.min.js`;
const LEGAL = `${entry}.LEGAL.txt`;
// no chunk of an earlier build may linger beside the new ones
rmSync(outdir, { recursive: true, force: true });
const chunks = await bundleForBrowser({
  entries: { 'esign-elements.min': 'src/index.ts' },
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
  legalComments: true,
});
// a second pass of terser over the bundler's output (about -1.6 KB gzip over all files, bench/SIZE-NOTES.md); the
// source maps are carried through. The licence comments of the inlined packages move to one file beside the entry,
// which each file names in its first line (as esbuild's legalComments: 'linked' does)
const legal = new Set();
const sizes = [];
for (const chunk of chunks) {
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
  writeFileSync(file, pointer + result.code);
  writeFileSync(`${file}.map`, JSON.stringify(map));
  const bytes = Buffer.byteLength(pointer + result.code);
  sizes.push({ file, min: bytes, gzip: gzipSync(pointer + result.code, { level: 9 }).length });
}
writeFileSync(LEGAL, `Licences of the packages bundled into esign-elements' CDN build (dist/cdn):\n\n${[...legal].join('\n\n')}\n`);
for (const { file, min, gzip } of sizes) console.log(`${file}: ${(min / 1024).toFixed(1)} KiB minified, ${(gzip / 1024).toFixed(1)} KiB gzip -9`);
// its types: the same exports as the package root (the bundle is src/index.ts), for `import … from 'esign-elements/cdn'`
writeFileSync(entry.replace(/\.js$/, '.d.ts'), "// The CDN bundle exports what the package root exports.\nexport * from '../index.js';\n");
