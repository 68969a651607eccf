// The esbuild options of the CDN bundle, shared by scripts/build-cdn.mjs and bench/size.bench.ts so both measure the same file.
import { readFile } from 'node:fs/promises';
import { transformSync } from 'esbuild';
import ts from 'typescript';

/**
 * Minifies the literal text of Lit `css` and `html` tagged templates in src/ (esbuild leaves template text as written).
 * css: esbuild's CSS minifier when the template has no `${}` and no backslash; else whitespace runs become one space.
 * html: a whitespace run that holds a line break becomes one space, which renders the same (no <pre>, <textarea> or
 * white-space: pre in these templates); text of bindings is never touched.
 */
export function minifyLitTemplates() {
  return {
    name: 'minify-lit-templates',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        if (!text.includes("from 'lit'") || !/\b(css|html)`/.test(text)) return undefined;
        return { contents: minifyTemplatesIn(path, text), loader: 'ts' };
      });
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

/** Everything but the entry point and the output. */
export const cdnOptions = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  // the licences of the inlined packages go to <outfile>.LEGAL.txt beside the bundle, linked from one comment
  legalComments: 'linked',
  // Lit's production build (no dev-mode warnings)
  conditions: ['production'],
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
  plugins: [minifyLitTemplates()],
};
