// Generates custom-elements.json (the manifest behind Storybook's autodocs and editor tooling).
// Paths in it name the shipped dist/ files (see scripts/cem-dist-paths.mjs); the editor data and typed
// tags are made from it by scripts/build-types.mjs at build time.
import { distPathsPlugin } from './scripts/cem-dist-paths.mjs';

export default {
  globs: ['src/elements/**/*.ts', 'src/esign-*.ts', 'src/index.ts'],
  exclude: ['src/emulator/**', 'src/proxy/**', 'src/core/**'],
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [distPathsPlugin()],
};
