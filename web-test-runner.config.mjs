// Browser tests in Debian's Chromium, against the real emulator and token proxy on other origins.
// Run through `node --import tsx` (npm run test:browser) so this config can start the TypeScript servers.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/helpers/chromium.ts';
import { startTestServices } from './test/helpers/services.ts';

// WTR_PORT lets several runs share a machine; the emulator's test app registers this origin's fixture pages
const PORT = Number(process.env.WTR_PORT ?? 8000);
const PAGE_ORIGIN = `http://localhost:${PORT}`;
const services = await startTestServices({ pageOrigin: PAGE_ORIGIN });

/** Commands the browser tests call with `executeServerCommand`: they act as a person would in windows a test cannot script. */
function esignCommands() {
  return {
    name: 'esign-commands',
    async executeCommand({ command, payload, session }) {
      if (!command.startsWith('esign-')) return undefined;
      const page = session.browser.getPage(session.id);
      return services.command(command, payload, page);
    },
    async serverStop() {
      await services.close();
    },
  };
}

export default {
  files: ['test/browser/**/*.test.ts'],
  rootDir: '.',
  port: PORT,
  hostname: 'localhost',
  nodeResolve: true,
  concurrency: 1,
  concurrentBrowsers: 1,
  testsFinishTimeout: 180_000,
  testFramework: { config: { timeout: 30_000 } },
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }), esignCommands()],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
        // keep the real popup blocker: tests must prove the popup opens from a user gesture
        ignoreDefaultArgs: ['--disable-popup-blocking'],
      },
    }),
  ],
  testRunnerHtml: (testFramework) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"></head>
  <body>
    <script>window.__ESIGN_TEST__ = ${JSON.stringify(services.browserConfig)};</script>
    <script type="module" src="${testFramework}"></script>
  </body>
</html>`,
};
