// Generates custom-elements.json (the manifest behind Storybook's autodocs and editor tooling).
export default {
  globs: ['src/elements/**/*.ts', 'src/esign-*.ts', 'src/index.ts'],
  exclude: ['src/emulator/**', 'src/proxy/**', 'src/core/**'],
  litelement: true,
  dependencies: false,
  packagejson: false,
};
