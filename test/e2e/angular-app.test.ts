/**
 * A real Angular SSR app (issue 47) from the packed tarballs, laid out as `ng new --ssr` makes it (Angular 21, the
 * newest that runs on Node 20: 22 needs Node 22.22; test/helpers/app-installs.ts pins it), with the frameworks guide's
 * files as they are: its src/main.ts (docs/guides/frameworks/angular-main.ts: the tags defined in the browser only),
 * its component (docs/guides/frameworks/angular-app.ts: CUSTOM_ELEMENTS_SCHEMA, `(esign-…)` handlers typed by
 * strictTemplates), elements.css in angular.json's styles, and packages/token-proxy/recipes/frameworks/angular-server.ts
 * as src/server.ts (the real @angular/ssr/node and Express). `ng build` runs with no ESIGN_* variable (it loads
 * server.ts to extract the routes; with a proxy made at module scope it failed: "Cannot read properties of undefined
 * (reading 'split')"), then `node dist/…/server.mjs` serves it, the server's HTML carrying the rendered component;
 * what every app test checks is in test/helpers/framework-app.ts. In test:all (test:e2e:apps), not in npm test.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEMO_LOGIN } from '@esign-elements/test-support/oauth-login';
import { frameworkApp } from '../helpers/framework-app.js';

/** `ng new ng-app --ssr --server-routing`'s files that the guide has nothing to say about (Angular 21, zoneless). */
const angularFiles = (esign: { clientId: string; baseUrl: string }): Record<string, string> => ({
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
                // the guide's placement: each element's space reserved in the server's HTML (the package's own path:
                // wherever npm put it, here in the apps' shared node_modules)
                styles: ['esign-elements/elements.css'],
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

frameworkApp({
  app: 'angular',
  title: 'an Angular SSR app with the guide component and the proxy in its server.ts',
  label: 'Angular',
  files: (emulator) => angularFiles({ clientId: DEMO_LOGIN.clientId, baseUrl: emulator.baseUrl }),
  copies: {
    'src/server.ts': 'packages/token-proxy/recipes/frameworks/angular-server.ts',
    'src/main.ts': 'docs/guides/frameworks/angular-main.ts',
    'src/app/app.ts': 'docs/guides/frameworks/angular-app.ts',
  },
  build: ['ng', 'build'],
  server: {
    name: 'the Angular server',
    args: (folder) => [join(folder, 'dist/ng-app/server/server.mjs')],
    env: (_emulator, _origin, port) => ({ PORT: String(port) }),
  },
  rendered: (page) => {
    assert.match(page, /<h1[^>]*>Contracts<\/h1>/, 'rendered on the server, not the client-side fallback');
    assert.match(page, /<esign-connect[^>]*id="esign"[^>]*token-endpoint="\/api\/esign\/token"/);
  },
});
