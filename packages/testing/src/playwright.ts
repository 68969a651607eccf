/**
 * `@esign-elements/testing/playwright`: a Playwright Test fixture with the emulator and a token proxy per worker
 * (`esign`, reset before each test), Chromium from `CHROME_PATH` when it is set, and what a person does on the
 * consent page, in a popup or in the tab. Needs `@playwright/test` (an optional peer). Guide: docs/testing.md.
 */
import { test as base } from '@playwright/test';
import { browserExecutablePath, startEsignServices, type EsignServices, type StartEsignServicesOptions } from './index.js';

export { expect } from '@playwright/test';
export * from './index.js';
export * from './person.js';

/** The fixtures one test sees. */
export interface EsignTestFixtures {
  /** The emulator and token proxy of this worker, reset to the seed before the test. */
  esign: EsignServices;
}

/** The fixtures of a worker. */
export interface EsignWorkerFixtures {
  /** Options of `startEsignServices` for this worker's services; set them with `test.use({ esignOptions })`. */
  esignOptions: StartEsignServicesOptions;
  esignServices: EsignServices;
}

/** Playwright's `test` with the `esign` fixture. */
export const test = base.extend<EsignTestFixtures, EsignWorkerFixtures>({
  esignOptions: [{}, { scope: 'worker', option: true }],
  esignServices: [
    async ({ esignOptions }, use) => {
      const services = await startEsignServices(esignOptions);
      try {
        await use(services);
      } finally {
        await services.close();
      }
    },
    { scope: 'worker' },
  ],
  esign: async ({ esignServices }, use) => {
    esignServices.reset();
    await use(esignServices);
  },
  // CHROME_PATH: a browser on the machine instead of one Playwright downloads (offline machines, CI images)
  launchOptions: [
    async ({ launchOptions }, use) => {
      const executablePath = browserExecutablePath();
      await use(executablePath ? { ...launchOptions, executablePath } : launchOptions);
    },
    { scope: 'worker' },
  ],
});
