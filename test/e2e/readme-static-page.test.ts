/**
 * The README's "Try it on your machine" steps, followed as written: its index.html in an empty folder, its
 * emulator and token-proxy commands, and a person who opens the page and connects. Only what a test machine
 * needs differs: free ports instead of 4010/8080 (swapped in the page and the commands alike), the CLIs run
 * from this checkout instead of `npx`, and the `npm install esign-elements` step is the CDN build copied
 * into the folder's node_modules.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { cdnBuild } from '../helpers/built.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { sectionBlocks, shellWords, startNode, withPorts } from '../helpers/doc-steps.js';
import { freePort } from '@esign-elements/test-support/ports';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children: ChildProcess[] = [];
let folder: string;
let browser: Browser;
let pageUrl: string;

before(async () => {
  const blocks = sectionBlocks('README.md', '## Try it on your machine', '\n#');
  const tsx = ['--import', import.meta.resolve('tsx')];
  const start = (cli: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<void> =>
    startNode([...tsx, join(ROOT, cli), ...args], { cwd: folder, env, ready, children, timeoutMs: 30_000 });
  const page = blocks.find((b) => b.lang === 'html');
  const commands = blocks.find((b) => b.lang === 'sh');
  assert.ok(page && commands, 'the section has the page and the commands');
  const [emulatorPort, filePort, proxyPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const ports = (text: string): string => withPorts(text, { 4010: emulatorPort, 8080: proxyPort });

  folder = mkdtempSync(join(tmpdir(), 'esign-readme-'));
  writeFileSync(join(folder, 'index.html'), ports(page.text));
  // `npm install esign-elements`, for what the page loads: the package's CDN build
  await cdnBuild();
  mkdirSync(join(folder, 'node_modules/esign-elements/dist'), { recursive: true });
  cpSync(join(ROOT, 'dist/cdn'), join(folder, 'node_modules/esign-elements/dist/cdn'), { recursive: true });

  const lines = ports(commands.text)
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('npm install'));
  const emulatorLine = lines.find((line) => line.includes('esign-emulator'));
  const proxyLine = lines.find((line) => line.includes('esign-token-proxy'));
  assert.ok(emulatorLine && proxyLine, 'the commands start the emulator and the token proxy');
  const emulator = shellWords(emulatorLine);
  assert.equal(emulator.words.slice(0, 2).join(' '), 'npx esign-emulator');
  // the README's emulator runs on its default ports; here on free ones
  await start(
    'packages/emulator/src/cli.ts',
    [...emulator.words.slice(2), '--port', String(emulatorPort), '--file-port', String(filePort)],
    emulator.env,
    /listening|4010|http:\/\//i,
  );
  const proxy = shellWords(proxyLine);
  assert.equal(proxy.words.slice(0, 2).join(' '), 'npx esign-token-proxy');
  await start('packages/token-proxy/src/cli.ts', proxy.words.slice(2), proxy.env, /listening on/);
  pageUrl = `http://localhost:${proxyPort}/`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  for (const child of children) child.kill('SIGTERM');
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe("the README's static page, as written", () => {
  it('opens, connects as alice through the consent popup, and stays connected after a reload', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    await tab.goto(pageUrl);
    await signInWithPopup(tab);
    await tab.getByText('Connected as Alice Tan').waitFor();
    // the uploader and the contract list use the session: the list's embedded page opens from the service
    await tab.locator('esign-uploader').getByRole('button').first().waitFor();
    await tab
      .frameLocator('esign-contract-list iframe[src], esign-contract-list iframe:not([aria-hidden])')
      .locator('#no-contracts')
      .waitFor({ timeout: 15_000 });
    await tab.reload();
    await tab.getByText('Connected as Alice Tan').waitFor();
    const cookies = await context.cookies();
    assert.ok(
      cookies.some((c) => /^esign_[\w-]{16}$/.test(c.name) && c.httpOnly && c.sameSite === 'Strict'),
      'the session cookie is HttpOnly and SameSite=Strict',
    );
    assert.ok(!cookies.some((c) => c.name.startsWith('esign_l_')), 'the pre-login cookie is gone');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
