import { defineConfig } from 'vite';

// Storybook's Vite builder merges this file. The library itself is compiled by tsc (dist/) and the CDN
// file by esbuild (scripts/build-cdn.mjs), which emits a smaller bundle for Lit's legacy decorators.
export const viteConfig = defineConfig({
  server: { host: '127.0.0.1' },
  build: { target: 'es2022' },
});

// Vite reads the default export of its config file.
export default viteConfig;
