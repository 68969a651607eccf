/**
 * What a person does in a real framework app's page (the four server-rendering apps of test/e2e/*-app.test.ts, the
 * create-vite apps of test/e2e/framework-apps-pack.test.ts), in Chromium: connect through the emulator's consent popup, pick a PDF in `<esign-uploader>`, send the envelope from
 * `<esign-signing-frame>` (which then offers another), find it in `<esign-contract-list>`. Each step waits for what the app itself writes on the
 * page from the elements' events (`<label> sees Space …`, `1 file ready to send`, `<label> saw the envelope sent`), so
 * the framework's own handlers are what the flow rides on. Then: no `esign-error`, no page error, no secret in any
 * request or log line, and no console line of a hydration mismatch.
 */
import assert from 'node:assert/strict';
import { type Browser, chromium, type Page } from 'playwright-core';
import { signInWithPopup } from '@esign-elements/testing/playwright';
import { chromiumLaunchOptions } from './chromium.js';
import { watchPage } from './page-watch.js';

/** React (#418, #423, #425 minified), Vue, Svelte and Angular (NG0500–NG0507) hydration messages. */
const HYDRATION = /hydrat|mismatch|#41[89]|#42[35]|NG050\d/i;

async function connectUploadSendList(page: Page, origin: string, label: string): Promise<void> {
  await page.goto(origin);
  await signInWithPopup(page);
  await page.getByText('Connected as Alice Tan').waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: `${label} sees Space space_acme` })
    .waitFor();

  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
  await chooser.setFiles({ name: `${label}-lease.pdf`, mimeType: 'application/pdf', buffer: Buffer.from(`%PDF-1.4\n% a ${label} document\n%%EOF\n`) });
  await page.getByText('1 file ready to send').waitFor({ timeout: 20_000 });

  // one per page origin: a test may run the flow twice against one emulator (next start, then next dev)
  const subject = `Lease sent from the ${label} app at ${new URL(origin).host}`;
  const frame = page.frameLocator('esign-signing-frame iframe');
  await frame.getByText(`${label}-lease.pdf`).waitFor({ timeout: 20_000 });
  await frame.getByLabel('Subject').fill(subject);
  await frame.getByLabel('Name').fill('Bob Lim');
  await frame.getByLabel('Email').fill('bob@example.com');
  await frame.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Envelope sent', { exact: true }).waitFor();
  // the signing frame's sent state offers another envelope
  await page.getByRole('button', { name: 'Start another envelope' }).waitFor();
  await page.getByText(`${label} saw the envelope sent`).waitFor();
  await page.frameLocator('esign-contract-list iframe').getByText(subject).waitFor({ timeout: 20_000 });
}

/**
 * The whole flow in the app served at `origin`, in a new context of `browser` (or of a Chromium of its own). `label` is
 * the name the app writes in its status lines; `secret` must never reach the browser (the client_secret).
 */
export async function personSendsFromApp(origin: string, label: string, secret: string, browser?: Browser): Promise<void> {
  const own = browser ? undefined : await chromium.launch(chromiumLaunchOptions());
  const context = await (browser ?? own)!.newContext();
  try {
    const page = await context.newPage();
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    const watched = await watchPage(page, secret);
    await connectUploadSendList(page, origin, label);
    await watched.clean();
    assert.deepEqual(
      consoleLines.filter((line) => HYDRATION.test(line)),
      [],
      'no hydration warning',
    );
  } finally {
    await context.close();
    await own?.close();
  }
}
