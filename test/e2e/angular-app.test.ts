/**
 * A real Angular SSR app (issue 47) from the packed tarballs, laid out as `ng new --ssr` makes it (Angular 21, the
 * newest that runs on Node 20: 22 needs Node 22.22), with the frameworks guide's files as they are: its src/main.ts
 * (docs/guides/frameworks/angular-main.ts: the tags defined in the browser only), its component
 * (docs/guides/frameworks/angular-app.ts: CUSTOM_ELEMENTS_SCHEMA, `(esign-…)` handlers typed by strictTemplates),
 * elements.css in angular.json's styles, and packages/token-proxy/recipes/frameworks/angular-server.ts as src/server.ts
 * (the real @angular/ssr/node and Express). `ng build` runs with no ESIGN_* variable at all (it loads server.ts to
 * extract the routes; with a proxy made at module scope it failed: "Cannot read properties of undefined (reading
 * 'split')"), then `node dist/…/server.mjs` serves it against the emulator: the server's HTML carries the rendered
 * component and the stylesheet; one caller flooding the sign-in does not lock another person out; and in Chromium a
 * person connects, uploads, sends and finds the envelope, through the component's own handlers, with no esign-error
 * and no hydration message. In test:all (test:e2e), not in npm test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { floodSignIn, personConnects } from '@esign-elements/test-support/lockout';
import { freePort } from '@esign-elements/test-support/ports';
import { packPackages } from '../helpers/pack.js';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { proxyEnv, removeInBackground, startAppServer, type AppServer, withoutSecrets, writeFiles } from '../helpers/framework-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const installed = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
/** Angular 21 (22 needs Node 22.22); the registry's newest @angular/ssr 21 is 21.2.24, and the CLI and builder pin it. */
const ANGULAR = [
  ...['core', 'common', 'compiler', 'platform-browser', 'platform-server', 'router', 'ssr', 'build', 'cli', 'compiler-cli'].map((p) => `@angular/${p}@21.2.24`),
  'express@5.3.0',
  '@types/express@5.0.4',
  'rxjs@7.8.2',
  `typescript@${installed('typescript')}`,
  `@types/node@${installed('@types/node')}`,
];
const COOKIE_KEY = Buffer.alloc(32, 3).toString('base64url');

let emulator: Awaited<ReturnType<typeof createEmulator>>;
let work: string;
let server: AppServer | undefined;
let origin: string;

/** The environment of the install and the build: no secrets, no analytics prompt, no update notice. */
const buildEnv = (): NodeJS.ProcessEnv => ({ ...withoutSecrets(), NG_CLI_ANALYTICS: 'false', npm_config_update_notifier: 'false' });

/** `ng new ng-app --ssr --server-routing`'s files that the guide has nothing to say about (Angular 21, zoneless). */
const angularFiles = (esign: { clientId: string; baseUrl: string }): Record<string, string> => ({
  'package.json': JSON.stringify({ name: 'ng-app', private: true, version: '0.0.0', type: 'module' }),
  'angular.json': JSON.stringify(
    {
      version: 1,
      cli: { analytics: false },
      projects: {
        'ng-app': {
          projectType: 'application',
          root: '',
          sourceRoot: 'src',
          architect: {
            build: {
              builder: '@angular/build:application',
              options: {
                browser: 'src/main.ts',
                server: 'src/main.server.ts',
                outputMode: 'server',
                ssr: { entry: 'src/server.ts' },
                tsConfig: 'tsconfig.app.json',
                // the guide's placement: each element's space reserved in the server's HTML
                styles: ['node_modules/esign-elements/dist/elements.css'],
                security: { allowedHosts: ['localhost'] },
              },
            },
          },
        },
      },
    },
    null,
    2,
  ),
  'tsconfig.json': JSON.stringify(
    {
      compilerOptions: {
        strict: true,
        noImplicitOverride: true,
        noPropertyAccessFromIndexSignature: true,
        noImplicitReturns: true,
        skipLibCheck: true,
        isolatedModules: true,
        experimentalDecorators: true,
        target: 'ES2022',
        module: 'preserve',
      },
      angularCompilerOptions: { strictInjectionParameters: true, strictInputAccessModifiers: true, strictTemplates: true },
    },
    null,
    2,
  ),
  'tsconfig.app.json': JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: './out-tsc/app', types: ['node'] }, include: ['src/**/*.ts'] }),
  'src/index.html':
    '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <title>NgApp</title>\n  <base href="/">\n  <link rel="icon" href="data:,">\n</head>\n<body>\n  <app-root></app-root>\n</body>\n</html>\n',
  // the page's public settings (the secrets stay ESIGN_* in the server's environment)
  'src/environments/environment.ts': `export const environment = { esign: ${JSON.stringify(esign)} };\n`,
  'src/main.server.ts': `import { type BootstrapContext, bootstrapApplication } from '@angular/platform-browser';
import { App } from './app/app';
import { config } from './app/app.config.server';

const bootstrap = (context: BootstrapContext) => bootstrapApplication(App, config, context);

export default bootstrap;
`,
  'src/app/app.config.ts': `import { type ApplicationConfig, provideBrowserGlobalErrorListeners } from '@angular/core';
import { provideClientHydration, withEventReplay } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';

export const appConfig: ApplicationConfig = {
  providers: [provideBrowserGlobalErrorListeners(), provideRouter([]), provideClientHydration(withEventReplay())],
};
`,
  'src/app/app.config.server.ts': `import { type ApplicationConfig, mergeApplicationConfig } from '@angular/core';
import { provideServerRendering, RenderMode, withRoutes } from '@angular/ssr';
import { appConfig } from './app.config';

const serverConfig: ApplicationConfig = {
  providers: [provideServerRendering(withRoutes([{ path: '**', renderMode: RenderMode.Server }]))],
};

export const config = mergeApplicationConfig(appConfig, serverConfig);
`,
});

before(
  async () => {
    emulator = await createEmulator({ port: 0, filePort: 0 });
    work = mkdtempSync(join(tmpdir(), 'esign-angular-'));
    const tarballs = packPackages(work, ['@esign-elements/shared', '@esign-elements/token-proxy', 'esign-elements']);
    const app = join(work, 'app');
    writeFiles(app, angularFiles({ clientId: DEMO_LOGIN.clientId, baseUrl: emulator.baseUrl }));
    for (const [to, from] of Object.entries({
      'src/server.ts': 'packages/token-proxy/recipes/frameworks/angular-server.ts',
      'src/main.ts': 'docs/guides/frameworks/angular-main.ts',
      'src/app/app.ts': 'docs/guides/frameworks/angular-app.ts',
    })) {
      mkdirSync(dirname(join(app, to)), { recursive: true });
      copyFileSync(join(ROOT, from), join(app, to));
    }
    const env = buildEnv();
    await run('npm', ['install', ...Object.values(tarballs), ...ANGULAR, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env, timeout: 400_000 });
    // the production build, with no secret anywhere in its environment
    await run('npm', ['exec', '--offline', '--', 'ng', 'build'], { cwd: app, env, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 });

    const port = await freePort();
    origin = `http://localhost:${port}`;
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, `${origin}/api/esign/callback`);
    server = await startAppServer('the Angular server', [join(app, 'dist/ng-app/server/server.mjs')], {
      cwd: app,
      origin,
      env: { ...env, PORT: String(port), ...proxyEnv(emulator.baseUrl, origin, COOKIE_KEY) },
    });
  },
  { timeout: 900_000 },
);

after(async () => {
  await server?.stop();
  await emulator?.close();
  if (work) removeInBackground(work);
});

describe('an Angular SSR app with the guide component and the proxy in its server.ts', () => {
  it('renders the component with the tags and the stylesheet on the server', async () => {
    const page = await (await fetch(`${origin}/`)).text();
    assert.match(page, /<h1[^>]*>Contracts<\/h1>/, 'rendered on the server, not the client-side fallback');
    assert.match(page, /<esign-connect[^>]*id="esign"[^>]*token-endpoint="\/api\/esign\/token"/);
    const sheets = [...page.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!);
    const css = (await Promise.all(sheets.map(async (href) => (await fetch(new URL(href, origin))).text()))).join('\n');
    assert.match(css, /esign-connect:not\(:defined\)/, `elements.css is in the server HTML: ${sheets.join(', ')}`);
  });

  it('served directly: one caller floods the sign-in, another person then connects', async () => {
    await floodSignIn(`${origin}/api/esign`, { count: 10, origin });
    await personConnects(`${origin}/api/esign`, {}, origin);
  });

  it('in Chromium: a person connects, uploads, sends and finds the envelope; the handlers fire; no hydration message', { timeout: 180_000 }, async () => {
    await personSendsFromApp(origin, 'Angular', DEMO_LOGIN.clientSecret);
    assert.ok(!server!.output().includes(DEMO_LOGIN.clientSecret) && !server!.output().includes(COOKIE_KEY), 'nothing secret printed');
  });
});
