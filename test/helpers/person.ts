/** What a person does in the e2e tests, written once: sign in through the emulator's consent popup. */
import type { Page } from 'playwright-core';

export interface Person {
  email: string;
  password: string;
  /** The Space to pick on the consent page (Open Mode), by its shown name. */
  space: string;
}

export const ALICE: Person = { email: 'alice@example.com', password: 'alice-password', space: 'Acme Legal' };

/**
 * Clicks Connect on `page`, then in the popup that opens: logs in, picks the Space and agrees; resolves when the
 * popup has closed (the page then completes the sign-in by itself).
 */
export async function connectThroughPopup(page: Page, person: Person = ALICE, button = 'Connect e-signature account'): Promise<void> {
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: button }).click()]);
  await popup.waitForURL(/\/consent\?/);
  await popup.getByLabel('Email').fill(person.email);
  await popup.getByLabel('Password').fill(person.password);
  await popup.getByRole('button', { name: 'Log in' }).click();
  await popup.getByLabel(person.space).check();
  await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Agree' }).click()]);
}
