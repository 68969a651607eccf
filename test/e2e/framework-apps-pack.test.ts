/**
 * The packed tarball in two apps laid out as create-vite 9's react-ts and vue-ts templates make them (package.json
 * with the template's scripts, index.html at the root, src/main.tsx + src/App.tsx, src/main.ts + src/App.vue,
 * vite.config.ts, tsconfig.app.json): `npm install` of the tarball, React 19 or Vue 3 and Vite from npm's cache
 * (`--prefer-offline`), `npx vite build`, each dist/ served on localhost, and the whole flow in Chromium against the
 * kit's services, as test/helpers/app-flow.ts drives it in the server-rendering apps too: connect through the consent
 * popup, upload a PDF, Send in the signing frame, find the envelope in the contract list, no esign-error. The apps get the services' URLs the way docs/guides/testing.md says, from
 * `VITE_ESIGN_*` in the build's environment; nothing of the test is in the apps' code. The React app uses the
 * wrappers from `esign-elements/react`. @vitejs/plugin-react is not in this checkout (nor in npm's cache), so the
 * React app's vite.config.ts has no plugin: Vite 8 compiles the TSX with its built-in Oxc (automatic JSX runtime).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { personSendsFromApp } from '../helpers/app-flow.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';
import { packPackages } from '../helpers/pack.js';
import { startEsignServices, type EsignServices } from '@esign-elements/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'framework-apps-pack-secret-must-never-reach-the-browser';
const run = promisify(execFile);
const installed = (name: string): string => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

/** `npm …` in `cwd`, bounded; its output in the error when it fails. */
async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeout = 300_000): Promise<string> {
  const { stdout } = await run('npm', args, {
    cwd,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false', ...env },
  });
  return stdout;
}

function writeFiles(folder: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

/** A static server for `folder` (an app's dist/), on a free port; index.html for `/`. */
async function serve(folder: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(folder(), path === '/' ? 'index.html' : path);
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // the page on localhost, the same site as the proxy (its cookie is SameSite=Strict), the service on 127.0.0.1
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

const TSCONFIG = JSON.stringify({ files: [], references: [{ path: './tsconfig.app.json' }] }, null, 2);
const tsconfigApp = (extra: Record<string, unknown>): string =>
  JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        module: 'ESNext',
        types: ['vite/client'],
        skipLibCheck: true,
        moduleResolution: 'bundler',
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        moduleDetection: 'force',
        noEmit: true,
        strict: true,
        ...extra,
      },
      include: ['src'],
    },
    null,
    2,
  );

/** create-vite 9's react-ts, with the four elements through esign-elements/react. */
const REACT_APP: Record<string, string> = {
  'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" href="data:," />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>react-app</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`,
  'vite.config.ts': `import { defineConfig } from 'vite';

// https://vite.dev/config/ (no @vitejs/plugin-react here: Vite's built-in Oxc compiles the JSX)
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
});
`,
  'tsconfig.json': TSCONFIG,
  'tsconfig.app.json': tsconfigApp({ jsx: 'react-jsx' }),
  'src/main.tsx': `import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
`,
  'src/App.tsx': `import { useRef, useState } from 'react';
import type { EsignContractList as ListElement } from 'esign-elements';
import { EsignConnect, EsignContractList, EsignSigningFrame, EsignUploader } from 'esign-elements/react';

export function App() {
  const [space, setSpace] = useState('');
  const [fileIds, setFileIds] = useState<string[]>([]);
  const [sent, setSent] = useState(false);
  const list = useRef<ListElement>(null);
  return (
    <main>
      <h1>Contracts</h1>
      <EsignConnect
        id="esign"
        clientId={import.meta.env.VITE_ESIGN_CLIENT_ID}
        baseUrl={import.meta.env.VITE_ESIGN_BASE_URL}
        tokenEndpoint={import.meta.env.VITE_ESIGN_TOKEN_ENDPOINT}
        onEsignConnected={(event) => setSpace(event.detail.session.spaceId ?? '')}
      />
      {space && <p role="status">React sees Space {space}</p>}
      <EsignUploader connect="esign" accept=".pdf" maxSize={1024 * 1024} onEsignUploadComplete={(event) => setFileIds([...event.detail.fileIds])} />
      {fileIds.length > 0 && (
        <>
          <p>{fileIds.length} file ready to send</p>
          <EsignSigningFrame
            connect="esign"
            fileIds={fileIds}
            auto
            style={{ minHeight: '30rem' }}
            onEsignEnvelopeSent={() => {
              setSent(true);
              void list.current?.refresh();
            }}
          />
        </>
      )}
      {sent && <p>React saw the envelope sent</p>}
      <EsignContractList connect="esign" ref={list} style={{ minHeight: '20rem' }} />
    </main>
  );
}
`,
};

/** create-vite 9's vue-ts, with the tags. */
const VUE_APP: Record<string, string> = {
  'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" href="data:," />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>vue-app</title>
  </head>
  <body>
    <div id="app"></div>
    <script type="module" src="/src/main.ts"></script>
  </body>
</html>
`,
  'vite.config.ts': `import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

// https://vite.dev/config/
export default defineConfig({
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('esign-') } } })],
});
`,
  'tsconfig.json': TSCONFIG,
  'tsconfig.app.json': tsconfigApp({ jsx: 'preserve' }),
  'src/main.ts': `import { createApp } from 'vue';
import type {} from 'esign-elements/types/vue';
import 'esign-elements';
import App from './App.vue';

createApp(App).mount('#app');
`,
  'src/App.vue': `<script setup lang="ts">
import type { EsignConnectedDetail, EsignContractList, EsignUploadCompleteDetail } from 'esign-elements';
import { ref } from 'vue';

const config = {
  clientId: import.meta.env.VITE_ESIGN_CLIENT_ID,
  baseUrl: import.meta.env.VITE_ESIGN_BASE_URL,
  tokenEndpoint: import.meta.env.VITE_ESIGN_TOKEN_ENDPOINT,
};
const space = ref('');
const fileIds = ref<string[]>([]);
const sent = ref(false);
const list = ref<EsignContractList | null>(null);
const onConnected = (event: CustomEvent<EsignConnectedDetail>) => (space.value = event.detail.session.spaceId ?? '');
const onUploaded = (event: CustomEvent<EsignUploadCompleteDetail>) => (fileIds.value = [...event.detail.fileIds]);
const onSent = () => {
  sent.value = true;
  void list.value?.refresh();
};
</script>

<template>
  <main>
    <h1>Contracts</h1>
    <esign-connect id="esign" :client-id="config.clientId" :base-url="config.baseUrl" :token-endpoint="config.tokenEndpoint" @esign-connected="onConnected" />
    <p v-if="space" role="status">Vue sees Space {{ space }}</p>
    <esign-uploader connect="esign" accept=".pdf" :max-size="1024 * 1024" @esign-upload-complete="onUploaded" />
    <template v-if="fileIds.length">
      <p>{{ fileIds.length }} file ready to send</p>
      <esign-signing-frame connect="esign" :file-ids="fileIds" auto style="min-height: 30rem" @esign-envelope-sent="onSent" />
    </template>
    <p v-if="sent">Vue saw the envelope sent</p>
    <esign-contract-list ref="list" connect="esign" style="min-height: 20rem" />
  </main>
</template>
`,
};

const APPS = [
  {
    name: 'react',
    label: 'React',
    template: 'react-ts',
    scripts: { dev: 'vite', build: 'tsc -b && vite build', lint: 'eslint .', preview: 'vite preview' },
    files: REACT_APP,
    packages: ['react', 'react-dom', 'vite'],
  },
  {
    name: 'vue',
    label: 'Vue',
    template: 'vue-ts',
    scripts: { dev: 'vite', build: 'vue-tsc -b && vite build', preview: 'vite preview' },
    files: VUE_APP,
    packages: ['vue', 'vite', '@vitejs/plugin-vue'],
  },
] as const;

let work: string;
let services: EsignServices;
let browser: Browser;
const sites = new Map<string, { server: Server; origin: string }>();

before(
  async () => {
    work = mkdtempSync(join(tmpdir(), 'esign-apps-pack-'));
    for (const app of APPS) sites.set(app.name, await serve(() => join(work, app.name, 'dist')));
    services = await startEsignServices({
      clientId: 'vite-apps',
      clientSecret: SECRET,
      appName: 'Vite apps',
      siteOrigins: [...sites.values()].map((s) => s.origin),
    });
    const tarballs = packPackages(work, ['@esign-elements/shared', 'esign-elements']);
    await Promise.all(
      APPS.map(async (app) => {
        const folder = join(work, app.name);
        mkdirSync(folder);
        writeFiles(folder, {
          'package.json': JSON.stringify({ name: `${app.name}-app`, private: true, version: '0.0.0', type: 'module', scripts: app.scripts }, null, 2),
          ...app.files,
        });
        const packages = app.packages.map((p) => `${p}@${installed(p)}`);
        await npm(
          ['install', tarballs['@esign-elements/shared'], tarballs['esign-elements'], ...packages, '--prefer-offline', '--no-audit', '--no-fund'],
          folder,
        );
        // the services' URLs, as the app gets the real service's from .env.production
        await npm(['exec', '--offline', '--', 'vite', 'build', '--logLevel', 'warn'], folder, {
          VITE_ESIGN_CLIENT_ID: services.clientId,
          VITE_ESIGN_BASE_URL: services.baseUrl,
          VITE_ESIGN_TOKEN_ENDPOINT: services.tokenEndpoint,
        });
      }),
    );
    browser = await chromium.launch(chromiumLaunchOptions());
  },
  { timeout: 600_000 },
);

after(async () => {
  await browser?.close();
  await services?.close();
  for (const { server } of sites.values()) await new Promise((resolve) => server.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball in apps laid out as create-vite 9 makes them, built with vite build', () => {
  for (const app of APPS) {
    it(`${app.template}: connects, uploads a PDF, sends it from the signing frame and lists it`, { timeout: 120_000 }, async () => {
      // the built app carries the services' URLs from the environment, and never the secret
      const dist = join(work, app.name, 'dist');
      const built = readFileSync(join(dist, 'index.html'), 'utf8');
      assert.match(built, /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
      await personSendsFromApp(sites.get(app.name)!.origin, app.label, SECRET, browser);
    });
  }
});
