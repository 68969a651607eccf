// `npm run test:types`: each framework's own type checker on a small consumer file that uses the typed tags of
// esign-elements/types/<framework> (resolved through the package's self-reference to the built dist/).
// Every file also holds a deliberately wrong prop: `@ts-expect-error` / `@vue-expect-error` make the checker fail
// if that line is NOT an error; Svelte has no such comment, so a separate file must fail on exactly that prop.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('dist/types/react.d.ts')) {
  console.error('dist/types is missing: run `npm run build` (or `npm run test:pack`, which builds) first.');
  process.exit(1);
}
const bin = (pkg, path) => `node_modules/${pkg}/${path}`;
const run = (label, args, cwd = '.') => {
  try {
    return { label, ok: true, out: execFileSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: 'pipe' }) };
  } catch (error) {
    return { label, ok: false, out: `${error.stdout ?? ''}${error.stderr ?? ''}` };
  }
};
const root = process.cwd();
const results = [
  run('React 19 JSX (tsc)', [bin('typescript', 'bin/tsc'), '-p', 'test/types/tsconfig.react.json']),
  run('Preact JSX (tsc)', [bin('typescript', 'bin/tsc'), '-p', 'test/types/tsconfig.preact.json']),
  run('Solid JSX (tsc)', [bin('typescript', 'bin/tsc'), '-p', 'test/types/tsconfig.solid.json']),
  run('Vue 3 template (vue-tsc)', [bin('vue-tsc', 'bin/vue-tsc.js'), '-p', 'test/types/vue/tsconfig.json']),
  run('Svelte 5 (svelte-check)', [`${root}/${bin('svelte-check', 'bin/svelte-check')}`, '--tsconfig', './tsconfig.json', '--output', 'machine', '--fail-on-warnings'], 'test/types/svelte-ok'),
];
const bad = run('Svelte 5 wrong prop (svelte-check must fail)', [`${root}/${bin('svelte-check', 'bin/svelte-check')}`, '--tsconfig', './tsconfig.json', '--output', 'machine'], 'test/types/svelte-bad');
const errors = bad.out.split('\n').filter((line) => / ERROR /.test(line));
// the one error: the string given to max-size (line 6), and nothing else
results.push({ label: bad.label, ok: !bad.ok && errors.length === 1 && /"App\.svelte" 6:\d+ "Type 'string' is not assignable to type 'number'/.test(errors[0] ?? ''), out: bad.out });
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.label}${r.ok ? '' : `\n${r.out}`}`);
if (results.some((r) => !r.ok)) process.exit(1);
