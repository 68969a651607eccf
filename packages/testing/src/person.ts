/**
 * What a person does on the emulator's consent page, in a Playwright page: in the popup `<esign-connect>` opens, or
 * in the tab with `mode="redirect"`. Takes a Playwright `Page` (from `@playwright/test` or `playwright-core`).
 */
import type { Page } from '@playwright/test';
import { PEOPLE, type EsignPerson } from './people.js';

/** The label of `<esign-connect>`'s button before a session (English). */
export const CONNECT_BUTTON = 'Connect e-signature account';

export interface SignInOptions {
  /** The button that starts the sign-in, by its accessible name; default `Connect e-signature account`. */
  button?: string;
  /** `deny` clicks Deny instead of Agree. */
  decision?: 'agree' | 'deny';
  /** Milliseconds for each step; default Playwright's. */
  timeout?: number;
}

/**
 * On the emulator's consent page open in `consent`: logs in as `person`, picks their Space (Open Mode; the first
 * one offered when they name none) and clicks Agree (or Deny). Resolves once the button is clicked.
 */
export async function consent(consentPage: Page, person: EsignPerson, options: Pick<SignInOptions, 'decision' | 'timeout'> = {}): Promise<void> {
  const timeout = options.timeout;
  await consentPage.waitForURL(/\/consent\?/, { timeout });
  if (options.decision === 'deny' && !(await consentPage.getByLabel('Password').isVisible())) {
    await consentPage.getByRole('button', { name: 'Deny' }).click({ timeout });
    return;
  }
  await consentPage.getByLabel('Email').fill(person.email, { timeout });
  await consentPage.getByLabel('Password').fill(person.password, { timeout });
  await consentPage.getByRole('button', { name: 'Log in' }).click({ timeout });
  const decision = consentPage.getByRole('button', { name: options.decision === 'deny' ? 'Deny' : 'Agree' });
  await decision.waitFor({ timeout });
  const spaces = consentPage.getByRole('radio');
  if (person.space) await consentPage.getByLabel(person.space).check({ timeout });
  else if ((await spaces.count()) > 0 && (await consentPage.locator('input[type=radio]:checked').count()) === 0) await spaces.first().check({ timeout });
  await decision.click({ timeout });
}

/**
 * A person signs in from `page` with `<esign-connect>` in its default popup mode: clicks Connect, and in the popup
 * logs in, picks the Space and agrees. Resolves when the popup has closed (the page then finishes by itself:
 * wait for what your page shows, e.g. `Connected as Alice Tan`).
 */
export async function signInWithPopup(page: Page, person: EsignPerson = PEOPLE.alice, options: SignInOptions = {}): Promise<void> {
  const [popup] = await Promise.all([
    page.waitForEvent('popup', { timeout: options.timeout }),
    page.getByRole('button', { name: options.button ?? CONNECT_BUTTON }).click({ timeout: options.timeout }),
  ]);
  await Promise.all([popup.waitForEvent('close', { timeout: options.timeout }), consent(popup, person, options)]);
}

/**
 * The same with `mode="redirect"`: the tab goes to the consent page and comes back to the page's origin. Resolves
 * when it is back.
 */
export async function signInWithRedirect(page: Page, person: EsignPerson = PEOPLE.alice, options: SignInOptions = {}): Promise<void> {
  const origin = new URL(page.url()).origin;
  await page.getByRole('button', { name: options.button ?? CONNECT_BUTTON }).click({ timeout: options.timeout });
  await consent(page, person, options);
  await page.waitForURL((url) => url.origin === origin, { timeout: options.timeout });
}
