/**
 * Every code block of the README and the guides (docs/guides/*.md, docs/emulator.md) is checked, by its language:
 * TypeScript/JavaScript type-checked against the package's published types (self-reference through its exports, so
 * `npm run build:dist` first; `npm test` packs, and so builds, before this), quotes of checked files (`<!-- excerpt:
 * path -->`, for Vue and Svelte, whose files `npm run test:types` checks) found line by line in them, HTML and CSS
 * against custom-elements.json (every tag, attribute, part and custom property exists), JSON parsed (a seed by the
 * emulator's own parser, editor settings against package.json), node:test examples run, shell commands run with their flags parsed by the
 * CLIs (`--print-csp`, `--help`: nothing starts), and the emulator's curl lines sent to a running emulator.
 * The frameworks guide's Next.js component (docs/guides/frameworks/next-contracts.tsx, quoted; its app test strips the
 * types) is type-checked with the blocks. The blocks a test runs as a whole are also run there: the README's static
 * page (test/e2e/readme-static-page.test.ts) and test-kit example (test/e2e/testing-kit-pack.test.ts), the token-proxy guide's Vite recipe
 * (test/e2e/dev-server-recipe.test.ts), and the README's pinned CDN snippet and its integrity commands
 * (test/e2e/cdn-integrity.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createEmulator, parseSeedInput, type RunningEmulator } from '@esign-elements/emulator';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  'docs/emulator.md',
  // each package's README: what it is, install, one example
  ...['shared', 'token-proxy', 'emulator', 'testing'].map((p) => `packages/${p}/README.md`),
  ...readdirSync(join(ROOT, 'docs/guides'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/guides/${f}`),
];
const WORK = join(ROOT, '.tmp/docs-code');

interface Block {
  doc: string;
  line: number;
  lang: string;
  text: string;
  excerpt: string | undefined;
}

function blocks(doc: string): Block[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const found: Block[] = [];
  const pattern = /(?:<!-- excerpt: ([^ ]+) -->\n)?```(\w*)\n([\s\S]*?)```/g;
  for (const match of text.matchAll(pattern)) {
    found.push({ doc, line: text.slice(0, match.index).split('\n').length, lang: match[2]!, text: match[3]!, excerpt: match[1] });
  }
  return found;
}

const all = DOCS.flatMap(blocks);
const where = (b: Block): string => `${b.doc}:${b.line}`;

type Declaration = { tagName?: string; attributes?: Array<{ name: string }>; cssParts?: Array<{ name: string }>; cssProperties?: Array<{ name: string }> };
const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8')) as { modules: Array<{ declarations?: Declaration[] }> };
const elements = new Map(
  manifest.modules
    .flatMap((m) => m.declarations ?? [])
    .filter((d) => d.tagName)
    .map((d) => [d.tagName!, d]),
);

let emulator: RunningEmulator;
before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await emulator?.close();
  rmSync(WORK, { recursive: true, force: true });
});

const cli = (path: string, args: string[], env: Record<string, string>) => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ESIGN_')));
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, path), ...args], { encoding: 'utf8', env: { ...clean, ...env }, timeout: 20_000 });
};

/** A shell block's commands: continuation lines joined, comments and `&` dropped, `$(…)` a placeholder. */
function commands(text: string): Array<{ env: Record<string, string>; words: string[] }> {
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) =>
      line
        .replace(/(^|\s+)#.*$/, '')
        .replace(/\s*&$/, '')
        .trim(),
    )
    .filter(Boolean)
    .flatMap((line) => line.split(/\s+&&\s+/))
    .map((line) => {
      const words = line.replace(/\$\([^)]*\)/g, 'PLACEHOLDER').split(/\s+/);
      const env: Record<string, string> = {};
      while (words[0] && /^[A-Z_]+=/.test(words[0])) {
        const [name, ...value] = words.shift()!.split('=');
        env[name!] = value.join('=');
      }
      return { env, words };
    });
}

describe('the code blocks of the README and the guides', () => {
  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const doc of [
      ...DOCS,
      'CONTRIBUTING.md',
      'docs/elements.md',
      'bench/NOTES.md',
      'bench/SIZE-NOTES.md',
      'docs/bundle-size.md',
      'docs/proxy.md',
      'docs/uploader.md',
    ]) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = join(ROOT, dirname(doc), target!.split('#')[0]!);
        if (!existsSync(path)) broken.push(`${doc}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('are all of a language this test checks', () => {
    assert.ok(all.length > 20, `found ${all.length} blocks`);
    const unchecked = all.filter(
      (b) => !['ts', 'tsx', 'js', 'html', 'css', 'json', 'sh', 'vue', 'svelte'].includes(b.lang) || (['vue', 'svelte'].includes(b.lang) && !b.excerpt),
    );
    assert.deepEqual(unchecked.map(where), [], 'every block has a language, and Vue and Svelte blocks quote a checked file');
  });

  it('TypeScript and JavaScript: type-checked against the package', () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    const files = new Map<string, Block>();
    for (const [i, b] of all.filter((x) => ['ts', 'tsx', 'js'].includes(x.lang) && !x.excerpt).entries()) {
      const name = `${b.doc.replace(/\W+/g, '-')}-${i}.${b.lang}`;
      files.set(name, b);
      writeFileSync(join(WORK, name), b.text);
    }
    // the guide's Next.js component, whose types the Next.js app test strips (the Angular, Nuxt and SvelteKit files
    // are checked by their frameworks' builds there)
    copyFileSync(join(ROOT, 'docs/guides/frameworks/next-contracts.tsx'), join(WORK, 'next-contracts.tsx'));
    writeFileSync(
      join(WORK, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          jsx: 'react-jsx',
          allowJs: true,
          checkJs: true,
          moduleDetection: 'force',
          types: ['node', 'mocha'],
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        },
        include: ['*.ts', '*.tsx', '*.js'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', WORK], { encoding: 'utf8' });
    const report = `${tsc.stdout}${tsc.stderr}`.replace(/([\w-]+\.(?:tsx?|js))\((\d+),\d+\)/g, (whole, name: string, line: string) => {
      const b = files.get(name);
      return b ? `${b.doc}:${b.line + Number(line)}` : whole;
    });
    assert.ok(files.size >= 8, `${files.size} blocks`);
    assert.equal(tsc.status, 0, report);
  });

  it('node:test examples (a block that starts with `// test/….test.ts` and imports node:test) pass when run', () => {
    const examples = all.filter((x) => x.lang === 'ts' && /^\/\/ test\/[\w./-]+\.test\.ts\n/.test(x.text) && x.text.includes("from 'node:test'"));
    assert.ok(examples.length >= 1, 'the test-kit guide has a node:test example');
    for (const [i, b] of examples.entries()) {
      // inside the package (WORK is under it), so `esign-elements/…` resolves to its own built files
      const file = join(WORK, `run-${i}.test.ts`);
      writeFileSync(file, b.text);
      // not as a child of this test run (NODE_TEST_CONTEXT would make it report to this run, not to its stdout)
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', file], { encoding: 'utf8', timeout: 60_000, env });
      assert.equal(run.status, 0, `${where(b)}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, /# pass [1-9]/, `${where(b)}: ${run.stdout}`);
    }
  });

  it('excerpts: every line is in the checked file, in order', () => {
    for (const b of all.filter((x) => x.excerpt)) {
      const file = readFileSync(join(ROOT, b.excerpt!), 'utf8').split('\n');
      let at = 0;
      for (const line of b.text.split('\n').filter((l) => l.trim())) {
        const found = file.indexOf(line, at);
        assert.ok(found >= 0, `${where(b)}: "${line}" is not in ${b.excerpt} (after line ${at})`);
        at = found + 1;
      }
    }
  });

  it('HTML and CSS: every esign tag, attribute, part and custom property exists', () => {
    for (const b of all.filter((x) => x.lang === 'html')) {
      for (const [, tag, attributes] of b.text.matchAll(/<(esign-[\w-]+)([^>]*)>/g)) {
        const element = elements.get(tag!);
        assert.ok(element, `${where(b)}: <${tag}> is an element`);
        for (const [, name] of attributes!.matchAll(/([\w-]+)(?:=|\s|$)/g)) {
          if (['id', 'class', 'style', 'lang', 'dir', 'slot', 'hidden'].includes(name!)) continue;
          assert.ok(
            element.attributes?.some((a) => a.name === name),
            `${where(b)}: <${tag}> has the attribute ${name}`,
          );
        }
      }
    }
    const parts = new Set([...elements.values()].flatMap((e) => (e.cssParts ?? []).map((p) => p.name)));
    const properties = new Set([...elements.values()].flatMap((e) => (e.cssProperties ?? []).map((p) => p.name)));
    for (const b of all.filter((x) => x.lang === 'css')) {
      for (const [, part] of b.text.matchAll(/::part\(([\w-]+)\)/g)) assert.ok(parts.has(part!), `${where(b)}: the part ${part} exists`);
      for (const [, property] of b.text.matchAll(/(--esign-[\w-]+)/g))
        assert.ok(properties.has(property!), `${where(b)}: the custom property ${property} exists`);
    }
  });

  it('JSON: parsed; a seed by the emulator, editor settings against package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const b of all.filter((x) => x.lang === 'json')) {
      const value = JSON.parse(b.text) as Record<string, unknown>;
      if ('html.customData' in value) {
        for (const path of [...(value['html.customData'] as string[]), ...(value['css.customData'] as string[])]) {
          const shipped = path.replace('./node_modules/esign-elements/', './');
          assert.ok([...pkg.contributes.html.customData, ...pkg.contributes.css.customData].includes(shipped), `${where(b)}: ${path} is shipped`);
        }
      } else {
        assert.equal(typeof parseSeedInput(value), 'object', `${where(b)}: a seed the emulator reads`);
      }
    }
  });

  it('shell: npm scripts exist, the CLIs parse every flag, the curl lines reach the emulator', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    let ran = 0;
    for (const b of all.filter((x) => x.lang === 'sh')) {
      for (const { env, words } of commands(b.text)) {
        const [program, first, ...rest] = words;
        if (program === 'npm' && (first === 'install' || first === 'test' || first === 'start')) {
          if (first !== 'install') assert.ok(pkg.scripts[first!], `${where(b)}: npm ${first} is a script`);
          continue;
        }
        if (program === 'npm' && first === 'run' && rest.length === 1) {
          assert.ok(pkg.scripts[rest[0]!], `${where(b)}: npm run ${rest[0]} is a script`);
          continue;
        }
        if (program === 'npx' && first === 'playwright') continue; // test/e2e/testing-kit-pack.test.ts runs it
        if (program === 'npx' && first === 'vite' && rest.length === 0) continue; // test/e2e/dev-server-recipe.test.ts runs it
        if (program === 'npx' && first === 'esign-token-proxy') {
          const args = rest.includes('--generate-cookie-key') ? rest : [...rest, '--print-csp'];
          const result = cli('packages/token-proxy/src/cli.ts', args, env);
          assert.equal(result.status, 0, `${where(b)}: esign-token-proxy ${args.join(' ')}: ${result.stderr}`);
          ran++;
          continue;
        }
        if (program === 'npx' && first === 'esign-emulator') {
          const result = cli('packages/emulator/src/cli.ts', [...rest, '--help'], env);
          assert.equal(result.status, 0, `${where(b)}: esign-emulator ${rest.join(' ')}: ${result.stderr}`);
          ran++;
          continue;
        }
        // the README's integrity lines for the CDN file: test/e2e/cdn-integrity.test.ts runs them against its own build
        if (program === 'curl' && words.some((w) => w.includes('/dist/cdn/'))) continue;
        if (program === 'curl') {
          const method = words[words.indexOf('-X') + 1] ?? 'GET';
          const url = words.find((w) => w.includes('/__emulator/'))!.replace(/^(https?:\/\/)?localhost:4010/, emulator.baseUrl);
          const body = b.text.match(new RegExp(`${url.split('/__emulator/')[1]} -d '([^']*)'`))?.[1];
          const answer = await fetch(url, { method, ...(body ? { body } : {}) });
          assert.equal(answer.status, 200, `${where(b)}: ${words.join(' ')} answered ${answer.status}: ${await answer.text()}`);
          ran++;
          continue;
        }
        assert.fail(`${where(b)}: no check for the command "${words.join(' ')}"`);
      }
    }
    assert.ok(ran >= 6, `${ran} commands ran`);
  });
});
