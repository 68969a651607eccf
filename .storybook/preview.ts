import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
import manifest from '../custom-elements.json';
import { completeCallbackIfAny } from '../stories/demo-config.js';

setCustomElementsManifest(manifest);
// The demo's redirect-uri is this iframe page: when the consent page sends the user back here, finish the sign-in.
completeCallbackIfAny();

/**
 * The host page around the story: light (no color-scheme, as most pages) or dark (`color-scheme: dark`). `from` says
 * whether the toolbar's global or the story's own `host` parameter chose it (`data-host-from` on the root, which the
 * Storybook test reads: a story shown after another keeps the toolbar's choice).
 */
function applyHost(scheme: string, from: 'story' | 'toolbar'): void {
  const root = document.documentElement;
  root.dataset['hostFrom'] = from;
  root.style.colorScheme = scheme === 'dark' ? 'dark' : '';
  document.body.style.background = scheme === 'dark' ? 'Canvas' : '';
  document.body.style.color = scheme === 'dark' ? 'CanvasText' : '';
}

const preview: Preview = {
  tags: ['autodocs'],
  globalTypes: {
    host: {
      description: 'The host page the elements sit on: light, or dark (color-scheme: dark)',
      toolbar: {
        title: 'Host page',
        icon: 'contrast',
        items: [
          { value: 'light', title: 'Light host page' },
          { value: 'dark', title: 'Dark host page' },
        ],
        dynamicTitle: true,
      },
    },
  },
  initialGlobals: { host: 'light' },
  decorators: [
    (story, context) => {
      const own: unknown = context.parameters['host'];
      applyHost(String(own ?? context.globals['host'] ?? 'light'), own === undefined ? 'toolbar' : 'story');
      return story();
    },
  ],
  parameters: {
    controls: { expanded: true },
  },
};

export default preview;
