/**
 * A page whose Content-Security-Policy leaves out what the elements need: each element says which directive blocks
 * which origin (`csp_blocked`, `detail.error.directive`), in the page's language, instead of a network error or a
 * frame that never loads. The policy the kit prints is enough (testing-kit.test.ts); here each part is left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PEOPLE, startEsignServices, type EsignServices } from '@esign-elements/testing';
import { consent, signInWithPopup } from '@esign-elements/testing/playwright';
import { cdnBuild } from '../helpers/built.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';

let services: EsignServices;
let browser: Browser;

const BASE = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'";

before(async () => {
  await cdnBuild();
  services = await startEsignServices();
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
});

/** The page under `policy`, with every `esign-error` it fires recorded as `{tag, code, directive}`. */
async function open(body: string, policy: string, lang = 'en'): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { esignErrors: unknown[] };
    w.esignErrors = [];
    document.addEventListener('esign-error', (event) => {
      const { error } = (event as CustomEvent<{ error: { code: string; directive?: string } }>).detail;
      w.esignErrors.push({ tag: (event.target as Element).localName, code: error.code, directive: error.directive });
    });
  });
  await page.goto(services.servePage(body, { csp: policy, lang }));
  return page;
}

const errors = (page: Page) =>
  page.evaluate(() => (window as unknown as { esignErrors: Array<{ tag: string; code: string; directive?: string }> }).esignErrors);

describe('a page whose CSP blocks the service', () => {
  it('connect-src without the token proxy: <esign-connect> names connect-src and the proxy', async () => {
    const page = await open(
      `<esign-connect ${services.connectAttributes}></esign-connect>`,
      `${BASE}; connect-src 'self' ${services.baseUrl}; frame-src ${services.baseUrl}`,
    );
    await signInWithPopup(page, PEOPLE.alice);
    const alert = page.locator('esign-connect [part~="error"]');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /Content-Security-Policy connect-src blocks the sign-in service/);
    assert.ok(text.includes(services.proxyOrigin), `the proxy's origin is named: ${text}`);
    assert.deepEqual((await errors(page)).at(-1), { tag: 'esign-connect', code: 'csp_blocked', directive: 'connect-src' });
    assert.equal(await page.locator('esign-connect').getAttribute('status'), 'error');
    await page.context().close();
  });

  it('frame-src without the service: the contract list names frame-src and the service, in the page language', async () => {
    const page = await open(
      `<esign-connect id="esign" ${services.connectAttributes}></esign-connect><esign-contract-list connect="esign"></esign-contract-list>`,
      `${BASE}; connect-src 'self' ${services.proxyOrigin} ${services.baseUrl}; frame-src 'none'`,
      'zh-CN',
    );
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('esign-connect button').first().click()]);
    await Promise.all([popup.waitForEvent('close'), consent(popup, PEOPLE.alice)]);
    const alert = page.locator('esign-contract-list [part~="error"]');
    await alert.waitFor({ timeout: 10_000 });
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /本站的内容安全策略（frame-src）阻止了电子签名服务/);
    assert.ok(text.includes(services.baseUrl), `the service's origin is named: ${text}`);
    assert.deepEqual((await errors(page)).at(-1), { tag: 'esign-contract-list', code: 'csp_blocked', directive: 'frame-src' });
    assert.ok(
      await page.locator('esign-contract-list').getByRole('button', { name: '在新窗口中打开' }).isVisible(),
      'the popup, which frame-src does not govern, is offered',
    );
    await page.context().close();
  });

  it('connect-src without the service: the contract list and the uploader name connect-src and the service', async () => {
    const page = await open(
      `<esign-connect id="esign" ${services.connectAttributes}></esign-connect><esign-uploader connect="esign"></esign-uploader><esign-contract-list connect="esign"></esign-contract-list>`,
      `${BASE}; connect-src 'self' ${services.proxyOrigin}; frame-src ${services.baseUrl}`,
    );
    await signInWithPopup(page, PEOPLE.alice);
    await page.getByText('Connected as Alice Tan').waitFor();
    const alert = page.locator('esign-contract-list [part~="error"]');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /Content-Security-Policy \(connect-src\) blocks the e-signature service/);
    assert.ok(text.includes(services.baseUrl), text);
    assert.deepEqual((await errors(page)).filter((e) => e.tag === 'esign-contract-list').at(-1), {
      tag: 'esign-contract-list',
      code: 'csp_blocked',
      directive: 'connect-src',
    });

    // an upload to the service, blocked the same way: the file says why, at once (no retries: the policy will not change)
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
    await chooser.setFiles({ name: 'blocked.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') });
    await page
      .locator('esign-uploader')
      .getByText("Failed: this page's Content-Security-Policy (connect-src) blocks the e-signature service")
      .waitFor({ timeout: 10_000 });
    assert.deepEqual((await errors(page)).filter((e) => e.tag === 'esign-uploader').at(-1), {
      tag: 'esign-uploader',
      code: 'csp_blocked',
      directive: 'connect-src',
    });
    await page.context().close();
  });
});
