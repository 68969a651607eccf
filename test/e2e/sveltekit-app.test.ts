/**
 * A real SvelteKit app (issue 47), laid out as the frameworks guide says (elements.css in +layout.svelte, the tags
 * defined by its hooks.client.ts, the guide's docs/guides/frameworks/sveltekit-page.svelte as its +page.svelte: the
 * four tags, their settings from $env/dynamic/public and their `onesign-…` handlers), with the token proxy of
 * packages/token-proxy/recipes/frameworks/sveltekit-server.ts as its `+server.ts`, installed from the packed tarballs
 * with SvelteKit 2 and adapter-node (the newest that run on Node 20, pinned here; from the registry, not the root
 * lockfile). `vite build` runs with no ESIGN_* variable at all (the secrets exist only at run time, as in CI or
 * Docker), then `node build` serves it with them, against the emulator: one caller (127.0.0.2) floods the sign-in,
 * then another person connects through the app's own origin and gets an access token; and in Chromium a person
 * connects, uploads, sends and finds the envelope through the page's handlers, with no esign-error and no hydration
 * message. In test:all (test:e2e), not in npm test: the install and build take about 30 s.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { freePort } from '@esign-elements/test-support/ports';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { packPackages } from '../helpers/pack.js';
import { proxyEnv, removeInBackground, startAppServer, type AppServer, withoutSecrets, writeFiles } from '../helpers/framework-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECIPE = join(ROOT, 'packages/token-proxy/recipes/frameworks/sveltekit-server.ts');
/** SvelteKit 3 needs Node 22: the newest 2.x and what it builds with. */
const KIT = ['@sveltejs/kit@2.70.4', '@sveltejs/adapter-node@5.5.7', '@sveltejs/vite-plugin-svelte@6.2.3', 'svelte@5.57.3', 'vite@7.3.8'];
const COOKIE_KEY = Buffer.alloc(32, 7).toString('base64url');

let emulator: Awaited<ReturnType<typeof createEmulator>>;
let work: string;
let server: AppServer | undefined;
let origin: string;

/** The environment without any ESIGN_* variable: what a CI build has. */

before(
  async () => {
    emulator = await createEmulator({ port: 0, filePort: 0 });
    work = mkdtempSync(join(tmpdir(), 'esign-sveltekit-'));
    const tarballs = packPackages(work, ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements']);
    const app = join(work, 'app');
    writeFiles(app, {
      'package.json': JSON.stringify({ name: 'kit-app', private: true, version: '0.0.0', type: 'module' }),
      'svelte.config.js': "import adapter from '@sveltejs/adapter-node';\n\nexport default { kit: { adapter: adapter() } };\n",
      'vite.config.js':
        "import { sveltekit } from '@sveltejs/kit/vite';\nimport { defineConfig } from 'vite';\n\nexport default defineConfig({ plugins: [sveltekit()] });\n",
      'src/app.html': '<!doctype html>\n<html lang="en"><head><meta charset="utf-8" />%sveltekit.head%</head><body><div>%sveltekit.body%</div></body></html>\n',
      // the guide's placement: the stylesheet in the layout (so in the server's HTML), the tags defined by hooks.client.ts
      'src/routes/+layout.svelte': "<script>\n  import 'esign-elements/elements.css';\n  let { children } = $props();\n</script>\n\n{@render children()}\n",
    });
    copyFileSync(join(ROOT, 'docs/guides/frameworks/hooks.client.ts'), join(app, 'src/hooks.client.ts'));
    copyFileSync(join(ROOT, 'docs/guides/frameworks/sveltekit-page.svelte'), join(app, 'src/routes/+page.svelte'));
    mkdirSync(join(app, 'src/routes/api/esign/[...path]'), { recursive: true });
    copyFileSync(RECIPE, join(app, 'src/routes/api/esign/[...path]/+server.ts'));
    const npmEnv = { ...withoutSecrets(), npm_config_update_notifier: 'false' };
    await run('npm', ['install', ...Object.values(tarballs), ...KIT, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: npmEnv,
      timeout: 300_000,
    });
    // the production build, with no secret anywhere in its environment
    await run('npm', ['exec', '--offline', '--', 'vite', 'build', '--logLevel', 'warn'], { cwd: app, env: npmEnv, timeout: 300_000 });

    const port = await freePort();
    origin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${origin}/api/esign/callback`);
    server = await startAppServer('node build', ['build'], {
      cwd: app,
      origin,
      env: {
        ...withoutSecrets(),
        HOST: '127.0.0.1',
        PORT: String(port),
        // adapter-node's own origin (it assumes https otherwise, and its CSRF check then refuses the token route's POSTs)
        ORIGIN: origin,
        // the page's public settings, read at run time ($env/dynamic/public)
        PUBLIC_ESIGN_CLIENT_ID: DEMO_LOGIN.clientId,
        PUBLIC_ESIGN_BASE_URL: emulator.baseUrl,
        ...proxyEnv(emulator.baseUrl, origin, COOKIE_KEY),
      },
    });
  },
  { timeout: 600_000 },
);

after(async () => {
  await server?.stop();
  await emulator?.close();
  if (work) removeInBackground(work);
});

describe('a SvelteKit app with the token proxy as its +server.ts', () => {
  it('renders the tags with the stylesheet in the server HTML', async () => {
    const page = await (await fetch(`${origin}/`)).text();
    assert.match(page, /<h1>Contracts<\/h1>/, 'rendered on the server');
    assert.match(page, new RegExp(`<esign-connect id="esign" client-id="${DEMO_LOGIN.clientId}" base-url="${emulator.baseUrl}"`));
    const sheets = [...page.matchAll(/<link[^>]+href="([^"]+\.css)"/g)].map((m) => m[1]!);
    const css = (await Promise.all(sheets.map(async (href) => (await fetch(new URL(href, origin))).text()))).join('\n');
    assert.match(css, /esign-connect:not\(:defined\)/, `elements.css is in the server HTML: ${sheets.join(', ')}`);
  });

  it('builds without secrets; one caller floods the sign-in, another person then connects', async () => {
    await floodSignIn(`${origin}/api/esign`, { count: 10, origin });
    await personConnects(`${origin}/api/esign`, {}, origin);
    assert.ok(!server!.output().includes(DEMO_LOGIN.clientSecret) && !server!.output().includes(COOKIE_KEY), 'nothing secret printed');
  });

  it('in Chromium: a person connects, uploads, sends and finds the envelope; the handlers fire; no hydration message', { timeout: 180_000 }, async () => {
    await personSendsFromApp(origin, 'SvelteKit', DEMO_LOGIN.clientSecret);
  });
});
