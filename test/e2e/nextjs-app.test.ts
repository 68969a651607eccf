/**
 * A real Next.js app (App Router, issue 47) from the packed tarballs: app/contracts.jsx is the frameworks guide's
 * docs/guides/frameworks/next-contracts.tsx with its types stripped (a 'use client' component of the four React
 * wrappers and their handlers; the wrappers' own modules start with 'use client' too: without it `next build` failed
 * with "a.useRef is not a function"), the Server Component page renders it, the layout imports
 * esign-elements/elements.css, and app/api/esign/[...path]/route.js is
 * packages/token-proxy/recipes/frameworks/next-route.ts with its types stripped. `next build` runs with no ESIGN_*
 * variable (with the old module-scope proxy it failed: "Failed to collect configuration for /api/esign/[...path]"),
 * then `next start` serves it exposed directly (no address to trust, so a forged X-Forwarded-For changes nothing);
 * then the whole flow again under `next dev` (where React reports hydration mismatches). What every app test checks
 * is in test/helpers/framework-app.ts; Next.js 16 is pinned in test/helpers/app-installs.ts. In test:all
 * (test:e2e:apps), not in npm test.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { transform } from 'esbuild';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { packageDir } from '../helpers/app-installs.js';
import { frameworkApp, type ServerOptions } from '../helpers/framework-app.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECIPE = join(ROOT, 'packages/token-proxy/recipes/frameworks/next-route.ts');
const CONTRACTS = join(ROOT, 'docs/guides/frameworks/next-contracts.tsx');

/** `next <command>` on the given port, from the app's own install. */
const next = (command: 'start' | 'dev'): ServerOptions => ({
  name: `next ${command}`,
  args: (folder, port) => [join(packageDir(folder, 'next'), 'dist/bin/next'), command, '-p', String(port), '-H', '127.0.0.1'],
});

const app = frameworkApp({
  app: 'nextjs',
  title: 'a Next.js app with the guide component and the proxy as its route handler',
  label: 'Next.js',
  files: async () => {
    const route = (await transform(readFileSync(RECIPE, 'utf8'), { loader: 'ts', format: 'esm' })).code;
    const contracts = (await transform(readFileSync(CONTRACTS, 'utf8'), { loader: 'tsx', jsx: 'preserve', format: 'esm' })).code;
    assert.match(contracts, /^"use client";/m, 'the guide component, its types stripped');
    assert.match(route, /createTokenProxy\(\(\) => tokenProxyOptionsFromEnv\(process\.env/, 'the recipe, its types stripped');
    return {
      'next.config.mjs': 'export default {};\n',
      'app/layout.jsx': `import 'esign-elements/elements.css';

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
      // a Server Component rendering the guide's client component
      'app/page.jsx': `import { Contracts } from './contracts.jsx';

export default function Page() {
  return (
    <>
      <Contracts />
      <p id="below">The page's own content.</p>
    </>
  );
}
`,
      'app/contracts.jsx': contracts,
      'app/api/esign/[...path]/route.js': route,
    };
  },
  build: ['next', 'build'],
  // NEXT_PUBLIC_* are inlined at build time: public, unlike the ESIGN_* secrets, which the build never sees
  buildEnv: (emulator) => ({ NEXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId, NEXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl }),
  server: next('start'),
  rendered: (page, { folder }) => {
    for (const wrapper of ['esign-connect', 'esign-uploader', 'esign-signing-frame', 'esign-contract-list', 'index']) {
      const module = readFileSync(join(packageDir(folder, 'esign-elements'), `dist/react/${wrapper}.js`), 'utf8');
      assert.ok(module.startsWith("'use client';"), `${wrapper}.js starts with 'use client'`);
    }
    assert.match(page, /<esign-connect[^>]*id="esign"/, 'the wrapper rendered on the server');
    assert.match(page, /<esign-uploader/);
  },
  // next start exposed directly: a forged X-Forwarded-For is not the caller's address
  flood: { headers: { 'X-Forwarded-For': '198.51.100.7' }, logs: /caller's address is unknown/ },
});

it('next dev in Chromium: the same, with no hydration message', { timeout: 400_000 }, async () => {
  const dev = await app.serve(next('dev'));
  try {
    // the dev server compiles the page on its first request: done before the browser's bounded steps start
    assert.equal((await fetch(`${dev.origin}/`)).status, 200, dev.server.output());
    await personSendsFromApp(dev.origin, 'Next.js', DEMO_LOGIN.clientSecret);
    app.printedNoSecret(dev.server);
  } finally {
    await dev.server.stop();
  }
});
