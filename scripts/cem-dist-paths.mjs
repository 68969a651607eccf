// Analyzer plugin: the manifest names the files a consumer gets (dist/**/*.js), not src/**/*.ts, which
// is not in the tarball. Package-relative `path`/`module` values and the analyzer's module-relative
// references ('./core/service/client.js' written in src/core/index.ts) both become package-relative dist paths.
import { dirname, posix } from 'node:path';

const toDist = (path) => path.replace(/^\/?src\//, 'dist/').replace(/\.ts$/, '.js');

function resolveFrom(modulePath, ref) {
  if (!ref.startsWith('./') && !ref.startsWith('../')) return toDist(ref);
  return toDist(posix.normalize(posix.join(dirname(modulePath), ref)));
}

function rewrite(node, modulePath) {
  if (Array.isArray(node)) {
    for (const item of node) rewrite(item, modulePath);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    // `module` only inside references (exports, superclass, inheritedFrom): a package name stays as it is
    if (key === 'module' && typeof value === 'string' && !('package' in node)) node[key] = resolveFrom(modulePath, value);
    else rewrite(value, modulePath);
  }
}

/** @returns {import('@custom-elements-manifest/analyzer').Plugin} */
export function distPathsPlugin() {
  return {
    name: 'esign-dist-paths',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules ?? []) {
        const source = mod.path;
        rewrite(mod.declarations, source);
        rewrite(mod.exports, source);
        mod.path = toDist(source);
      }
    },
  };
}
