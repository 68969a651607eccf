/**
 * A real Nuxt app (issue 47) from the packed tarballs, with the frameworks guide's files as they are: its
 * nuxt.config.ts (vue.compilerOptions.isCustomElement, optimizeDeps, elements.css, runtimeConfig.public), its
 * plugins/esign.client.ts, its app.vue (docs/guides/frameworks/nuxt-app.vue: the four tags and their `@esign-…`
 * handlers), and packages/token-proxy/recipes/frameworks/nuxt-route.ts as the Nitro route. `nuxt build` runs with no
 * ESIGN_* variable, then the Nitro server serves it, the tags' settings from runtimeConfig.public; what every app test
 * checks is in test/helpers/framework-app.ts. Nuxt 4.3 (test/helpers/app-installs.ts pins it). In test:all
 * (test:e2e:apps), not in npm test.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { frameworkApp } from '../helpers/framework-app.js';

frameworkApp({
  app: 'nuxt',
  title: 'a Nuxt app with the guide files and the proxy as its Nitro route',
  label: 'Nuxt',
  copies: {
    'nuxt.config.ts': 'docs/guides/frameworks/nuxt.config.ts',
    'app/plugins/esign.client.ts': 'docs/guides/frameworks/esign.client.ts',
    'app/app.vue': 'docs/guides/frameworks/nuxt-app.vue',
    'server/routes/api/esign/[...path].ts': 'packages/token-proxy/recipes/frameworks/nuxt-route.ts',
  },
  build: ['nuxt', 'build'],
  server: {
    name: 'the Nitro server',
    args: (folder) => [join(folder, '.output/server/index.mjs')],
    env: (emulator, _origin, port) => ({
      HOST: '127.0.0.1',
      PORT: String(port),
      NUXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
      NUXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
    }),
  },
  rendered: (page, { emulator }) => {
    assert.match(page, /<h1>Contracts<\/h1>/, 'rendered on the server');
    assert.ok(page.includes(`<esign-connect id="esign" client-id="${DEMO_LOGIN.clientId}" base-url="${emulator.baseUrl}"`), page.slice(0, 2000));
  },
});
