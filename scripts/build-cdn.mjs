// `npm run build:cdn`: one self-contained, minified ES module (Lit and every dependency inlined) for a
// plain <script type="module" src="…/esign-elements.min.js"> with no build step.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const outfile = 'dist/cdn/esign-elements.min.js';
await build({
  entryPoints: ['src/index.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  legalComments: 'eof',
  // Lit's production build (no dev-mode warnings)
  conditions: ['production'],
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
});
const bytes = readFileSync(outfile);
console.log(`${outfile}: ${(bytes.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip`);
