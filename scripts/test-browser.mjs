// `npm run test:browser`: the browser suite in Chromium (web-test-runner.config.mjs). Known defect: now and then a
// test file's page stops answering and the runner reports "did not finish within …" with no test result (seen in
// the signing-frame file, not yet explained; see the issue notes). Such a run, and only such a run, is repeated
// once and says so; a failed assertion is never repeated.
import { spawnSync } from 'node:child_process';

const args = ['--import', 'tsx', 'node_modules/@web/test-runner/dist/bin.js', ...process.argv.slice(2)];
function run() {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  process.stdout.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  const output = `${result.stdout}${result.stderr}`;
  // a run with a failed test is a real failure, whatever else happened
  return { status: result.status ?? 1, hung: /did not finish within/.test(output), assertionFailed: /\d+ passed, [1-9]\d* failed/.test(output) };
}
let outcome = run();
if (outcome.status !== 0 && outcome.hung && !outcome.assertionFailed) {
  console.error('\ntest:browser: a test file stopped answering (known intermittent hang); running the browser suite once more\n');
  outcome = run();
}
process.exit(outcome.status);
