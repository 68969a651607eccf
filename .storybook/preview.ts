import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
import manifest from '../custom-elements.json';
import { completeCallbackIfAny } from '../stories/demo-config.js';

setCustomElementsManifest(manifest);
// The demo's redirect-uri is this iframe page: when the consent page sends the user back here, finish the sign-in.
completeCallbackIfAny();

const preview: Preview = {
  tags: ['autodocs'],
  parameters: {
    controls: { expanded: true },
  },
};

export default preview;
