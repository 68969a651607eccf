/**
 * `npm run bench`: runs every bench/*.bench.ts (or those named on the command line) one after another,
 * each in its own process so they do not disturb each other's heap, and leaves bench/results.json.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  // `npm run bench -- load` runs load.bench.ts only, not every file whose name contains "load"
  .filter((f) => wanted.length === 0 || wanted.some((w) => f === `${w}.bench.ts` || f === w))
  .sort();

/** A benchmark that runs longer than this is stopped and reported, so `npm run bench` always ends. */
const LIMIT_MS = Number(process.env['BENCH_LIMIT_MS'] ?? 10 * 60_000);

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', `${dir}${file}`], { stdio: 'inherit', timeout: LIMIT_MS, killSignal: 'SIGKILL' });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    failed++;
    console.error(`${file} did not finish within ${LIMIT_MS / 1000} s and was stopped (its numbers, if any, are from an earlier run)`);
  } else if (run.status !== 0) {
    failed++;
    console.error(`${file} failed (exit ${run.status ?? run.signal})`);
  }
}
console.log(`\nbench: ${files.length - failed} of ${files.length} benchmarks ran; numbers in bench/results.json`);
process.exit(failed ? 1 : 0);
