// Generates custom-elements.json (the manifest behind Storybook's autodocs and editor tooling).
// Paths in it name the shipped dist/ files (see scripts/cem-dist-paths.mjs); the editor data and typed
// tags are made from it by scripts/build-types.mjs at build time.
import { distPathsPlugin } from './scripts/cem-dist-paths.mjs';

const PLATFORM_CALLBACKS = /^(connected|disconnected|adopted|attributeChanged|formAssociated|formReset|formDisabled|formStateRestore)Callback$/;

/**
 * The manifest describes the public surface only, with true defaults: private and protected members and `#x` and `_x`
 * names (of every class, the controllers too), an element's statics and platform callbacks are left out (Storybook
 * would list them as controls), and a field's
 * `@default` JSDoc tag wins over its initializer (`maxSize = undefined` means "the service limit, 20 MiB").
 */
function publicSurface() {
  return {
    name: 'esign-public-surface',
    analyzePhase({ ts, node, moduleDoc }) {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const decl = moduleDoc.declarations?.find((d) => d.name === node.name.getText());
      if (!decl) return;
      for (const member of node.members) {
        if (!ts.isPropertyDeclaration(member) && !ts.isGetAccessorDeclaration(member)) continue;
        const tag = ts.getJSDocTags(member).find((t) => t.tagName.getText() === 'default');
        if (!tag) continue;
        const comment = typeof tag.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag.comment);
        const doc = decl.members?.find((m) => m.name === member.name.getText());
        if (doc && comment) doc.default = comment;
        const attribute = decl.attributes?.find((a) => a.fieldName === member.name.getText());
        if (attribute && comment) attribute.default = comment;
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const decl of mod.declarations ?? []) {
          if (decl.kind !== 'class' || !decl.members) continue;
          // every class (the controllers too) keeps its public members only; an element also drops its statics and
          // platform callbacks (a controller's statics and hostConnected & co. are its public API)
          const hidden = (m) =>
            m.privacy === 'private' ||
            m.privacy === 'protected' ||
            /^[#_]/.test(m.name) ||
            (decl.customElement && (m.static || PLATFORM_CALLBACKS.test(m.name)));
          decl.members = decl.members.filter((m) => !hidden(m));
        }
      }
    },
  };
}

/**
 * The modules in path order: the analyzer lists them in the order it finishes reading them, which varies from run to
 * run (the locales' modules moved between two runs on the same tree), and `npm run test:manifest` compares the text.
 */
function stableOrder() {
  return {
    name: 'esign-stable-order',
    packageLinkPhase({ customElementsManifest }) {
      customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
  };
}

export default {
  globs: ['src/elements/**/*.ts', 'src/esign-*.ts', 'src/index.ts'],
  exclude: ['src/core/**'],
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [publicSurface(), distPathsPlugin(), stableOrder()],
};
