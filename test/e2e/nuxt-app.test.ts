/**
 * A real Nuxt app (issue 47) from the packed tarballs, with the frameworks guide's files as they are: its
 * nuxt.config.ts (vue.compilerOptions.isCustomElement, optimizeDeps, elements.css, runtimeConfig.public), its
 * plugins/esign.client.ts, its app.vue (docs/guides/frameworks/nuxt-app.vue: the four tags and their `@esign-…`
 * handlers), and packages/token-proxy/recipes/frameworks/nuxt-route.ts as the Nitro route. `nuxt build` runs with no
 * ESIGN_* variable at all, then the Nitro server serves it against the emulator: the page comes with the tags (their
 * settings from runtimeConfig.public) and the stylesheet, one caller flooding the sign-in does not lock another
 * person out, and in Chromium a person connects, uploads, sends and finds the envelope through the page's handlers,
 * with no esign-error and no hydration message. Nuxt 4.3 pinned here (4.4 needs Node 22; from the registry, not the root
 * lockfile). In test:all (test:e2e), not in npm test: the install takes about two minutes, the build 40 s.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { freePort } from '@esign-elements/test-support/ports';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { packPackages } from '../helpers/pack.js';
import { proxyEnv, removeInBackground, startAppServer, type AppServer, withoutSecrets } from '../helpers/framework-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NUXT = 'nuxt@4.3.0';
const COOKIE_KEY = Buffer.alloc(32, 5).toString('base64url');

let emulator: Awaited<ReturnType<typeof createEmulator>>;
let work: string;
let server: AppServer | undefined;
let origin: string;

/** The environment of the install and the build: no secrets, no telemetry, no update notice. */
const buildEnv = (): NodeJS.ProcessEnv => ({ ...withoutSecrets(), NUXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false' });

function copyInto(folder: string, files: Record<string, string>): void {
  for (const [path, from] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    copyFileSync(join(ROOT, from), join(folder, path));
  }
}

before(
  async () => {
    emulator = await createEmulator({ port: 0, filePort: 0 });
    work = mkdtempSync(join(tmpdir(), 'esign-nuxt-'));
    const tarballs = packPackages(work, ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements']);
    const app = join(work, 'app');
    copyInto(app, {
      'nuxt.config.ts': 'docs/guides/frameworks/nuxt.config.ts',
      'app/plugins/esign.client.ts': 'docs/guides/frameworks/esign.client.ts',
      'app/app.vue': 'docs/guides/frameworks/nuxt-app.vue',
      'server/routes/api/esign/[...path].ts': 'packages/token-proxy/recipes/frameworks/nuxt-route.ts',
    });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'nuxt-app', private: true, version: '0.0.0', type: 'module' }));
    const env = buildEnv();
    await run('npm', ['install', ...Object.values(tarballs), NUXT, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env, timeout: 600_000 });
    // the production build, with no secret anywhere in its environment
    await run('npm', ['exec', '--offline', '--', 'nuxt', 'build'], { cwd: app, env, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 });

    const port = await freePort();
    origin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${origin}/api/esign/callback`);
    server = await startAppServer('the Nitro server', [join(app, '.output/server/index.mjs')], {
      cwd: app,
      origin,
      env: {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        NUXT_PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
        NUXT_PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
        ...proxyEnv(emulator.baseUrl, origin, COOKIE_KEY),
      },
    });
  },
  { timeout: 1_200_000 },
);

after(async () => {
  await server?.stop();
  await emulator?.close();
  if (work) removeInBackground(work);
});

describe('a Nuxt app with the guide files and the proxy as its Nitro route', () => {
  it('renders the tags with their runtime settings and the stylesheet', async () => {
    const page = await (await fetch(`${origin}/`)).text();
    assert.match(page, /<h1>Contracts<\/h1>/, 'rendered on the server');
    assert.ok(page.includes(`<esign-connect id="esign" client-id="${DEMO_LOGIN.clientId}" base-url="${emulator.baseUrl}"`), page.slice(0, 2000));
    const sheets = [...page.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!);
    const css = (await Promise.all(sheets.map(async (href) => (await fetch(new URL(href, origin))).text()))).join('\n');
    assert.match(css, /esign-connect:not\(:defined\)/, 'elements.css is in the server HTML');
  });

  it('one caller floods the sign-in, another person then connects', async () => {
    await floodSignIn(`${origin}/api/esign`, { count: 10, origin });
    await personConnects(`${origin}/api/esign`, {}, origin);
    assert.ok(!server!.output().includes(DEMO_LOGIN.clientSecret) && !server!.output().includes(COOKIE_KEY), 'nothing secret printed');
  });

  it('in Chromium: a person connects, uploads, sends and finds the envelope; the handlers fire; no hydration message', { timeout: 180_000 }, async () => {
    await personSendsFromApp(origin, 'Nuxt', DEMO_LOGIN.clientSecret);
  });
});
