// `npm run build:cdn`: one self-contained, minified ES module (Lit and every dependency inlined) for a
// plain <script type="module" src="…/esign-elements.min.js"> with no build step.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { cdnOptions } from './cdn-options.mjs';

const outfile = 'dist/cdn/esign-elements.min.js';
await build({
  ...cdnOptions,
  entryPoints: ['src/index.ts'],
  outfile,
  sourcemap: true,
});
const bytes = readFileSync(outfile);
console.log(`${outfile}: ${(bytes.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip`);
// its types: the same exports as the package root (the bundle is src/index.ts), for `import … from 'esign-elements/cdn'`
writeFileSync(outfile.replace(/\.js$/, '.d.ts'), "// The CDN bundle exports what the package root exports.\nexport * from '../index.js';\n");
