import type { StorybookConfig } from '@storybook/web-components-vite';

// Storybook requires a default export here; the rest of the project uses named exports only.
const config: StorybookConfig = {
  framework: { name: '@storybook/web-components-vite', options: {} },
  stories: ['../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-docs'],
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
  docs: {},
  viteFinal(config) {
    // one Lit, in its production build: dev and build resolve the same files (no "Lit is in dev mode", no
    // "Multiple versions of Lit loaded" from a development copy beside a production one)
    config.resolve ??= {};
    // esign-source: @esign-elements/shared as its TypeScript source (no build of it needed first)
    config.resolve.conditions = ['esign-source', 'module', 'browser', 'production', 'import', 'default'];
    config.resolve.dedupe = [...new Set([...(config.resolve.dedupe ?? []), 'lit', 'lit-html', 'lit-element', '@lit/reactive-element'])];
    return config;
  },
};

export default config;
