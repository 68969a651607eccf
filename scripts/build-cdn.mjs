// `npm run build:cdn`: the CDN build, for a plain <script type="module" src="…/esign-elements.min.js"> with no build
// step. Lit and every dependency are inlined; code that runs only after a user acts or for another language (the
// opt-in browser-held session, …) is split into chunks under chunks/, which the entry imports relative to its own
// URL: serve the folder as it is (any npm CDN does), and one <script> tag still loads everything it needs.
import { build } from 'esbuild';
import { minify } from 'terser';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cdnOptions } from './cdn-options.mjs';

const outdir = 'dist/cdn';
const entry = `${outdir}/esign-elements.min.js`;
// no chunk of an earlier build may linger beside the new ones
rmSync(outdir, { recursive: true, force: true });
await build({
  ...cdnOptions,
  entryPoints: { 'esign-elements.min': 'src/index.ts' },
  outdir,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
});
const files = [entry, ...readdirSync(join(outdir, 'chunks')).filter((f) => f.endsWith('.js')).map((f) => join(outdir, 'chunks', f))];
// a second pass of terser over esbuild's output: -1.6 KB gzip over all files (docs/bundle-size.md) for about 1.5 s;
// the source maps are carried through, and the comments that point to the licence files stay
for (const file of files) {
  const name = file.split('/').pop();
  const result = await minify(readFileSync(file, 'utf8'), {
    module: true,
    compress: { passes: 2 },
    mangle: true,
    format: { comments: /license information/i },
    sourceMap: { content: readFileSync(`${file}.map`, 'utf8'), url: `${name}.map` },
  });
  writeFileSync(file, result.code);
  writeFileSync(`${file}.map`, typeof result.map === 'string' ? result.map : JSON.stringify(result.map));
}
const sizes = files.map((file) => {
  const bytes = readFileSync(file);
  return { file, min: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
});
for (const { file, min, gzip } of sizes) console.log(`${file}: ${(min / 1024).toFixed(1)} KiB minified, ${(gzip / 1024).toFixed(1)} KiB gzip -9`);
// its types: the same exports as the package root (the bundle is src/index.ts), for `import … from 'esign-elements/cdn'`
writeFileSync(entry.replace(/\.js$/, '.d.ts'), "// The CDN bundle exports what the package root exports.\nexport * from '../index.js';\n");
