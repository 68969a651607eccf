/**
 * A real Next.js app (App Router, issue 47) from the packed tarballs: app/contracts.jsx is the frameworks guide's
 * docs/guides/frameworks/next-contracts.tsx with its types stripped (a 'use client' component of the four React
 * wrappers and their handlers; the wrappers' own modules start with 'use client' too: without it `next build` failed
 * with "a.useRef is not a function"), the Server Component page renders it, the layout imports
 * esign-elements/elements.css, and app/api/esign/[...path]/route.js is
 * packages/token-proxy/recipes/frameworks/next-route.ts with its types stripped. `next build` runs with no ESIGN_*
 * variable at all (with the old module-scope proxy it failed: "Failed to collect configuration for
 * /api/esign/[...path]"), then `next start` serves it exposed directly (no address to trust) against the emulator: the
 * page comes with the tags and the stylesheet, one caller flooding the sign-in does not lock another person out, and
 * in Chromium a person connects, uploads, sends and finds the envelope through the component's handlers, with no
 * esign-error and no hydration message; then the same under `next dev` (where React reports hydration mismatches).
 * Next.js 16 pinned here (from the registry, not the root lockfile), React as the root has it. In test:all
 * (test:e2e), not in npm test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { transform } from 'esbuild';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { freePort } from '@esign-elements/test-support/ports';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { packPackages } from '../helpers/pack.js';
import { proxyEnv, removeInBackground, startAppServer, type AppServer, withoutSecrets, writeFiles } from '../helpers/framework-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECIPE = join(ROOT, 'packages/token-proxy/recipes/frameworks/next-route.ts');
const CONTRACTS = join(ROOT, 'docs/guides/frameworks/next-contracts.tsx');
const installed = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const NEXT = ['next@16.4.6', `react@${installed('react')}`, `react-dom@${installed('react-dom')}`];
const COOKIE_KEY = Buffer.alloc(32, 9).toString('base64url');

let emulator: Awaited<ReturnType<typeof createEmulator>>;
let work: string;
let server: AppServer | undefined;
let origin: string;
let app: string;

/** The environment of the install and the build: no secrets, no telemetry, no update notice. */
const buildEnv = (): NodeJS.ProcessEnv => ({ ...withoutSecrets(), NEXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false' });

before(
  async () => {
    emulator = await createEmulator({ port: 0, filePort: 0 });
    work = mkdtempSync(join(tmpdir(), 'esign-nextjs-'));
    const tarballs = packPackages(work, ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements']);
    app = join(work, 'app');
    const route = (await transform(readFileSync(RECIPE, 'utf8'), { loader: 'ts', format: 'esm' })).code;
    const contracts = (await transform(readFileSync(CONTRACTS, 'utf8'), { loader: 'tsx', jsx: 'preserve', format: 'esm' })).code;
    assert.match(contracts, /^"use client";/m, 'the guide component, its types stripped');
    assert.match(route, /createTokenProxy\(\(\) => tokenProxyOptionsFromEnv\(process\.env/, 'the recipe, its types stripped');
    writeFiles(app, {
      'package.json': JSON.stringify({ name: 'next-app', private: true, version: '0.0.0' }),
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
    });
    // NEXT_PUBLIC_* are inlined at build time: public, unlike the ESIGN_* secrets, which the build never sees
    const env = { ...buildEnv(), NEXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId, NEXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl };
    await run('npm', ['install', ...Object.values(tarballs), ...NEXT, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env, timeout: 400_000 });
    // the production build, with no secret anywhere in its environment
    await run('npm', ['exec', '--offline', '--', 'next', 'build'], { cwd: app, env, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 });

    const port = await freePort();
    origin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${origin}/api/esign/callback`);
    server = await startAppServer('next start', [join(app, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      origin,
      env: { ...env, ...proxyEnv(emulator.baseUrl, origin, COOKIE_KEY) },
    });
  },
  { timeout: 900_000 },
);

after(async () => {
  await server?.stop();
  await emulator?.close();
  if (work) removeInBackground(work);
});

describe('a Next.js app with the guide component and the proxy as its route handler', () => {
  it('renders the tags with the stylesheet; the wrappers are client modules', async () => {
    for (const wrapper of ['esign-connect', 'esign-uploader', 'esign-signing-frame', 'esign-contract-list', 'index']) {
      const module = readFileSync(join(app, `node_modules/esign-elements/dist/react/${wrapper}.js`), 'utf8');
      assert.ok(module.startsWith("'use client';"), `${wrapper}.js starts with 'use client'`);
    }
    const page = await (await fetch(`${origin}/`)).text();
    assert.match(page, /<esign-connect[^>]*id="esign"/, 'the wrapper rendered on the server');
    assert.match(page, /<esign-uploader/);
    const sheets = [...page.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!);
    const css = (await Promise.all(sheets.map(async (href) => (await fetch(new URL(href, origin))).text()))).join('\n');
    assert.match(css, /esign-connect:not\(:defined\)/, 'elements.css is in the server HTML');
  });

  it('next start exposed directly: one caller floods the sign-in, another person then connects', async () => {
    await floodSignIn(`${origin}/api/esign`, { count: 10, origin, headers: { 'X-Forwarded-For': '198.51.100.7' } });
    await personConnects(`${origin}/api/esign`, {}, origin);
    assert.match(server!.output(), /caller's address is unknown/, 'the proxy says so in the log');
    assert.ok(!server!.output().includes(DEMO_LOGIN.clientSecret) && !server!.output().includes(COOKIE_KEY), 'nothing secret printed');
  });

  it(
    'next start in Chromium: a person connects, uploads, sends and finds the envelope; the handlers fire; no hydration message',
    { timeout: 180_000 },
    async () => {
      await personSendsFromApp(origin, 'Next.js', DEMO_LOGIN.clientSecret);
    },
  );

  it('next dev in Chromium: the same, with no hydration message', { timeout: 400_000 }, async () => {
    const port = await freePort();
    const devOrigin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${devOrigin}/api/esign/callback`);
    const dev = await startAppServer('next dev', [join(app, 'node_modules/next/dist/bin/next'), 'dev', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      origin: devOrigin,
      env: {
        ...buildEnv(),
        NEXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
        NEXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
        ...proxyEnv(emulator.baseUrl, devOrigin, COOKIE_KEY),
      },
    });
    try {
      // the dev server compiles the page on its first request: done before the browser's bounded steps start
      assert.equal((await fetch(`${devOrigin}/`)).status, 200, dev.output());
      await personSendsFromApp(devOrigin, 'Next.js', DEMO_LOGIN.clientSecret);
    } finally {
      await dev.stop();
    }
  });
});
