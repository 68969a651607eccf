// `npm run test:browser`: the browser suite in Chromium, Firefox and WebKit (web-test-runner.config.mjs), one engine
// after another against one set of services. `ESIGN_ENGINES=webkit npm run test:browser` runs one engine.
import { spawnSync } from 'node:child_process';

const args = ['--import', 'tsx', 'node_modules/@web/test-runner/dist/bin.js', ...process.argv.slice(2)];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
