/**
 * React 19 hands the elements their settings after inserting them (@lit/react in a layout effect; plain tags as
 * properties or attributes): an app of the four elements, with the generated wrappers and with the plain tags, runs
 * the whole flow against the emulator and the token proxy with no esign-error (issue 34). The page loads React and its
 * own copy of the library as one bundle (web-test-runner.config.mjs), so this file imports no element module.
 */
import { fixture, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { recordErrors, runFlow, settings } from './settings-flow.js';

type ReactApp = typeof import('./fixtures/react-app.js');
const BUNDLE = '/test/browser/fixtures/react-app.bundle.js';

describe('settings from React 19', () => {
  let renderApp: ReactApp['renderApp'];
  let unmount: (() => void) | undefined;
  before(async () => {
    ({ renderApp } = (await import(BUNDLE)) as ReactApp);
  });
  beforeEach(async () => {
    await executeServerCommand('esign-reset');
  });
  afterEach(() => {
    unmount?.();
    unmount = undefined;
  });

  const cases = [
    { name: 'the @lit/react wrappers', kind: 'wrappers', later: false },
    { name: 'the plain tags (React 19 custom-element props)', kind: 'tags', later: false },
    { name: 'the wrappers, with settings from state filled after the first render', kind: 'wrappers', later: true },
  ] as const;

  for (const { name, kind, later } of cases) {
    it(`${name}: connects, uploads, sends and lists, with no esign-error`, async function () {
      this.timeout(90_000);
      const root = await fixture(html`<div></div>`);
      const errors = recordErrors(root);
      unmount = renderApp(root, kind, settings, { later });
      await runFlow(root, errors);
    });
  }
});
