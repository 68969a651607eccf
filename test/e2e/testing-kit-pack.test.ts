/**
 * The README's test-kit example as an integrator runs it: a fresh folder, `npm install esign-elements
 * @playwright/test` from the packed tarball (the registry's packages through npm's cache, `--prefer-offline`),
 * the README's files written as they are, type-checked with tsc against the package's published types, and
 * `npx playwright test` with CHROME_PATH pointing at the machine's Chromium (no browser is downloaded).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { packedTarball } from '../helpers/built.js';
import { CHROMIUM_PATH } from '../helpers/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
let folder: string;

const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });

/** The code blocks of the README section `heading` whose first line names a file (`// tests/x.spec.ts`). */
function readmeFiles(heading: string): Array<{ path: string; text: string }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the README has the section "${heading}"`);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```ts\n\/\/ ([\w./-]+)\n([\s\S]*?)```/g)].map((m) => ({ path: m[1]!, text: `// ${m[1]}\n${m[2]}` }));
}

/** The version of a package this checkout installed (so the consumer's install comes from npm's cache). */
const installed = (name: string): string => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'esign-kit-pack-'));
  // `npm pack`, or the tarball `npm test` packed once (test/helpers/built.ts)
  const tarball = packedTarball(work);
  folder = join(work, 'my-app');
  mkdirSync(folder);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'my-app', version: '1.0.0', private: true, type: 'module' }));
  npm(
    [
      'install',
      tarball,
      `@playwright/test@${installed('@playwright/test')}`,
      `typescript@${installed('typescript')}`,
      `@types/node@${installed('@types/node')}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
    ],
    folder,
  );
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's test-kit example, from the packed tarball", () => {
  it('type-checks against the published types and passes under npx playwright test', () => {
    const files = readmeFiles('## Test your integration');
    assert.deepEqual(files.map((f) => f.path).sort(), ['playwright.config.ts', 'tests/contracts.spec.ts']);
    for (const file of files) {
      mkdirSync(dirname(join(folder, file.path)), { recursive: true });
      writeFileSync(join(folder, file.path), file.text);
    }
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          lib: ['ES2023', 'DOM'],
        },
        include: ['*.ts', 'tests'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(folder, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: folder, encoding: 'utf8' });
    assert.equal(tsc.status, 0, `tsc: ${tsc.stdout}${tsc.stderr}`);

    const run = spawnSync(process.execPath, [join(folder, 'node_modules/@playwright/test/cli.js'), 'test', '--reporter=line'], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, CHROME_PATH: CHROMIUM_PATH, CI: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      timeout: 180_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, /1 passed/, output);
  });
});
