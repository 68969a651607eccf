// Browser tests in Chromium, Firefox and WebKit (Debian's packages; test/helpers/engines.ts), against the real
// emulator and token proxy on other origins. Run through `node --import tsx` (npm run test:browser) so this config can
// start the TypeScript servers. ESIGN_ENGINES=firefox (or a list) narrows a local run; `npm test` runs all three.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { build } from 'esbuild';
import puppeteer from 'puppeteer-core';
import { puppeteerLaunchOptions, selectedEngines, startWebKitDriver, assertInstalled } from './test/helpers/engines.ts';
import { startTestServices } from './test/helpers/services.ts';

// WTR_PORT lets several runs share a machine; the emulator's test app registers this origin's fixture pages
const PORT = Number(process.env.WTR_PORT ?? 8000);
const PAGE_ORIGIN = `http://localhost:${PORT}`;
const engines = selectedEngines();
for (const engine of engines) assertInstalled(engine);
// One emulator and token proxies per engine: a test's counters, clock, limits, offline switch and held modules are its
// engine's own, and what an engine that ran before left running (a window, a timer) cannot count in another's
const services = Object.fromEntries(await Promise.all(engines.map(async (engine) => [engine, await startTestServices({ pageOrigin: PAGE_ORIGIN })])));
const webkit = engines.includes('webkit') ? await startWebKitDriver() : undefined;

/** Which engine a launcher drives, for the page's config and the commands. */
function engineOf(launcher) {
  if (launcher.type === 'webdriver') return 'webkit';
  return /firefox/i.test(launcher.name) ? 'firefox' : 'chromium';
}

/** Which engine sent a request, from its user agent; the test page runs this same function to pick its services. */
function engineOfAgent(userAgent = '') {
  if (/ Firefox\//.test(userAgent)) return 'firefox';
  return /Chrome\//.test(userAgent) ? 'chromium' : 'webkit';
}

/**
 * Another page of the site on a cold cache: `/fresh/…` serves the same modules under other URLs, so a same-origin
 * iframe opened there fetches its own copy of the library, which the `esign-hold-modules` command can hold back (a
 * slow network for one chunk) until `esign-release-modules`.
 */
const holds = Object.fromEntries(engines.map((engine) => [engine, { pattern: undefined, waiting: [], count: 0 }]));
function releaseModules(held) {
  held.pattern = undefined;
  for (const release of held.waiting.splice(0)) release();
}
async function freshPages(ctx, next) {
  if (!ctx.path.startsWith('/fresh/')) return next();
  const held = holds[engineOfAgent(ctx.get('user-agent'))];
  if (held?.pattern && ctx.path.startsWith(held.pattern)) {
    held.count += 1;
    await new Promise((resolve) => held.waiting.push(resolve));
  }
  ctx.url = ctx.url.slice('/fresh'.length);
  return next();
}

/**
 * test/browser/fixtures/react-app.ts with React and its own copy of the library, as one module: React is CommonJS,
 * which the dev server does not serve as modules (settings-react.test.ts imports it by this URL).
 */
function reactBundle() {
  return {
    name: 'esign-react-bundle',
    async serve(context) {
      if (context.path !== '/test/browser/fixtures/react-app.bundle.js') return undefined;
      const result = await build({
        entryPoints: ['test/browser/fixtures/react-app.ts'],
        bundle: true,
        format: 'esm',
        write: false,
        target: 'es2022',
        define: { 'process.env.NODE_ENV': '"development"' },
      });
      return { body: result.outputFiles[0].text, type: 'js' };
    },
  };
}

/** Commands the browser tests call with `executeServerCommand`: they act as a person would in windows a test cannot script. */
function esignCommands() {
  return {
    name: 'esign-commands',
    async executeCommand({ command, payload, session }) {
      if (!command.startsWith('esign-')) return undefined;
      const launcher = session.browser;
      const engine = engineOf(launcher);
      const held = holds[engine];
      if (command === 'esign-hold-modules') {
        Object.assign(held, { pattern: String(payload?.path ?? ''), count: 0 });
        return true;
      }
      if (command === 'esign-held-requests') return held.count;
      if (command === 'esign-release-modules') {
        releaseModules(held);
        return true;
      }
      const target = engine === 'webkit' ? { engine, driver: launcher.driver } : { engine, page: launcher.getPage(session.id) };
      return services[engine].command(command, payload, target);
    },
    async serverStop() {
      for (const held of Object.values(holds)) releaseModules(held);
      await Promise.allSettled(Object.values(services).map((s) => s.close()));
      await webkit?.close();
    },
  };
}

const launchers = {
  chromium: () => chromeLauncher({ launchOptions: puppeteerLaunchOptions('chromium') }),
  // puppeteer-core drives Firefox over WebDriver BiDi; the launcher takes it as its `puppeteer`
  firefox: () => chromeLauncher({ puppeteer, launchOptions: puppeteerLaunchOptions('firefox') }),
  webkit: () => webdriverLauncher(webkit.options),
};

export default {
  files: ['test/browser/**/*.test.ts'],
  rootDir: '.',
  port: PORT,
  hostname: 'localhost',
  // esign-source: @esign-elements/shared as its TypeScript source (no build of it needed first)
  nodeResolve: { exportConditions: ['development', 'esign-source'] },
  middleware: [freshPages],
  concurrency: 1,
  concurrentBrowsers: 1,
  testsFinishTimeout: 180_000,
  browserStartTimeout: 60_000,
  testFramework: { config: { timeout: 30_000 } },
  plugins: [reactBundle(), esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }), esignCommands()],
  browsers: engines.map((engine) => launchers[engine]()),
  testRunnerHtml: (testFramework) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"></head>
  <body>
    <script>
      // this engine's own services, and its name, told from the user agent by the same function as the /fresh/ hold
      window.__ESIGN_TEST__ = ${JSON.stringify(Object.fromEntries(engines.map((engine) => [engine, { ...services[engine].browserConfig, engine }])))}[
        (${engineOfAgent})(navigator.userAgent)
      ];
    </script>
    <script type="module" src="${testFramework}"></script>
  </body>
</html>`,
};
