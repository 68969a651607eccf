/**
 * A real Next.js app (App Router, issue 47) from the packed tarballs: a Server Component renders the React wrappers
 * (their modules start with 'use client'; without it `next build` failed with "a.useRef is not a function"), the
 * layout imports esign-elements/elements.css, and app/api/esign/[...path]/route.js is
 * packages/token-proxy/recipes/frameworks/next-route.ts with its types stripped. `next build` runs with no ESIGN_*
 * variable at all (with the old module-scope proxy it failed: "Failed to collect configuration for
 * /api/esign/[...path]"), then `next start` serves it exposed directly (no address to trust) against the emulator: the
 * page comes with the tags and the stylesheet, and one caller flooding the sign-in does not lock another person out.
 * Next.js 16 pinned here (from the registry, not the root lockfile), React as the root has it. In test:all
 * (test:e2e), not in npm test: install and build take about a minute.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
import { packPackages } from '../helpers/pack.js';
import { proxyEnv, startAppServer, withoutSecrets, writeFiles, type AppServer } from '../helpers/framework-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECIPE = join(ROOT, 'packages/token-proxy/recipes/frameworks/next-route.ts');
const installed = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const NEXT = ['next@16.4.6', `react@${installed('react')}`, `react-dom@${installed('react-dom')}`];
const COOKIE_KEY = Buffer.alloc(32, 9).toString('base64url');

let emulator: Awaited<ReturnType<typeof createEmulator>>;
let work: string;
let server: AppServer | undefined;
let origin: string;

/** The environment of the install and the build: no secrets, no telemetry, no update notice. */
const buildEnv = (): NodeJS.ProcessEnv => ({ ...withoutSecrets(), NEXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false' });

before(
  async () => {
    emulator = await createEmulator({ port: 0, filePort: 0 });
    work = mkdtempSync(join(tmpdir(), 'esign-nextjs-'));
    const tarballs = packPackages(work, ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements']);
    const app = join(work, 'app');
    const route = (await transform(readFileSync(RECIPE, 'utf8'), { loader: 'ts', format: 'esm' })).code;
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
      // a Server Component rendering the wrappers
      'app/page.jsx': `import { EsignConnect } from 'esign-elements/react/esign-connect.js';
import { EsignUploader } from 'esign-elements/react/esign-uploader.js';

export const dynamic = 'force-dynamic';

export default function Page() {
  return (
    <main>
      <EsignConnect id="esign" clientId={process.env.NEXT_PUBLIC_ESIGN_CLIENT_ID} baseUrl={process.env.NEXT_PUBLIC_ESIGN_BASE_URL} tokenEndpoint="/api/esign/token">
        <EsignUploader multiple />
      </EsignConnect>
      <p id="below">The page's own content.</p>
    </main>
  );
}
`,
      'app/api/esign/[...path]/route.js': route,
    });
    const env = buildEnv();
    await run('npm', ['install', ...Object.values(tarballs), ...NEXT, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env, timeout: 400_000 });
    // the production build, with no secret anywhere in its environment
    await run('npm', ['exec', '--offline', '--', 'next', 'build'], { cwd: app, env, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 });

    const port = await freePort();
    origin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${origin}/api/esign/callback`);
    server = await startAppServer('next start', [join(app, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: app,
      origin,
      env: {
        ...env,
        NEXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
        NEXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
        ...proxyEnv(emulator.baseUrl, origin, COOKIE_KEY),
      },
    });
  },
  { timeout: 900_000 },
);

after(async () => {
  server?.stop();
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a Next.js app with the wrappers in a Server Component and the proxy as its route handler', () => {
  it('renders the tags with the stylesheet', async () => {
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
});
