/**
 * A real SvelteKit app (issue 47), laid out as the frameworks guide says (elements.css in +layout.svelte, the tags
 * defined by its hooks.client.ts, the guide's docs/guides/frameworks/sveltekit-page.svelte as its +page.svelte: the
 * four tags, their settings from $env/dynamic/public and their `onesign-…` handlers), with the token proxy of
 * packages/token-proxy/recipes/frameworks/sveltekit-server.ts as its `+server.ts`, from the packed tarballs with
 * SvelteKit 2 and adapter-node (test/helpers/app-installs.ts pins them). `vite build` runs with no ESIGN_* variable,
 * then `node build` serves it; what every app test checks is in test/helpers/framework-app.ts. In test:all
 * (test:e2e:apps), not in npm test.
 */
import assert from 'node:assert/strict';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { frameworkApp } from '../helpers/framework-app.js';

frameworkApp({
  app: 'sveltekit',
  title: 'a SvelteKit app with the token proxy as its +server.ts',
  label: 'SvelteKit',
  files: () => ({
    'svelte.config.js': "import adapter from '@sveltejs/adapter-node';\n\nexport default { kit: { adapter: adapter() } };\n",
    'vite.config.js':
      "import { sveltekit } from '@sveltejs/kit/vite';\nimport { defineConfig } from 'vite';\n\nexport default defineConfig({ plugins: [sveltekit()] });\n",
    'src/app.html': '<!doctype html>\n<html lang="en"><head><meta charset="utf-8" />%sveltekit.head%</head><body><div>%sveltekit.body%</div></body></html>\n',
    // the guide's placement: the stylesheet in the layout (so in the server's HTML), the tags defined by hooks.client.ts
    'src/routes/+layout.svelte': "<script>\n  import 'esign-elements/elements.css';\n  let { children } = $props();\n</script>\n\n{@render children()}\n",
  }),
  copies: {
    'src/hooks.client.ts': 'docs/guides/frameworks/hooks.client.ts',
    'src/routes/+page.svelte': 'docs/guides/frameworks/sveltekit-page.svelte',
    'src/routes/api/esign/[...path]/+server.ts': 'packages/token-proxy/recipes/frameworks/sveltekit-server.ts',
  },
  build: ['vite', 'build', '--logLevel', 'warn'],
  server: {
    name: 'node build',
    args: () => ['build'],
    env: (emulator, origin, port) => ({
      HOST: '127.0.0.1',
      PORT: String(port),
      // adapter-node's own origin (it assumes https otherwise, and its CSRF check then refuses the token route's POSTs)
      ORIGIN: origin,
      // the page's public settings, read at run time ($env/dynamic/public)
      PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
    }),
  },
  rendered: (page, { emulator }) => {
    assert.match(page, /<h1>Contracts<\/h1>/, 'rendered on the server');
    assert.match(page, new RegExp(`<esign-connect id="esign" client-id="${DEMO_LOGIN.clientId}" base-url="${emulator.baseUrl}"`));
  },
});
