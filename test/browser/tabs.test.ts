/**
 * Across tabs (issue 27): an envelope sent in one tab, or a Disconnect, shows in the other tabs of the same origin
 * that follow the same service and Space, with one list refresh and no other call to the service. The other tab is a
 * real window (opened by a click, as a person opens a tab), with its own copy of the page's scripts.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand, sendMouse } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-signing-frame.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import type { EsignContractList } from '../../src/elements/embedded-view/esign-contract-list.js';
import { cfg, clearSession, connectAs, emulatorCounters, mountConnect, mountView, once, personStep, record, until } from './helpers.js';

interface OtherTab {
  window: Window & { heard: Array<{ type: string; detail: Record<string, unknown> }> };
  connect: EsignConnect;
  uploader: EsignUploader;
  list: EsignContractList;
}

let opened: Window | null = null;

/** Opens test/browser/fixtures/tabs.html in a new window from a real click, and waits for its elements. */
async function openOtherTab(hash = ''): Promise<OtherTab> {
  const button = document.createElement('button');
  button.textContent = 'open another tab';
  // a window of its own beside this one (a tab would hide this page, and a hidden page holds its embedded page back)
  const url = `${new URL(cfg.callbackUrl).origin}/test/browser/fixtures/tabs.html${hash}`;
  button.addEventListener('click', () => (opened = window.open(url, 'other-tab', 'popup,width=900,height=700')));
  document.body.append(button);
  const rect = button.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)] });
  button.remove();
  const win = await until(() => opened, 'the other tab');
  const find = <T>(selector: string) => {
    try {
      return (win.document.querySelector(selector) as T | null) ?? undefined;
    } catch {
      return undefined; // still loading
    }
  };
  const connect = await until(
    () => find<EsignConnect>('esign-connect')?.status === 'connected' && find<EsignConnect>('esign-connect'),
    'the other tab restores the session',
    { timeout: 10_000 },
  );
  // the person goes back to this window (Firefox types and clicks in the focused window only)
  await personStep('esign-return-to-page');
  return {
    window: win as OtherTab['window'],
    connect,
    uploader: find<EsignUploader>('esign-uploader')!,
    list: find<EsignContractList>('esign-contract-list')!,
  };
}

describe('across tabs', function () {
  this.timeout(60_000);

  beforeEach(async () => {
    await executeServerCommand('esign-reset');
    await clearSession();
  });

  afterEach(() => {
    opened?.close();
    opened = null;
  });

  it('a Send in this tab marks the files sent in the other tab and loads its contract list again, once', async () => {
    const connect = await mountConnect({ id: 'tabs-c' });
    await connectAs(connect, { spaceId: 'space_acme' });
    const other = await openOtherTab();
    expect(document.visibilityState, 'this page stays visible').to.equal('visible');
    await until(() => other.list.status === 'loaded', 'the other tab shows its contract list', { timeout: 10_000 });

    // the other tab uploads two files (its own File objects: the uploader takes files of its window)
    const OtherFile = (other.window as unknown as { File: typeof File }).File;
    const uploaded = await other.uploader.upload([
      new OtherFile(['%PDF-1.4 a'], 'a.pdf', { type: 'application/pdf' }),
      new OtherFile(['%PDF-1.4 b'], 'b.pdf', { type: 'application/pdf' }),
    ]);
    const fileIds = uploaded.map((f) => f.FileId);
    expect(other.uploader.fileIds).to.deep.equal(fileIds);

    // a malformed message, and one of another Space, on the channels: ignored
    for (const name of [`esign-tabs|${cfg.baseUrl}|space_acme`, `esign-tabs|${cfg.baseUrl}|space_other`]) {
      const channel = new BroadcastChannel(name);
      channel.postMessage({ v: 1, type: 'envelope-sent', envelopeId: 'forged', fileIds: 'not a list', status: 'sent' });
      channel.postMessage({ v: 1, type: 'envelope-sent', envelopeId: 'forged', fileIds: [{ id: 1 }], status: 'sent' });
      if (name.endsWith('space_other')) channel.postMessage({ v: 1, type: 'envelope-sent', envelopeId: 'other-space', fileIds, status: 'sent' });
      channel.close();
    }

    // this tab sends an envelope with them, in the signing frame, as a person does
    const { el: frame } = await mountView('esign-signing-frame', { connect: 'tabs-c', 'file-ids': fileIds.join(' '), auto: '' });
    await once(frame, 'esign-view-loaded');
    const here = record(document, ['esign-envelope-sent']);
    const before = await emulatorCounters();
    const loadedBefore = other.window.heard.filter((e) => e.type === 'esign-view-loaded').length;
    await personStep('esign-frame-send', { subject: 'Across tabs', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    await until(() => here.length > 0, 'the envelope is sent here', { timeout: 15_000 });
    const sent = here[0]!.detail;

    // the other tab hears it once, with byOtherTab, and its uploader shows the files sent
    await until(() => other.uploader.shadowRoot!.querySelectorAll('[part~="file-sent"]').length === 2, 'the other tab shows the files sent', {
      timeout: 10_000,
    });
    expect(other.uploader.fileIds, 'out of fileIds').to.deep.equal([]);
    const heard = other.window.heard.filter((e) => e.type === 'esign-envelope-sent');
    expect(heard.map((e) => e.detail)).to.deep.equal([{ envelopeId: sent.envelopeId, fileIds, status: 'sent', byOtherTab: true }]);
    expect(JSON.stringify(heard[0]!.detail)).not.to.match(/token|Bearer|https?:/i);
    // its contract list loads again, once: the one call to the service it makes
    await until(() => other.window.heard.filter((e) => e.type === 'esign-view-loaded').length === loadedBefore + 1, 'the other tab loads its list again', {
      timeout: 10_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await emulatorCounters();
    expect((after['POST /openapi/v1/embedded/views'] ?? 0) - (before['POST /openapi/v1/embedded/views'] ?? 0), 'one new Url, for the list').to.equal(1);
    expect((after['POST /openapi/v1/files/upload'] ?? 0) - (before['POST /openapi/v1/files/upload'] ?? 0)).to.equal(0);
    // this tab heard its own frame's event only, not an echo
    expect(here.map((e) => e.detail)).to.deep.equal([{ envelopeId: sent.envelopeId, fileIds, status: 'sent' }]);
    connect.remove();
    frame.remove();
  });

  it('a manual contract list in the other tab stays closed; a Disconnect here shows in the other tab', async () => {
    const connect = await mountConnect({ id: 'tabs-c' });
    await connectAs(connect, { spaceId: 'space_acme' });
    const other = await openOtherTab('#manual');
    await until(() => other.list.shadowRoot!.querySelector('[part~="button"]'), 'the Open button of the manual list');
    const OtherFile = (other.window as unknown as { File: typeof File }).File;
    const [file] = await other.uploader.upload([new OtherFile(['%PDF-1.4 c'], 'c.pdf', { type: 'application/pdf' })]);

    const { el: frame } = await mountView('esign-signing-frame', { connect: 'tabs-c', 'file-ids': file!.FileId, auto: '' });
    await once(frame, 'esign-view-loaded');
    await personStep('esign-frame-send', { subject: 'Manual list', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    await until(() => other.uploader.shadowRoot!.querySelector('[part~="file-sent"]'), 'the file shows sent there', { timeout: 10_000 });
    expect(other.list.status, 'nobody opened it').to.equal('idle');

    await connect.disconnect();
    await until(() => other.connect.status === 'idle', 'the other tab is disconnected', { timeout: 10_000 });
    await until(() => other.uploader.shadowRoot!.textContent!.includes('Connect your e-signature account first'), 'its uploader asks to connect');
    expect(other.window.heard.filter((e) => e.type === 'esign-disconnected').map((e) => e.detail)).to.deep.equal([{ reason: 'other-tab' }]);
    connect.remove();
    frame.remove();
  });
});
