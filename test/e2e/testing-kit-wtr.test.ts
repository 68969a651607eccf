/**
 * The test kit in web-test-runner: test/kit-wtr's config starts the services and adds the kit's server commands, and its
 * browser test signs in through the consent popup (and declines), with Chromium through the Playwright launcher
 * (CHROME_PATH: no browser download), on a free port.
 */
import assert from 'node:assert/strict';
import { stripVTControlCharacters } from 'node:util';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { CHROMIUM_PATH } from '../helpers/chromium.js';
import { freePort } from '@esign-elements/test-support/ports';

describe('@esign-elements/testing/web-test-runner', () => {
  it("runs test/kit-wtr's browser tests: a person signs in from a server command", async () => {
    const port = await freePort();
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'node_modules/@web/test-runner/dist/bin.js', '--config', 'test/kit-wtr/web-test-runner.config.mjs'],
      {
        encoding: 'utf8',
        env: { ...process.env, CHROME_PATH: CHROMIUM_PATH, WTR_PORT: String(port) },
        timeout: 180_000,
      },
    );
    // the runner's summary as a person reads it, whatever colours the terminal settings gave it
    const output = stripVTControlCharacters(`${run.stdout}${run.stderr}`);
    assert.equal(run.status, 0, output);
    assert.match(output, /2 passed, 0 failed/, output);
  });
});
