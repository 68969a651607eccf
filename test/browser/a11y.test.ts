/**
 * Keyboard and screen-reader users keep their place (issue 38): each control that a key press replaces hands the focus
 * to its declared successor, never to `<body>`, and what changed is said in live regions that were there before.
 * Driven with real key presses (Tab to reach a control, Enter to press it), in every engine.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-uploader.js';
import '../../src/esign-signing-frame.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import { cfg, clearFaults, clearSession, connectedElement, fault, mount, mountConnect, mountView, personStep, until } from './helpers.js';

/** The focused element, through shadow roots. */
function focused(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

function describeFocus(): string {
  const el = focused();
  return el
    ? `<${el.localName}${el.getAttribute('part') ? ` part="${el.getAttribute('part')}"` : ''}> "${(el.textContent ?? '').trim().slice(0, 40)}"`
    : 'nothing';
}

/** Presses Tab (Shift+Tab with `back`) until `target` has the focus, as a keyboard user reaches a control. */
async function tabTo(target: () => Element | null | undefined, what: string, back = false): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const want = target();
    if (want && focused() === want) return;
    await sendKeys({ press: back ? 'Shift+Tab' : 'Tab' });
  }
  throw new Error(`Tab never reached ${what} (focus: ${describeFocus()})`);
}

/** Waits until the focus is on `target`, and checks it never rests on <body> on the way. */
async function focusLandsOn(target: () => Element | null | undefined, what: string, timeout = 10_000): Promise<void> {
  await until(
    () => {
      expect(focused(), `focus fell to <body> (waiting for ${what})`).not.to.equal(document.body);
      const want = target();
      return want !== null && want !== undefined && focused() === want;
    },
    `the focus on ${what} (it is on ${describeFocus()})`,
    { timeout },
  );
}

const inShadow = (host: Element, selector: string) => () => host.shadowRoot?.querySelector<HTMLElement>(selector);
const live = (host: Element, kind: 'polite' | 'assertive') => (host.shadowRoot!.querySelector(`[data-live="${kind}"]`)?.textContent ?? '').trim();

describe('keyboard focus and live regions', function () {
  this.timeout(90_000);

  afterEach(async () => {
    await clearFaults();
  });

  it('<esign-connect>: Connect → Connecting… → Disconnect → Connect, each said in the polite region', async () => {
    await executeServerCommand('esign-reset');
    await clearSession();
    const el: EsignConnect = await mountConnect();
    const regions = el.shadowRoot!.querySelectorAll('[data-live]');
    expect(regions, 'both live regions exist before anything is said').to.have.length(2);
    expect(live(el, 'polite')).to.equal('');
    await tabTo(inShadow(el, '[part~="button"]'), 'Connect');
    await sendKeys({ press: 'Enter' });
    await focusLandsOn(inShadow(el, '[part~="button"][aria-busy="true"]'), 'the busy "Connecting…" button');
    expect(live(el, 'polite')).to.contain('Connecting to your e-signature account');
    expect(el.shadowRoot!.querySelectorAll('[data-live]')[0], 'the same region, its text changed').to.equal(regions[0]);
    await personStep('esign-consent', { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_alice' });
    await until(() => el.status === 'connected', 'connected', { timeout: 15_000 });
    await personStep('esign-return-to-page');
    await focusLandsOn(inShadow(el, '[part~="button"]'), 'Disconnect');
    expect(focused()!.textContent).to.contain('Disconnect');
    expect(live(el, 'polite')).to.equal('E-signature account connected.');
    await sendKeys({ press: 'Enter' });
    await until(() => el.status === 'idle', 'disconnected');
    await focusLandsOn(inShadow(el, '[part~="button"]'), 'Connect');
    expect(focused()!.textContent).to.contain('Connect e-signature account');
    await clearSession();
  });

  it('<esign-connect>: an error is said in the assertive region, and the focus goes to Try again', async () => {
    await executeServerCommand('esign-reset');
    await clearSession();
    const el = await mountConnect();
    await tabTo(inShadow(el, '[part~="button"]'), 'Connect');
    await sendKeys({ press: 'Enter' });
    await focusLandsOn(inShadow(el, '[part~="button"][aria-busy="true"]'), 'the busy "Connecting…" button');
    await personStep('esign-consent', { spaceId: 'space_alice', action: 'deny' });
    await until(() => el.status === 'error', 'the error', { timeout: 15_000 });
    await personStep('esign-return-to-page');
    await focusLandsOn(inShadow(el, '[part~="button"]'), 'Try again');
    expect(focused()!.textContent).to.contain('Try again');
    expect(live(el, 'assertive')).to.match(/declined/);
    expect(live(el, 'polite')).to.equal('');
    await clearSession();
  });

  describe('with a session', () => {
    let connect: EsignConnect;
    before(async () => {
      await executeServerCommand('esign-reset');
      await clearSession();
      connect = await connectedElement('a11y-session', { spaceId: 'space_acme', storage: 'memory' });
    });
    after(async () => {
      connect.remove();
      await clearSession();
    });

    it('<esign-uploader>: Cancel → the row’s Retry, Retry → its Cancel, Remove → the next row, the last Remove → the drop zone', async () => {
      await executeServerCommand('esign-advance-clock', { seconds: 61 });
      const el: EsignUploader = await mount('esign-uploader', { connect: 'a11y-session', multiple: '', id: 'a11y-uploader' });
      await until(() => el.shadowRoot!.querySelector('[part~="drop-zone"]')?.getAttribute('aria-disabled') === 'false', 'the uploader sees the session');
      // the emulator holds the uploads, so they are still on their way when cancelled
      await fault({ path: '/openapi/v1/files/upload', kind: 'delay', delayMs: 8000, times: 6 });
      const file = (name: string) => new File([`%PDF-1.4 ${name}`], name, { type: 'application/pdf' });
      void el.upload([file('one.pdf'), file('two.pdf')]).catch(() => undefined);
      await until(() => el.files.filter((f) => f.status === 'uploading').length === 2, 'two uploads on their way');
      await el.updateComplete;
      expect(live(el, 'polite'), 'progress in the polite region').to.match(/Uploading: 0 of 2 files done/);
      const button = (label: string) => inShadow(el, `button[aria-label="${label}"]`);

      await tabTo(button('Cancel one.pdf'), 'Cancel one.pdf');
      await sendKeys({ press: 'Enter' });
      await focusLandsOn(button('Retry one.pdf'), 'the row’s Retry');
      expect(live(el, 'assertive'), 'the failure in the assertive region').to.contain('one.pdf');

      await sendKeys({ press: 'Enter' });
      await focusLandsOn(button('Cancel one.pdf'), 'the row’s Cancel');
      await sendKeys({ press: 'Enter' });
      await focusLandsOn(button('Retry one.pdf'), 'the row’s Retry again');

      await tabTo(button('Remove one.pdf'), 'Remove one.pdf');
      await sendKeys({ press: 'Enter' });
      await focusLandsOn(button('Cancel two.pdf'), 'the next row’s first control');
      await sendKeys({ press: 'Enter' });
      await focusLandsOn(button('Retry two.pdf'), 'two.pdf’s Retry');
      await tabTo(button('Remove two.pdf'), 'Remove two.pdf');
      await sendKeys({ press: 'Enter' });
      await focusLandsOn(inShadow(el, '[part~="drop-zone"]'), 'the drop zone (the list is empty)');
      el.remove();
    });

    it('<esign-signing-frame>: Send in the page → the sent card’s heading, said in the polite region', async () => {
      const client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
      const { data } = await client.uploadFiles([{ FileName: 'a11y.pdf', FileBody: btoa('%PDF-1.4 a11y') }]);
      const { el } = await mountView('esign-signing-frame', { connect: 'a11y-session', 'file-ids': data.Files[0]!.FileId, auto: '' });
      expect(el.shadowRoot!.querySelectorAll('[data-live]'), 'both live regions exist before anything is said').to.have.length(2);
      await until(() => el.status === 'loaded', 'the page loaded', { timeout: 20_000 });
      await personStep('esign-frame-send', { subject: 'Keyboard', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
      await until(() => el.status === 'sent', 'sent', { timeout: 15_000 });
      await personStep('esign-return-to-page');
      await focusLandsOn(inShadow(el, '[part~="sent"] .title'), 'the sent card’s heading');
      // other words than the card's, so that the card's own text ('Envelope sent') is found once on the page
      expect(live(el, 'polite')).to.equal('Your envelope has gone out for signature; the signers get an email with a link.');
      expect(live(el, 'polite')).not.to.contain('Envelope sent');
      // the next action is one Tab away
      await sendKeys({ press: 'Tab' });
      expect(focused()!.textContent).to.contain('Start another');
      el.remove();
    });
  });
});
