/**
 * What a framework app's page shows an integrator who watches it: its page errors, console lines and requests, and
 * every `esign-error` its elements fire from before the app starts. `clean()` asserts there were no errors of either
 * kind and that no request or log line carries `secret` (the client_secret never reaches the browser).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export async function watchPage(page: Page, secret: string): Promise<{ clean: () => Promise<void> }> {
  const seen: string[] = [];
  page.on('pageerror', (error) => seen.push(`pageerror ${error.message}`));
  page.on('console', (msg) => seen.push(msg.text()));
  page.on('request', (request) => seen.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`));
  await page.addInitScript(() => {
    const errors: string[] = [];
    (window as unknown as { esignErrors: string[] }).esignErrors = errors;
    document.addEventListener('esign-error', (e) => errors.push((e as CustomEvent<{ error: { code: string } }>).detail.error.code));
  });
  return {
    clean: async () => {
      assert.deepEqual(await page.evaluate(() => (window as unknown as { esignErrors: string[] }).esignErrors), []);
      const pageErrors = seen.filter((line) => line.startsWith('pageerror'));
      assert.deepEqual(pageErrors, []);
      assert.ok(!seen.some((line) => line.includes(secret)), 'no request or log line carries the client_secret');
    },
  };
}
