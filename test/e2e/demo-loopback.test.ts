/**
 * `npm start`'s demo from either loopback name, in Chromium, Firefox and WebKit: the services as scripts/start.ts
 * starts them (scripts/demo-services.ts) on free ports, and a page that takes its settings from
 * stories/demo-config.ts as the stories do (bundled with Storybook's `import.meta.env` values). A person opens it at
 * `http://localhost:<port>` and at `http://127.0.0.1:<port>` and connects from both. And the arrangement the demo had
 * before (one proxy whose callback is on localhost, the page on 127.0.0.1): the callback cannot know that sign-in, and
 * the page says so (state mismatch) in its language, not that a window was closed.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { PEOPLE, SPACES } from '@esign-elements/testing';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';
import { startDemoServices, type DemoServices } from '../../scripts/demo-services.js';
import { type EngineBrowsers, type EnginePage, openEngines } from '../helpers/engine-page.js';
import { selectedEngines } from '../helpers/engines.js';
import { freePort } from '@esign-elements/test-support/ports';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The page's own record of the events its <esign-connect> fired. */
const COUNT_EVENTS = `<script>window.heard = [];
for (const type of ['esign-connected', 'esign-error']) document.addEventListener(type, (event) => heard.push(event.detail && event.detail.error ? type + ':' + event.detail.error.code : type));
</script>`;

let services: DemoServices;
let oldDemoProxy: ServedTokenProxy;
let site: Server;
let sitePort: number;
const scripts = new Map<string, string>();
const pages = new Map<string, string>();
/** One browser per engine for the file; each test's page in a fresh context. */
let browsers: EngineBrowsers;

/** One module for the browser: `entry` (TypeScript, from the repository's root) with every import inlined. */
async function bundle(entry: string, env: Record<string, string>): Promise<string> {
  const result = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts', sourcefile: 'page-entry.ts' },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { 'import.meta.env': JSON.stringify(env) },
  });
  return result.outputFiles[0]!.text;
}

before(async () => {
  sitePort = await freePort();
  const pageOrigins = [`http://localhost:${sitePort}`, `http://127.0.0.1:${sitePort}`];
  services = await startDemoServices({ emulator: 0, files: 0, proxy: 0 }, pageOrigins);
  // what `npm start` hands to Storybook, which the stories read through demo-config.ts
  scripts.set(
    '/demo.js',
    await bundle(
      `import { demo } from './stories/demo-config.ts';
const el = document.createElement('esign-connect');
el.setAttribute('client-id', demo.clientId);
el.setAttribute('base-url', demo.baseUrl);
el.setAttribute('token-endpoint', demo.tokenEndpoint);
document.body.append(el);`,
      {
        STORYBOOK_ESIGN_BASE_URL: services.emulator.baseUrl,
        STORYBOOK_ESIGN_TOKEN_ENDPOINT: `${services.proxyUrl}/token`,
        STORYBOOK_ESIGN_CLIENT_ID: services.clientId,
      },
    ),
  );
  pages.set('/', `${COUNT_EVENTS}<script type="module" src="/demo.js"></script>`);

  // the demo as it was: one proxy, its public origin and callback on localhost, reached by the page on 127.0.0.1
  const app = services.emulator.seed.apps.find((a) => a.clientId === services.clientId)!;
  oldDemoProxy = await serveTokenProxy({
    port: 0,
    host: '127.0.0.1',
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: services.emulator.baseUrl,
    allowedOrigins: pageOrigins,
    cookieKeys: [generateCookieKey()],
    rateLimit: false,
  });
  services.emulator.registerRedirectUri(app.clientId, oldDemoProxy.callbackUrl!);
  scripts.set('/elements.js', await bundle(`import './src/esign-connect.ts';`, {}));
  pages.set(
    '/old-demo',
    `${COUNT_EVENTS}<script type="module" src="/elements.js"></script><esign-connect client-id="${app.clientId}" base-url="${services.emulator.baseUrl}" token-endpoint="${oldDemoProxy.url}/token"></esign-connect>`,
  );

  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const script = scripts.get(path);
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      return;
    }
    const body = pages.get(path);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo</title></head><body>${body}</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(sitePort, '127.0.0.1', resolve));
  browsers = await openEngines(services.emulator.baseUrl);
});

after(async () => {
  await browsers?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  await oldDemoProxy?.close();
  await services?.close();
});

const heard = (page: EnginePage): Promise<string[]> => page.run<string[]>('return window.heard');

describe("npm start's demo from either loopback name", () => {
  for (const engine of selectedEngines()) {
    for (const name of ['127.0.0.1', 'localhost']) {
      it(`${engine}: opened at http://${name}:<port>, a person connects`, async () => {
        const page = await browsers.newPage(engine);
        try {
          await page.goto(`http://${name}:${sitePort}/`);
          await page.clickButton('Connect e-signature account');
          await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
          await page.waitForText('Connected as Alice Tan', 20_000);
          assert.deepEqual(await heard(page), ['esign-connected']);
        } finally {
          await page.close();
        }
      });
    }

    it(`${engine}: a callback on another host name than the sign-in's start: the page reads the state mismatch, not a closed window`, async () => {
      const page = await browsers.newPage(engine);
      try {
        await page.goto(`http://127.0.0.1:${sitePort}/old-demo`);
        await page.clickButton('Connect e-signature account');
        await page.person.consent({ email: PEOPLE.alice.email, password: PEOPLE.alice.password, spaceId: SPACES.acme.spaceId }, 20_000);
        await page.waitForText('does not match a sign-in started here', 20_000);
        assert.deepEqual(await heard(page), ['esign-error:state_mismatch']);
        // in the page's language: the same reason in Malay and in Chinese
        await page.run("document.documentElement.setAttribute('lang', 'ms'); return true");
        await page.waitForText('tidak sepadan dengan log masuk yang dimulakan di sini', 10_000);
        await page.run("document.documentElement.setAttribute('lang', 'zh-CN'); return true");
        await page.waitForText('此登录响应与此处发起的登录不匹配', 10_000);
      } finally {
        await page.close();
      }
    });
  }
});
