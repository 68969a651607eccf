// `npm run test:browser`: the browser suite in Chromium (web-test-runner.config.mjs). A test file that "did not finish
// within …" with no test result was, when traced, a failed assertion whose value (a DOM node) the runner
// could not send back (structuredClone in @web/dev-server-core 0.7.5, modernweb-dev/web#2967); test/browser/helpers.ts
// now turns such values into text, so the failure is reported. Should a file still stop answering, that run, and only
// such a run, is repeated once and says so; a failed assertion is never repeated.
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
