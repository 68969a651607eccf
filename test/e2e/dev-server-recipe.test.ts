/**
 * The token-proxy guide's "Beside a dev server" recipe, followed as written: its vite.config.ts and its tags in a
 * Vite app, its three commands (the emulator, the token proxy with --public-origin, Vite's own CLI), and a person
 * who opens the dev server's page and connects through the consent popup; the sign-in's callback comes back
 * through Vite's `server.proxy`. Only what a test machine needs differs: free ports instead of 4010/4020/5173
 * (swapped in the config, the page and the commands alike), the CLIs run from this checkout instead of `npx`, and
 * `npm install esign-elements` is a link to this package (its built dist/).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
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
  const blocks = sectionBlocks('docs/guides/token-proxy.md', '## Beside a dev server');
  const start = (command: string[], env: Record<string, string>, ready: RegExp): Promise<void> =>
    startNode(command, { cwd: folder, env: { ...env, NO_COLOR: '1' }, ready, children, timeoutMs: 60_000 });
  const config = blocks.find((b) => b.lang === 'ts' && b.text.startsWith('// vite.config.ts'));
  const tags = blocks.find((b) => b.lang === 'html');
  const commands = blocks.find((b) => b.lang === 'sh');
  assert.ok(config && tags && commands, 'the recipe has the Vite config, the page and the commands');
  const [emulatorPort, filePort, proxyPort, vitePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const ports = (text: string): string => withPorts(text, { 4010: emulatorPort, 4020: proxyPort, 5173: vitePort });

  // the app as create-vite lays it out, inside this checkout so `vite` resolves from its node_modules
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  folder = mkdtempSync(join(ROOT, '.tmp/dev-server-recipe-'));
  mkdirSync(join(folder, 'src'));
  mkdirSync(join(folder, 'node_modules'));
  symlinkSync(ROOT, join(folder, 'node_modules/esign-elements'), 'dir');
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  writeFileSync(join(folder, 'vite.config.ts'), ports(config.text));
  writeFileSync(
    join(folder, 'index.html'),
    `<!doctype html>\n<html lang="en">\n  <head><meta charset="UTF-8" /><title>my-app</title></head>\n  <body>\n${ports(tags.text)}\n    <script type="module" src="/src/main.ts"></script>\n  </body>\n</html>\n`,
  );
  assert.match(tags.text, /src\/main\.ts has `import 'esign-elements';`/);
  writeFileSync(join(folder, 'src/main.ts'), "import 'esign-elements';\n");

  const lines = ports(commands.text)
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter(Boolean);
  const emulator = shellWords(lines.find((l) => l.includes('esign-emulator'))!);
  const proxy = shellWords(lines.find((l) => l.includes('esign-token-proxy'))!);
  const vite = shellWords(lines.find((l) => l.includes('vite'))!);
  assert.equal(emulator.words.slice(0, 2).join(' '), 'npx esign-emulator');
  assert.equal(proxy.words.slice(0, 2).join(' '), 'npx esign-token-proxy');
  assert.deepEqual(vite.words, ['npx', 'vite']);
  assert.ok(proxy.words.includes('--public-origin'), 'the proxy is told the dev server origin');
  const tsx = ['--import', import.meta.resolve('tsx')];
  await start(
    [...tsx, join(ROOT, 'packages/emulator/src/cli.ts'), ...emulator.words.slice(2), '--port', String(emulatorPort), '--file-port', String(filePort)],
    emulator.env,
    /Spaces:/,
  );
  await start([...tsx, join(ROOT, 'packages/token-proxy/src/cli.ts'), ...proxy.words.slice(2)], proxy.env, /listening on/);
  await start([join(ROOT, 'node_modules/vite/bin/vite.js')], vite.env, /ready in/);
  pageUrl = `http://localhost:${vitePort}/`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  for (const child of children) child.kill('SIGTERM');
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe("the token-proxy guide's Vite recipe, as written", () => {
  it('connects as alice through the consent popup on the dev server, and stays connected after a reload', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    // the events a page that reports them would see: one outcome per sign-in
    await tab.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      for (const type of ['esign-connected', 'esign-error']) document.addEventListener(type, () => seen.push(type));
    });
    await tab.goto(pageUrl);
    await tab.getByRole('button', { name: 'Connect e-signature account' }).waitFor({ timeout: 30_000 });
    await signInWithPopup(tab);
    await tab.getByText('Connected as Alice Tan').waitFor();
    assert.deepEqual(await tab.evaluate(() => (window as unknown as { seen: string[] }).seen), ['esign-connected']);
    await tab.locator('esign-uploader').getByRole('button').first().waitFor();
    await tab.reload();
    await tab.getByText('Connected as Alice Tan').waitFor({ timeout: 30_000 });
    const cookies = await context.cookies(pageUrl);
    assert.ok(
      cookies.some((c) => /^esign_[\w-]{16}$/.test(c.name) && c.httpOnly),
      'the session cookie is on the dev server origin',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
