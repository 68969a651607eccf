// `npm run build:types`: editor data and typed tags made from custom-elements.json at build time, shipped in
// the tarball (never committed: dist/ is build output). Generators: break-stuff's custom-element-*-integration.
//   dist/vscode.html-custom-data.json, dist/vscode.css-custom-data.json  VS Code (package.json `contributes`)
//   dist/web-types.json                                                   JetBrains (package.json `web-types`)
//   dist/types/{react,preact,solid,vue,svelte}.d.ts                       `esign-elements/types/<framework>`
// The manifest copy given to the generators names each esign-* event's detail type (EsignUploadStartDetail …,
// exported from the package root), so `onesign-upload-complete` handlers get a typed `event.detail`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateJetBrainsWebTypes } from 'custom-element-jet-brains-integration';
import { generateJsxTypes } from 'custom-element-jsx-integration';
import { generateSolidJsTypes } from 'custom-element-solidjs-integration';
import { generateSvelteTypes } from 'custom-element-svelte-integration';
import { generateVsCodeCustomElementData } from 'custom-element-vs-code-integration';
import { generateVuejsTypes } from 'custom-element-vuejs-integration';

const OUT = 'dist';
const TYPES = `${OUT}/types`;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
const pascal = (name) => name.replace(/(^|-)([a-z])/g, (_, __, c) => c.toUpperCase());
const detailTypes = new Set([...readFileSync('src/elements/shared/events.ts', 'utf8').matchAll(/export interface (\w+Detail)\b/g)].map((m) => m[1]));
for (const mod of manifest.modules) {
  for (const decl of mod.declarations ?? []) {
    for (const event of decl.events ?? []) {
      const detail = `${pascal(event.name)}Detail`;
      if (!event.type && detailTypes.has(detail)) event.type = { text: detail };
    }
  }
}
const quiet = { hideLogs: true };
// the element reference (docs/elements.md, generated from the manifest) ships in the package: link that version's file
const docs = () => [{ name: 'Element reference', url: `https://unpkg.com/${pkg.name}@${pkg.version}/docs/elements.md` }];

mkdirSync(TYPES, { recursive: true });
generateVsCodeCustomElementData(manifest, {
  ...quiet,
  outdir: OUT,
  htmlFileName: 'vscode.html-custom-data.json',
  cssFileName: 'vscode.css-custom-data.json',
  referencesTemplate: docs,
});
generateJetBrainsWebTypes(manifest, { ...quiet, outdir: OUT, webTypesFileName: 'web-types.json', packageJson: false, referenceTemplate: () => docs()[0] });
// d.ts files in dist/types import the classes and detail types from the package root's types
const typed = { ...quiet, outdir: TYPES, globalTypePath: '../index.js' };
generateJsxTypes(manifest, { ...typed, fileName: 'jsx-elements.d.ts' });
generateSolidJsTypes(manifest, { ...typed, fileName: 'solid-elements.d.ts' });
generateVuejsTypes(manifest, { ...typed, fileName: 'vue.d.ts' });
generateSvelteTypes(manifest, { ...typed, fileName: 'svelte-elements.d.ts' });

// the generators write the element types; these entry files hook them into each framework's JSX namespace
const augment = {
  // React: also suppressHydrationWarning, which React reads on any tag (server-rendered attributes an element changes on upgrade)
  react: `import type { CustomElements } from './jsx-elements.js';\nexport type { CustomElements, ScopedElements } from './jsx-elements.js';\n\ntype ReactElements = { [K in keyof CustomElements]: CustomElements[K] & { suppressHydrationWarning?: boolean } };\n\ndeclare module 'react' {\n  namespace JSX {\n    interface IntrinsicElements extends ReactElements {}\n  }\n}\n`,
  preact: `import type { CustomElements } from './jsx-elements.js';\nexport type { CustomElements, ScopedElements } from './jsx-elements.js';\n\ndeclare module 'preact' {\n  namespace JSX {\n    interface IntrinsicElements extends CustomElements {}\n  }\n}\n`,
  // Svelte 5: typed in svelte/elements, with both the legacy `on:esign-…` directives and the `onesign-…` event attributes
  svelte: `import type { CustomElements as Elements } from './svelte-elements.js';\nimport type { CustomElements as Jsx } from './jsx-elements.js';\nexport type { Elements as CustomElements };\n\ntype EventAttributes<T> = { [K in keyof T as K extends \`onesign-\${string}\` ? K : never]: T[K] };\ntype SvelteElements = { [K in keyof Elements]: Elements[K] & EventAttributes<Jsx[K]> };\n\ndeclare module 'svelte/elements' {\n  interface SvelteHTMLElements extends SvelteElements {}\n}\n`,
  solid: `import type { CustomElements } from './solid-elements.js';\nexport type { CustomElements, ScopedElements } from './solid-elements.js';\n\ndeclare module 'solid-js' {\n  namespace JSX {\n    interface IntrinsicElements extends CustomElements {}\n  }\n}\n`,
};
// the generators list a detail type once per element that fires it: one import of each name is valid TypeScript
for (const file of ['jsx-elements', 'solid-elements', 'vue', 'svelte-elements']) {
  const path = `${TYPES}/${file}.d.ts`;
  const text = readFileSync(path, 'utf8').replace(/import type \{([^}]*)\} from "\.\.\/index\.js";/, (_, names) => {
    const unique = [
      ...new Set(
        names
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean),
      ),
    ];
    return `import type { ${unique.join(', ')} } from '../index.js';`;
  });
  writeFileSync(path, text);
}
// Vue type-checks a template's props camelized (`:max-size` is checked as maxSize, `@esign-error` as onEsignError),
// while the generator writes the attribute names: give the Vue types the names Vue looks up
{
  const path = `${TYPES}/vue.d.ts`;
  const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  const text = readFileSync(path, 'utf8').replace(/^(\s*)"([a-z][a-z0-9-]*)"\?:/gm, (_, indent, name) => {
    const key = name.startsWith('onesign-') ? `on${pascal(name.slice(2))}` : camel(name);
    return `${indent}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : `"${key}"`}?:`;
  });
  // and the global attributes every element takes (id, slot, hidden, aria-*, …), as Vue types a plain <div>
  const withGlobals = text
    .replace('import type { DefineComponent } from "vue";', 'import type { DefineComponent, HTMLAttributes } from "vue";')
    .replace(/DefineComponent<(\w+Props)>/g, 'DefineComponent<$1 & Omit<HTMLAttributes, keyof $1>>');
  // Vue templates are typed through GlobalComponents; the generator's extra global JSX.IntrinsicElements (Vue
  // components as JSX element types) would leak into a React or Preact JSX namespace in the same project
  const templatesOnly = withGlobals.replace(/\ndeclare global \{\s*namespace JSX \{[\s\S]*?\n\}\n?/, '\n');
  if (withGlobals === text || templatesOnly === withGlobals) throw new Error('vue.d.ts: the generator output changed shape; update scripts/build-types.mjs');
  writeFileSync(path, templatesOnly);
}
for (const [name, text] of Object.entries(augment))
  writeFileSync(
    `${TYPES}/${name}.d.ts`,
    `// Generated by scripts/build-types.mjs: \`import type {} from 'esign-elements/types/${name}'\` types the esign-* tags in ${name} JSX.\n${text}`,
  );
// a runtime import of a types entry is harmless: every entry has an empty module beside it
for (const name of ['react', 'preact', 'solid', 'vue', 'svelte']) writeFileSync(`${TYPES}/${name}.js`, 'export {};\n');
console.log(`editor data in ${OUT}/ (VS Code, JetBrains) and typed tags in ${TYPES}/ (react, preact, solid, vue, svelte)`);
