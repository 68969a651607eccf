/**
 * An embed that never strands the person signing (issue 27): a back/forward restore or a route entered again never
 * shows a used or expired Url, a sent envelope stays said, and every outcome is state a late listener can read.
 * Against the emulator over HTTP. Real back/forward cache restores cannot be driven by the test runner (the page
 * under test is the runner's own, and leaving it ends the test): a restore is the `pageshow` event the browser fires
 * then, `PageTransitionEvent('pageshow', {persisted: true})`, dispatched on the window.
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-signing-frame.js';
import '../../src/esign-contract-list.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignError } from '@esign-elements/shared/errors';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import { cfg, clearFaults, connectedElement, emulatorCounters, fault, frameOf, mountView, once, personStep, settled, until } from './helpers.js';

let connect: EsignConnect;
let client: EsignClient;

async function upload(name: string): Promise<string> {
  const { data } = await client.uploadFiles([{ FileName: name, FileBody: btoa(`%PDF-1.4 ${name}`) }]);
  return data.Files[0]!.FileId;
}

const resetCounters = () => fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });

/** What the browser fires when it shows this page again from the back/forward cache. */
const restoreFromCache = () => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));

describe('embedded views: restores, re-attachment and late listeners', () => {
  before(async () => {
    await executeServerCommand('esign-reset');
    connect = await connectedElement('c', { spaceId: 'space_acme', storage: 'memory' });
    client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
  });

  after(() => connect.remove());

  afterEach(clearFaults);

  it('restored from the back/forward cache with a page shown: a new Url in a new frame, never the used one', async () => {
    const fileId = await upload('a.pdf');
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId, auto: '' });
    await once(el, 'esign-view-loaded');
    const used = frameOf(el)!;
    await resetCounters();
    const loaded = once(el, 'esign-view-loaded');
    restoreFromCache();
    await loaded;
    await el.updateComplete;
    expect(el.status).to.equal('loaded');
    expect(frameOf(el), 'a new frame').not.to.equal(used);
    expect(used.isConnected, 'the frame of the used Url is gone').to.equal(false);
    const counters = await emulatorCounters();
    expect(counters['POST /openapi/v1/embedded/views'], 'a new Url').to.equal(1);
    expect(counters['GET /embedded/view'], 'only the new Url was loaded').to.equal(1);
    expect(events.map((e) => e.type)).not.to.include('esign-error');

    // a pageshow that is not a restore (the first load of a page) changes nothing
    await resetCounters();
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: false }));
    await settled(el);
    expect(el.status).to.equal('loaded');
    expect((await emulatorCounters())['POST /openapi/v1/embedded/views']).to.equal(undefined);
  });

  it('re-attached after its held Url expired (emulator clock moved): a new Url, the expired one never loaded', async () => {
    const fileId = await upload('b.pdf');
    await resetCounters();
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId, auto: '', hidden: '' });
    await once(el, 'esign-view-ready');
    await executeServerCommand('esign-advance-clock', { seconds: 301 });
    el.remove();
    el.hidden = false;
    const loaded = once(el, 'esign-view-loaded');
    fixtureSync(html`<section></section>`).append(el);
    await loaded;
    const counters = await emulatorCounters();
    expect(counters['POST /openapi/v1/embedded/views'], 'a second Url').to.equal(2);
    expect(counters['GET /embedded/view'], 'the expired Url was never loaded').to.equal(1);
    expect(events.map((e) => e.type)).not.to.include('esign-view-expired');
    expect(events.map((e) => e.type)).not.to.include('esign-error');
  });

  it('a sent envelope stays said: re-attached (a route entered again) or restored, no new envelope is started', async () => {
    const fileId = await upload('c.pdf');
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId, auto: '' });
    await once(el, 'esign-view-loaded');
    const sent = once(el, 'esign-envelope-sent');
    await personStep('esign-frame-send', { subject: 'Re-attached', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    const { detail } = await sent;
    await el.updateComplete;
    expect(el.status).to.equal('sent');
    await resetCounters();

    el.remove();
    fixtureSync(html`<section></section>`).append(el);
    await settled(el);
    expect(el.status, 're-attached').to.equal('sent');
    expect(el.shadowRoot!.querySelector('[part~="sent"]'), 'the sent state is shown').not.to.equal(null);
    restoreFromCache();
    await settled(el);
    expect(el.status, 'restored').to.equal('sent');
    expect((await emulatorCounters())['POST /openapi/v1/embedded/views'], 'no Url asked for the same files').to.equal(undefined);
    expect(el.lastResult).to.deep.equal({ event: 'esign-envelope-sent', detail });
  });

  it('late listeners: lastResult and whenSent() tell what happened before they were attached', async () => {
    const fileId = await upload('d.pdf');
    const { el } = await mountView('esign-signing-frame', { connect: 'c', auto: '' });
    expect(el.lastResult, 'nothing happened yet').to.equal(undefined);
    // an error first: kept as the last result
    const error = (await el.open().catch((e: EsignError) => e)) as EsignError;
    expect(error.code).to.equal('no_files');
    expect(el.lastResult).to.deep.equal({ event: 'esign-error', detail: { error } });
    // a promise taken before the envelope is sent resolves when it is
    const early = el.whenSent();
    el.fileIds = [fileId];
    await once(el, 'esign-view-loaded');
    await personStep('esign-frame-send', { subject: 'Late listeners', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    await until(() => el.status === 'sent', 'the sent state');
    // a framework that renders now, after the envelope was sent, still learns it
    const late = await el.whenSent();
    expect(late.envelopeId).to.match(/\S/);
    expect(late.fileIds).to.deep.equal([fileId]);
    expect(await early).to.deep.equal(late);
    expect(el.lastResult).to.deep.equal({ event: 'esign-envelope-sent', detail: late });
    // after "start another", the next promise waits for the next envelope
    el.startAnother();
    const next = el.whenSent();
    const settledYet = await Promise.race([next.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 50))]);
    expect(settledYet, 'whenSent() waits for the next envelope').to.equal(false);
  });

  it('the contract list keeps its last error for a listener attached later', async () => {
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 403, code: 'OperationDenied.NotMember', times: 1 });
    const { el } = await mountView('esign-contract-list', { connect: 'c' });
    await until(() => el.status === 'error', 'the error state');
    const result = el.lastResult;
    expect(result?.event).to.equal('esign-error');
    expect(result?.event === 'esign-error' && result.detail.error.code).to.equal('view_failed');
    expect(result?.event === 'esign-error' && result.detail.error).to.equal(el.error);
  });
});
