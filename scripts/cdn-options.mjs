// How the CDN build (scripts/build-cdn.mjs) and the size budgets (bench/size-measure.ts, test/node/size-budget.test.ts)
// bundle the elements, in one place so both see the same files: Rolldown, the bundler of Vite, with its minifier.
// Chunking is the bundler's: a module the first render already loaded stays in the first render's chunk even when a
// lazy part imports it too (esbuild gives such a module a chunk of its own, one more file, compressed alone).
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { rolldown } from 'rolldown';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Minifies the literal text of Lit `css` and `html` tagged templates in src/ (bundlers leave template text as written).
 * css: esbuild's CSS minifier when the template has no `${}` and no backslash; else whitespace runs become one space.
 * html: a whitespace run that holds a line break becomes one space, which renders the same (no <pre>, <textarea> or
 * white-space: pre in these templates); text of bindings is never touched.
 */
export function minifyLitTemplates() {
  return {
    name: 'minify-lit-templates',
    load: {
      filter: { id: /[\\/]src[\\/].*\.ts$/ },
      async handler(id) {
        const text = await readFile(id, 'utf8');
        if (!text.includes("from 'lit'") || !/\b(css|html)`/.test(text)) return null;
        return { code: minifyTemplatesIn(id, text), moduleType: 'ts' };
      },
    },
  };
}

/** The source with the literal parts of `css`/`html` templates (imported from 'lit') minified. Exported for checks. */
export function minifyTemplatesIn(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const tags = new Map();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || statement.moduleSpecifier.text !== 'lit') continue;
    const named = statement.importClause?.namedBindings;
    if (!named || !ts.isNamedImports(named)) continue;
    for (const element of named.elements) {
      const imported = (element.propertyName ?? element.name).text;
      if (!element.isTypeOnly && (imported === 'css' || imported === 'html')) tags.set(element.name.text, imported);
    }
  }
  const edits = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && tags.has(node.tag.text)) {
      const kind = tags.get(node.tag.text);
      const template = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(template) ? [template] : [template.head, ...template.templateSpans.map((span) => span.literal)];
      const ranges = parts.map((part) => {
        const start = part.getStart(source) + 1; // after ` or }
        const end = part.end - (part.kind === ts.SyntaxKind.TemplateHead || part.kind === ts.SyntaxKind.TemplateMiddle ? 2 : 1); // before ${ or `
        return { start, end, raw: text.slice(start, end) };
      });
      if (kind === 'css' && ranges.length === 1 && !ranges[0].raw.includes('\\')) {
        const { code } = transformSync(ranges[0].raw, { loader: 'css', minify: true, logLevel: 'silent' });
        edits.push({ ...ranges[0], replacement: code.trim() });
      } else {
        for (const range of ranges) {
          const replacement = kind === 'css' ? range.raw.replace(/\s+/g, ' ') : range.raw.replace(/[ \t]*\r?\n\s*/g, ' ');
          if (replacement !== range.raw) edits.push({ ...range, replacement });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.replacement + out.slice(edit.end);
  return out;
}

/** A page's own script, bundled as if it were a file at the root of the repository. */
const PAGE = resolve(root, '__page__.ts');

/**
 * Bundles `entries` (name -> file) or a page's script (`page`) for the browser: ESM, es2022, Lit's production build,
 * minified, split at every dynamic `import()` (or, with `singleFile`, not split at all). Returns Rolldown's output (chunks, with `imports` and `modules`).
 * @param {import('./cdn-options.d.mts').BundleOptions} options
 */
export async function bundleForBrowser({
  entries,
  page,
  external = [],
  define,
  sourcemap = false,
  legalComments = false,
  templates = true,
  chunkFileNames = '[name]-[hash].js',
  singleFile = false,
}) {
  const plugins = templates ? [minifyLitTemplates()] : [];
  if (page !== undefined) {
    plugins.unshift({
      name: 'page',
      resolveId: (id) => (id === PAGE ? id : null),
      load: (id) => (id === PAGE ? { code: page, moduleType: 'ts' } : null),
    });
  }
  const bundle = await rolldown({
    input: page !== undefined ? { page: PAGE } : entries,
    cwd: root,
    platform: 'browser',
    // Lit's production build (no dev-mode warnings)
    resolve: { conditionNames: ['production', 'browser', 'import', 'module', 'default'] },
    tsconfig: resolve(root, 'tsconfig.json'),
    transform: { target: 'es2022', ...(define ? { define } : {}) },
    external,
    plugins,
    // an entry's file may export more than the entry module does, so what the first render shares with a lazy part
    // can live in the entry's file rather than in one more file beside it (the CDN entry, a React wrapper)
    preserveEntrySignatures: 'allow-extension',
    logLevel: 'warn',
    onLog(level, log, handler) {
      // a dependency's own /*#__PURE__*/ placement or eval is its business; everything else is reported
      if (log.code === 'INVALID_ANNOTATION' || log.code === 'EVAL') return;
      handler(level, log);
    },
  });
  try {
    const { output } = await bundle.generate({
      format: 'esm',
      minify: true,
      sourcemap,
      entryFileNames: '[name].js',
      chunkFileNames,
      // one file: every dynamic import() inlined (the CDN's file for Subresource Integrity)
      ...(singleFile ? { codeSplitting: false } : {}),
      comments: { legal: legalComments, annotation: false, jsdoc: false },
    });
    return output.filter((file) => file.type === 'chunk');
  } finally {
    await bundle.close();
  }
}
