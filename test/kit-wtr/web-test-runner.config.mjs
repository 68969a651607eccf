// The test kit with web-test-runner, as an integrator's config uses it (docs/guides/testing.md): the services started
// here, the people as server commands, Chromium through the Playwright launcher. Run by test/e2e/testing-kit-wtr.test.ts
// through `node --import tsx` (this checkout's TypeScript sources; an integrator imports @esign-elements/testing/…).
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { startEsignServices } from '@esign-elements/testing';
import { esignTestRunnerPlugin } from '@esign-elements/testing/web-test-runner';

const port = Number(process.env.WTR_PORT ?? 8765);
const esign = await startEsignServices({ siteOrigins: [`http://localhost:${port}`] });

export default {
  rootDir: '../..',
  files: ['test/kit-wtr/*.test.ts'],
  port,
  hostname: 'localhost',
  // esign-source: @esign-elements/shared as its TypeScript source (no build of it needed first)
  nodeResolve: { exportConditions: ['development', 'esign-source'] },
  testFramework: { config: { timeout: 30_000 } },
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }), esignTestRunnerPlugin(esign)],
  browsers: [playwrightLauncher({ product: 'chromium', launchOptions: { executablePath: process.env.CHROME_PATH, args: ['--no-sandbox'] } })],
};
