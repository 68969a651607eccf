// Fails when custom-elements.json is not what the analyzer makes from src/ today.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// the analyzer resolves --outdir against the working directory
const out = `.cem-check-${process.pid}`;
try {
  execFileSync(process.execPath, ['node_modules/@custom-elements-manifest/analyzer/cem.js', 'analyze', '--outdir', out], { stdio: 'pipe' });
  const fresh = readFileSync(join(out, 'custom-elements.json'), 'utf8');
  let committed = '';
  try {
    committed = readFileSync('custom-elements.json', 'utf8');
  } catch {
    // missing counts as stale
  }
  if (JSON.stringify(JSON.parse(fresh)) !== (committed && JSON.stringify(JSON.parse(committed)))) {
    console.error('custom-elements.json is out of date: run `npm run analyze` and commit it.');
    process.exit(1);
  }
  console.log('custom-elements.json is up to date.');
} finally {
  rmSync(out, { recursive: true, force: true });
}
