/**
 * Issue 46, item 1: a consent page that sends `Cross-Origin-Opener-Policy: same-origin` (as many identity providers'
 * sign-in pages do) moves the popup to another browsing context group, and this page reads it as closed while the
 * person is still there. The sign-in goes on: the element says so (with Cancel) and finishes when the person does, in
 * the default mode (the proxy on another origin of the site: its status route) and the browser-held mode (the
 * callback page hands the answer over on this origin's channel). A popup the person really closes (no header) still
 * ends in `popup_closed` within seconds. The emulator sends the header when asked (POST /__emulator/consent-page).
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import '../../src/esign-connect.js';
import { cfg, clearSession, clickIn, mountConnect, once, personStep, record, shadowText, until } from './helpers.js';

const CONTINUES = 'The sign-in continues in its own window';
/**
 * How long after the consent page loads the note may take: the element's grace after the popup reads as closed
 * (1.5 s, login-flow.ts), its 250 ms look at the popup, one question to the proxy; a margin for a loaded machine.
 */
const NOTE_WITHIN_MS = 15_000;

async function consentOpenerPolicy(openerPolicy: 'same-origin' | null): Promise<void> {
  const res = await fetch(`${cfg.baseUrl}/__emulator/consent-page`, { method: 'POST', body: JSON.stringify({ openerPolicy }) });
  expect(res.status).to.equal(200);
}

const buttons = (el: EsignConnect): string[] => [...el.shadowRoot!.querySelectorAll('button')].map((b) => (b.textContent ?? '').trim());

/** Clicks Connect and waits until the element says the sign-in continues in the severed popup, with Cancel beside it. */
async function startSevered(el: EsignConnect): Promise<void> {
  await until(() => el.status === 'idle', 'element ready');
  await clickIn(el, 'button');
  await until(() => shadowText(el).includes(CONTINUES), 'the note that the sign-in continues in its own window', { timeout: NOTE_WITHIN_MS });
  expect(el.status).to.equal('connecting');
  expect(buttons(el)).to.include('Cancel');
}

describe('a consent page that sends Cross-Origin-Opener-Policy: same-origin', () => {
  beforeEach(async () => {
    await executeServerCommand('esign-reset');
    await consentOpenerPolicy('same-origin');
  });
  afterEach(async () => {
    await consentOpenerPolicy(null);
    sessionStorage.removeItem('esign-test-config');
    await clearSession();
  });

  it('default mode: the element says the sign-in continues, then connects when the person agrees', async () => {
    const el = await mountConnect();
    const events = record(el, ['esign-connected', 'esign-error']);
    const connected = once(el, 'esign-connected');
    await startSevered(el);
    await personStep('esign-consent', { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme' });
    const { detail } = await connected;
    expect(detail.session.spaceId).to.equal('space_acme');
    await el.updateComplete;
    expect(el.status).to.equal('connected');
    expect(shadowText(el)).not.to.contain(CONTINUES);
    expect(events.map((e) => e.type)).to.deep.equal(['esign-connected']);
    expect((await el.getAccessToken()).length).to.be.greaterThan(0);
  });

  it('default mode: a denial in the severed popup reaches the page as access_denied', async () => {
    const el = await mountConnect();
    const failed = once(el, 'esign-error');
    await startSevered(el);
    await personStep('esign-consent', { spaceId: 'space_acme', action: 'deny' });
    const { detail } = await failed;
    expect(detail.error.code).to.equal('access_denied');
    await el.updateComplete;
    expect(el.status).to.equal('error');
    expect(shadowText(el)).not.to.contain(CONTINUES);
  });

  it('Cancel ends a sign-in that continues in the severed popup', async () => {
    const el = await mountConnect();
    const failed = once(el, 'esign-error');
    await startSevered(el);
    expect(el.shadowRoot!.querySelector('button.secondary')?.textContent?.trim()).to.equal('Cancel');
    await clickIn(el, 'button.secondary');
    const { detail } = await failed;
    expect(detail.error.code).to.equal('aborted');
    expect(shadowText(el)).not.to.contain(CONTINUES);
    await personStep('esign-close-consent');
  });

  it('browser-held mode: the callback page without an opener hands the answer to this page, which connects', async () => {
    // the callback page (fixtures/connect.html) finds its settings in the session storage it inherited from this page
    sessionStorage.setItem('esign-test-config', JSON.stringify(cfg));
    // memory storage: the popup cannot finish by itself, only through this page, which holds the attempt
    const el = await mountConnect({ 'refresh-tokens': 'browser', storage: 'memory' });
    const events = record(el, ['esign-connected', 'esign-error']);
    const connected = once(el, 'esign-connected');
    await startSevered(el);
    await personStep('esign-consent', { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_alice' });
    const { detail } = await connected;
    expect(detail.session.spaceId).to.equal('space_alice');
    expect(detail.session.refreshTokens).to.equal('browser');
    expect(events.map((e) => e.type)).to.deep.equal(['esign-connected']);
  });
});

describe('a popup the person closes (no Cross-Origin-Opener-Policy)', () => {
  beforeEach(async () => {
    await executeServerCommand('esign-reset');
  });
  afterEach(async () => {
    await clearSession();
  });

  for (const mode of ['proxy', 'browser'] as const) {
    it(`${mode}-held: ends in popup_closed within seconds, never "continues"`, async () => {
      const el = await mountConnect(mode === 'browser' ? { 'refresh-tokens': 'browser' } : {});
      const failed = once(el, 'esign-error');
      await clickIn(el, 'button');
      await until(() => el.status === 'connecting');
      // a person reads the consent page a little while (longer than the 1 s the element needs to see it), then closes it
      await personStep('esign-close-consent');
      const closedAt = performance.now();
      await until(() => el.status !== 'connecting', 'the end of the sign-in', { timeout: 20_000 }).catch((error: Error) => {
        throw new Error(`${error.message}; the element shows: ${shadowText(el)}`);
      });
      const { detail } = await failed;
      const took = performance.now() - closedAt;
      expect(detail.error.code).to.equal('popup_closed');
      expect(el.status).to.equal('error');
      expect(shadowText(el)).not.to.contain(CONTINUES);
      // the grace (1.5 s), a look every 250 ms and one question to the proxy; 5 s leaves room for a loaded machine
      expect(took, `${Math.round(took)} ms after the close`).to.be.lessThan(5_000);
    });
  }
});
