/**
 * `esign-activity` for host idle timers: the person's work inside the embedded page (another origin: its keys and
 * clicks never reach the host page) is reported from what the host can see, the page's messages and focus going into
 * its frame, at most once per 5 s; bubbling and composed, so a listener on the document (an idle timer's) hears it.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-signing-frame.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignActivityDetail } from '../../src/elements/shared/events.js';
import { cfg, connectedElement, frameOf, mountView, once, personStep, until } from './helpers.js';

let connect: EsignConnect;
let fileIds: string[];

describe('esign-activity', () => {
  before(async () => {
    await executeServerCommand('esign-reset');
    connect = await connectedElement('c', { spaceId: 'space_acme', storage: 'memory' });
    const client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
    const { data } = await client.uploadFiles([{ FileName: 'lease.pdf', FileBody: btoa('%PDF-1.4 lease') }]);
    fileIds = data.Files.map((f) => f.FileId);
  });

  after(() => connect.remove());

  it("reaches the document when focus goes into the page's frame, at most once per 5 s; the page loading is not activity", async () => {
    const heard: Array<{ detail: EsignActivityDetail; target: EventTarget | null; bubbles: boolean; composed: boolean }> = [];
    const listen = (event: CustomEvent<EsignActivityDetail>): void => {
      heard.push({ detail: event.detail, target: event.target, bubbles: event.bubbles, composed: event.composed });
    };
    document.addEventListener('esign-activity', listen);
    // the host page's own controls, where the person is between visits to the page
    const outside = document.body.appendChild(Object.assign(document.createElement('button'), { textContent: 'Host page' }));
    try {
      const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileIds.join(' ') });
      const loaded = once(el, 'esign-view-loaded');
      await el.open();
      await loaded;
      // the page's `ready` and `resize` come without anyone there: an unattended session is not kept alive by them
      await until(() => events.filter((e) => e.type === 'esign-view-message').length >= 2, 'two messages from the page');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).to.deep.equal([]);

      const before = Date.now();
      const frame = frameOf(el)!;
      frame.focus();
      await until(() => heard.length === 1, 'activity from focus', { timeout: 2_000 });
      expect(heard[0]!.detail.source).to.equal('focus');
      expect(heard[0]!.detail.at).to.be.within(before, Date.now());
      expect(heard[0]!.target).to.equal(el);
      expect([heard[0]!.bubbles, heard[0]!.composed]).to.deep.equal([true, true]);

      // out and back in within 5 s of the last event: still one
      outside.focus();
      expect(document.activeElement).to.equal(outside);
      frame.focus();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).to.have.length(1);
      outside.focus();

      // after 5 s: the person comes back into the page, and the host hears it
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      frame.focus();
      await until(() => heard.length === 2, 'activity from focus after 5 s', { timeout: 2_000 });
      expect(heard[1]!.detail.source).to.equal('focus');
    } finally {
      outside.remove();
      document.removeEventListener('esign-activity', listen);
    }
  });

  it('the person working in the page (its `activity` message) keeps it coming while focus stays in the frame; a frame built ahead of need is no activity', async () => {
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileIds.join(' ') });
    const heard: EsignActivityDetail[] = [];
    el.addEventListener('esign-activity', (event) => heard.push(event.detail));
    // the blank frame built in idle time, focused: not the page, no event
    await until(() => el.shadowRoot!.querySelector('iframe.prebuilt'), 'a blank frame built ahead of need');
    el.shadowRoot!.querySelector<HTMLIFrameElement>('iframe.prebuilt')!.focus();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).to.deep.equal([]);
    const loaded = once(el, 'esign-view-loaded');
    await el.open();
    await loaded;
    frameOf(el)!.focus();
    await until(() => heard.length === 1, 'activity when focus goes into the page');
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    const messages: string[] = [];
    el.addEventListener('esign-view-message', (event) => messages.push(String((event.detail.data as { type?: unknown }).type)));
    // focus stays in the frame (no new focus to see); the person types there: the page says so (assumption,
    // docs/architecture.md), and the host hears it
    await personStep('esign-frame-send', { subject: 'Lease', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    await until(() => heard.length === 2, 'activity while the person works in the page');
    expect(heard[1]!.source).to.equal('message');
    expect(messages).to.include('activity');
  });
});
