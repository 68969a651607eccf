/**
 * The build the end-to-end tests share instead of each making its own (issue 36): the CDN build (`npm run build:cdn`,
 * dist/cdn). The packed tarballs are test/helpers/pack.ts's.
 *
 * - `cdnBuild()` runs scripts/build-cdn.mjs only when dist/cdn is older than the sources it is made from (a file run
 *   alone after an edit); under `npm test` the build stage made it a moment ago, so the files use that one. Files
 *   running side by side take turns through a lock folder, so none serves a folder another is rewriting.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The newest modification time of the files under `path` (or of `path` itself). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let time = 0;
  for (const name of readdirSync(path)) time = Math.max(time, newest(join(path, name)));
  return time;
}

/** What the CDN build is made from: a change to any of them makes dist/cdn stale. */
const CDN_SOURCES = ['src', 'scripts/build-cdn.mjs', 'scripts/cdn-options.mjs', 'package-lock.json'];
const CDN_ENTRY = join(ROOT, 'dist/cdn/esign-elements.min.js');

function cdnIsCurrent(): boolean {
  if (!existsSync(CDN_ENTRY)) return false;
  const sources = Math.max(...CDN_SOURCES.filter((p) => existsSync(join(ROOT, p))).map((p) => newest(join(ROOT, p))));
  return statSync(CDN_ENTRY).mtimeMs >= sources;
}

/** Makes sure dist/cdn is the CDN build of this checkout's sources, exactly as `npm run build:cdn` makes it. */
export async function cdnBuild(): Promise<void> {
  if (cdnIsCurrent()) return;
  const lock = join(ROOT, '.tmp/cdn-build.lock');
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // another test file is building: wait for it, then use its build (a lock older than the deadline is stale)
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (!cdnIsCurrent()) execFileSync(process.execPath, ['scripts/build-cdn.mjs'], { cwd: ROOT, stdio: 'pipe' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
