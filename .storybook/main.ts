import type { StorybookConfig } from '@storybook/web-components-vite';

// Storybook requires a default export here; the rest of the project uses named exports only.
const config: StorybookConfig = {
  framework: { name: '@storybook/web-components-vite', options: {} },
  stories: ['../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-docs'],
  core: { disableTelemetry: true, disableWhatsNewNotifications: true },
  docs: {},
};

export default config;
