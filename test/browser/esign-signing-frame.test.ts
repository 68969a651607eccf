import { expect, fixtureSync, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-signing-frame.js';
import '../../src/esign-contract-list.js';
import '../../src/esign-uploader.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignError } from '@esign-elements/shared/errors';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import {
  cfg,
  clearFaults,
  clickIn,
  connectedElement,
  emulatorCounters,
  fault,
  frameOf,
  locationOf,
  mountView,
  once,
  personStep,
  postFromInside,
  prebuiltFrame,
  settled,
  shadowText,
  until,
} from './helpers.js';

let connect: EsignConnect;
let client: EsignClient;

async function upload(...names: string[]): Promise<string[]> {
  const files = names.map((FileName) => ({ FileName, FileBody: btoa(`%PDF-1.4 ${FileName}`) }));
  const { data } = await client.uploadFiles(files);
  return data.Files.map((f) => f.FileId);
}

/** A stand-in for an uploader that the frame's `uploader` attribute names (removed after the test). */
function sourceElement(id: string): HTMLElement {
  return fixtureSync(html`<div id=${id}></div>`);
}

describe('<esign-signing-frame>', () => {
  before(async () => {
    await executeServerCommand('esign-reset');
    connect = await connectedElement('c', { spaceId: 'space_acme', storage: 'memory' });
    client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
  });

  after(() => connect.remove());

  afterEach(clearFaults);

  it('without a session: an accessible empty state, and open() rejects with no_session', async () => {
    const { el, events } = await mountView('esign-signing-frame', { connect: 'nobody', 'file-ids': 'file_a' });
    await el.updateComplete;
    expect(shadowText(el)).to.contain('Connect your e-signature account');
    await expect(el).shadowDom.to.be.accessible();
    const error = (await el.open().catch((e: EsignError) => e)) as EsignError;
    expect(error.code).to.equal('no_session');
    expect(events.find((e) => e.type === 'esign-error')).to.deep.include({ detail: { error } });
    expect(frameOf(el)).to.equal(null);
  });

  it('without FileIds: the empty state (replaceable by a slot), and open() rejects with no_files', async () => {
    const { el } = await mountView('esign-signing-frame', { connect: 'c', auto: '' });
    el.innerHTML = '<p slot="empty">Drop your contract above.</p>';
    await el.updateComplete;
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="empty"]')!;
    expect(slot.assignedElements()[0]!.textContent).to.equal('Drop your contract above.');
    const error = (await el.open().catch((e: EsignError) => e)) as EsignError;
    expect(error.code).to.equal('no_files');
    expect(el.status).to.equal('error');
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain('Upload the files');
  });

  it('full path: FileIds from an uploader, the page in a sandboxed frame, a person sends the envelope, the contract list shows it', async () => {
    const fileIds = await upload('lease.pdf', 'annex.pdf');
    const uploader = sourceElement('up');
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', uploader: 'up', auto: '' });
    await el.updateComplete;
    expect(frameOf(el)).to.equal(null);

    const ready = once(el, 'esign-view-ready');
    const loaded = once(el, 'esign-view-loaded');
    // what <esign-uploader id="up"> sends when its files are uploaded
    uploader.dispatchEvent(
      new CustomEvent('esign-upload-complete', {
        bubbles: true,
        composed: true,
        detail: { files: fileIds.map((FileId, i) => ({ FileId, FileName: `f${i}` })), fileIds },
      }),
    );
    const { detail: readyDetail } = await ready;
    expect(readyDetail.origin).to.equal(new URL(cfg.baseUrl).origin);
    expect(readyDetail.operateType).to.equal('request_signatures');
    expect(Date.parse(readyDetail.expiresAt)).to.be.greaterThan(Date.now());
    expect(JSON.stringify(readyDetail)).not.to.contain('embedded_token');
    expect(el.fileIds).to.deep.equal(fileIds);
    await loaded;
    expect(el.status).to.equal('loaded');

    const frame = frameOf(el)!;
    expect(frame.getAttribute('sandbox')!.split(' ').sort()).to.deep.equal([
      'allow-forms',
      'allow-popups',
      'allow-popups-to-escape-sandbox',
      'allow-same-origin',
      'allow-scripts',
    ]);
    expect(frame.getAttribute('title')).to.equal('E-signature: new envelope');
    expect(frame.hasAttribute('allow')).to.equal(true);
    // the Url went to src once and nowhere else in the DOM
    expect(el.shadowRoot!.innerHTML).not.to.contain('embedded_token');
    // the frame grows to the height its page reports
    await until(() => events.some((e) => e.type === 'esign-view-message' && (e.detail as { data: { type: string } }).data.type === 'resize'), 'resize message');
    const resize = events
      .filter((e) => e.type === 'esign-view-message')
      .map((e) => (e.detail as { data: { type: string; height?: number } }).data)
      .filter((d) => d.type === 'resize')
      .at(-1)!;
    await el.updateComplete;
    // its viewport (the content box, inside the frame's border) holds what the page reported: no scrollbar inside
    expect(frame.clientHeight).to.equal(Math.ceil(resize.height!));
    await expect(el).shadowDom.to.be.accessible();

    const sent = new Promise<{ envelopeId: string; status: string }>((resolve) =>
      el.addEventListener('esign-view-message', (e) => {
        const data = e.detail.data as { source?: string; type?: string; envelopeId: string; status: string };
        if (data.source === 'esign' && data.type === 'envelope-sent') resolve(data);
      }),
    );
    const sentEvent = once(el, 'esign-envelope-sent');
    await personStep('esign-frame-send', { subject: 'Lease 2026', signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
    const message = await sent;
    expect(message.envelopeId).to.match(/\S/);
    expect(message.status).to.equal('sent');
    // the element says what happened, tells the page, and offers the next envelope
    const { detail: sentDetail } = await sentEvent;
    expect(sentDetail).to.deep.equal({ envelopeId: message.envelopeId, fileIds, status: 'sent' });
    await el.updateComplete;
    expect(el.status).to.equal('sent');
    expect(frame.isConnected, 'the frame that showed the page made way for the sent state').to.equal(false);
    // no frame is shown; a blank, hidden, inert one may already wait for the next envelope (built in idle time)
    expect(el.shadowRoot!.querySelector('[part~="frame"]'), 'no frame shown in the sent state').to.equal(null);
    for (const waiting of el.shadowRoot!.querySelectorAll('iframe'))
      expect(waiting.classList.contains('prebuilt') && waiting.inert, 'only a pre-built frame').to.equal(true);
    const sentState = el.shadowRoot!.querySelector('[part~="sent"]')!;
    expect(sentState.textContent).to.contain('Envelope sent');
    await expect(el).shadowDom.to.be.accessible();
    sentState.querySelector('button')!.click();
    await el.updateComplete;
    expect(el.status).to.equal('idle');
    expect(el.fileIds).to.deep.equal([]);
    // every forwarded message came from the Url's origin
    expect(events.filter((e) => e.type === 'esign-view-message').every((e) => (e.detail as { origin: string }).origin === readyDetail.origin)).to.equal(true);

    const list = await mountView('esign-contract-list', { connect: 'c' });
    await once(list.el, 'esign-view-loaded');
    const text = (await personStep('esign-frame-text', { path: '/contracts', contains: 'Lease 2026' })) as string;
    expect(text).to.contain('Awaiting signatures');
  });

  it('takes FileIds from a real <esign-uploader> named by uploader="ID", with no glue script', async () => {
    const box = fixtureSync(
      html`<div><esign-uploader id="real-up" connect="c"></esign-uploader><esign-signing-frame uploader="real-up" connect="c" auto></esign-signing-frame></div>`,
    );
    const uploader = box.querySelector('esign-uploader')!;
    const el = box.querySelector('esign-signing-frame')!;
    const ready = once(el, 'esign-view-ready');
    const loaded = once(el, 'esign-view-loaded');
    const complete = once(uploader, 'esign-upload-complete');
    await uploader.upload([new File(['%PDF-1.4 real uploader'], 'real.pdf', { type: 'application/pdf' })]);
    const { detail } = await complete;
    await ready;
    expect(el.fileIds).to.deep.equal(detail.fileIds);
    await loaded;
  });

  it('refuses a Url from an origin that is not allowed: url_rejected, nothing in the DOM', async () => {
    const [fileId] = await upload('a.pdf');
    const { el, events } = await mountView('esign-signing-frame', {
      connect: 'c',
      'file-ids': fileId!,
      auto: '',
      'allowed-origins': 'https://esign.example.com',
    });
    const { detail } = await once(el, 'esign-error');
    expect(detail.error.code).to.equal('url_rejected');
    expect(detail.error.message).to.contain(new URL(cfg.baseUrl).origin);
    expect(detail.error.message).not.to.contain('embedded_token');
    await el.updateComplete;
    expect(frameOf(el)).to.equal(null);
    expect(el.shadowRoot!.innerHTML).not.to.contain('embedded_token');
    expect(events.map((e) => e.type)).not.to.include('esign-view-ready');
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain('does not trust');
    await expect(el).shadowDom.to.be.accessible();
    // the same element accepts it once the origin is allowed
    const loaded = once(el, 'esign-view-loaded');
    el.allowedOrigins = `https://esign.example.com, ${cfg.baseUrl}`;
    await loaded;
  });

  it('reports a service error as view_failed with the service code', async () => {
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': 'file_not_mine', auto: '' });
    const { detail } = await once(el, 'esign-error');
    expect(detail.error.code).to.equal('view_failed');
    expect(detail.error.status).to.equal(404);
    expect(detail.error.serviceCode).to.equal('ResourceNotFound.File');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="retry"]')).not.to.equal(null);
  });

  it('ignores messages from any other window or origin, even a real embedded page of the same service', async () => {
    const [fileId] = await upload('a.pdf');
    // every message this window receives, with the window that sent it
    const received: Array<{ source: MessageEventSource | null; data: unknown }> = [];
    const onMessage = (e: MessageEvent): void => void received.push({ source: e.source, data: e.data });
    window.addEventListener('message', onMessage);
    try {
      const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
      await once(el, 'esign-view-loaded');
      const own = frameOf(el)!.contentWindow;

      // this page itself
      window.postMessage({ source: 'esign', type: 'envelope-sent', envelopeId: 'forged' }, '*');
      // a same-origin helper frame
      const same = document.createElement('iframe');
      same.srcdoc = `<script>parent.postMessage({source:'esign',type:'envelope-sent',envelopeId:'forged'},'*')</script>`;
      // an opaque-origin helper frame
      const opaque = document.createElement('iframe');
      opaque.src = `data:text/html,<script>parent.postMessage({source:'esign',type:'envelope-signed',envelopeId:'forged'},'*')</script>`;
      // another window on the Url's exact origin: a second embedded page of the same service
      const { data } = await client.signatureStatusView();
      const other = document.createElement('iframe');
      other.src = data.Url;
      fixtureSync(html`<div></div>`).append(same, opaque, other);
      // every forged message has been dispatched to this window, so to the element's listener too
      const from = (source: Window | null, type: string) => received.some((m) => m.source === source && (m.data as { type?: string }).type === type);
      await until(
        () =>
          from(window, 'envelope-sent') &&
          from(same.contentWindow, 'envelope-sent') &&
          from(opaque.contentWindow, 'envelope-signed') &&
          from(other.contentWindow, 'ready'),
        'the forged messages',
      );

      // what the element forwarded is exactly what its own frame posted
      const forwarded = events.filter((e) => e.type === 'esign-view-message').map((e) => e.detail.data);
      expect(forwarded.length, 'the frame posted at least ready').to.be.greaterThan(0);
      expect(forwarded).to.deep.equal(received.filter((m) => m.source === own).map((m) => m.data));
      expect(el.status).to.equal('loaded');
    } finally {
      window.removeEventListener('message', onMessage);
    }
  });

  it('holds a Url while hidden, and when shown after ExpiresAt (emulator clock moved) renews it by itself', async () => {
    const [fileId] = await upload('a.pdf');
    await fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '', hidden: '' });
    await once(el, 'esign-view-ready');
    await el.updateComplete;
    // not shown: the Url is kept, not loaded (a load would also have put esign-view-loaded in the events checked below)
    expect(el.status).to.equal('loading');
    const blank = frameOf(el);
    if (blank) expect(locationOf(blank)).to.equal('about:blank');
    expect((await emulatorCounters())['GET /embedded/view'], 'the service saw no page load').to.equal(undefined);
    await executeServerCommand('esign-advance-clock', { seconds: 301 });

    const expired = once(el, 'esign-view-expired');
    el.hidden = false;
    const { detail } = await expired;
    expect(detail.renewing).to.equal(true);
    await once(el, 'esign-view-loaded');
    expect(events.map((e) => e.type).filter((t) => t !== 'esign-view-message')).to.deep.equal([
      'esign-view-ready',
      'esign-view-expired',
      'esign-view-ready',
      'esign-view-loaded',
    ]);
    const counters = await emulatorCounters();
    expect(counters['POST /openapi/v1/embedded/views']).to.equal(2);
    // shown, the held Url is loaded (this page's clock did not move) and its page says it expired; then the renewed one
    expect(counters['GET /embedded/view']).to.equal(2);
  });

  it('asks for a new Url when re-attached, and never loads a used one again', async () => {
    const [fileId] = await upload('a.pdf');
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
    await once(el, 'esign-view-loaded');
    await fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });
    const box = fixtureSync(html`<section></section>`);
    const loaded = once(el, 'esign-view-loaded');
    box.append(el);
    await loaded;
    // the update after the load, and whatever it decided, are done: no other request was started
    await el.updateComplete;
    expect(el.status).to.equal('loaded');
    const counters = await emulatorCounters();
    expect(counters['POST /openapi/v1/embedded/views']).to.equal(1);
    expect(counters['GET /embedded/view']).to.equal(1);
    expect(events.map((e) => e.type)).not.to.include('esign-error');
    expect(events.map((e) => e.type)).not.to.include('esign-view-expired');
  });

  it('shows the loading slot while the Url is on its way', async () => {
    const [fileId] = await upload('a.pdf');
    await fault({ path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 1000, times: 1 });
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
    el.innerHTML = '<span slot="loading">Preparing your envelope…</span>';
    await until(() => el.status === 'requesting', 'requesting');
    await el.updateComplete;
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('[part~="loading"] slot[name="loading"]')!;
    expect(slot.assignedElements()[0]!.textContent).to.equal('Preparing your envelope…');
    await once(el, 'esign-view-loaded');
  });

  it('builds a blank, hidden frame while the Url is on its way, and gives it the Url by navigation only', async () => {
    const [fileId] = await upload('a.pdf');
    await fault({ path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 500, times: 1 });
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
    await until(() => el.status === 'requesting' && frameOf(el) !== null, 'a frame while requesting');
    const early = frameOf(el)!;
    expect(early.hasAttribute('src')).to.equal(false);
    expect(early.classList.contains('pending')).to.equal(true);
    expect(getComputedStyle(early).visibility).to.equal('hidden');
    expect(early.contentWindow!.location.href).to.equal('about:blank');
    // no scripts in the blank document: scripts plus same-origin is what browsers warn can escape the sandbox
    expect(early.getAttribute('sandbox')).not.to.contain('allow-scripts');
    // nothing was placed yet: a ready posted from inside the blank frame (same origin as this page) is ignored
    await postFromInside(early, { source: 'esign', type: 'ready' });
    expect(el.status).to.equal('requesting');

    await once(el, 'esign-view-loaded');
    // the same frame took the Url, never through an attribute
    expect(frameOf(el)).to.equal(early);
    expect(early.hasAttribute('src')).to.equal(false);
    expect(early.getAttribute('sandbox')!.split(' ').sort()).to.deep.equal([
      'allow-forms',
      'allow-popups',
      'allow-popups-to-escape-sandbox',
      'allow-same-origin',
      'allow-scripts',
    ]);
    expect(early.classList.contains('pending')).to.equal(false);
    expect(el.shadowRoot!.innerHTML).not.to.contain('embedded_token');
  });

  it('removes the blank frame when the request fails', async () => {
    const [fileId] = await upload('a.pdf');
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 403, code: 'OperationDenied.NotMember', times: 1 });
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
    await once(el, 'esign-error');
    await el.updateComplete;
    expect(frameOf(el)).to.equal(null);
  });

  it('while it waits for files, builds one blank, hidden, inert frame in idle time, ignores its messages, and gives the Url to that same frame', async () => {
    const fileIds = await upload('idle.pdf');
    const uploader = sourceElement('up-idle');
    const { el, events } = await mountView('esign-signing-frame', { connect: 'c', uploader: 'up-idle', auto: '' });
    await el.updateComplete;
    // not in the first render: it waits for idle time
    expect(frameOf(el), 'no frame in the first render').to.equal(null);
    const empty = el.shadowRoot!.querySelector('[part~="empty"]')!;
    const emptyBefore = JSON.stringify(empty.getBoundingClientRect());
    const hostBefore = JSON.stringify(el.getBoundingClientRect());

    const early = await prebuiltFrame(el);
    expect(el.shadowRoot!.querySelectorAll('iframe'), 'one frame').to.have.length(1);
    expect(el.status).to.equal('idle');
    expect(locationOf(early), 'never navigated').to.equal('about:blank');
    expect(early.hasAttribute('src'), 'no src').to.equal(false);
    // hidden and inert: no part for page styles, out of the flow, not focusable, not in the accessibility tree
    expect(early.hasAttribute('part'), 'no part').to.equal(false);
    expect(early.getAttribute('tabindex')).to.equal('-1');
    expect(early.getAttribute('aria-hidden')).to.equal('true');
    expect(early.inert, 'inert').to.equal(true);
    const style = getComputedStyle(early);
    expect(style.visibility).to.equal('hidden');
    expect(style.position).to.equal('absolute');
    expect(style.pointerEvents).to.equal('none');
    expect(early.getAttribute('sandbox'), 'no scripts before the Url').to.equal('allow-same-origin');
    // no layout shift
    expect(JSON.stringify(empty.getBoundingClientRect()), 'the empty state did not move').to.equal(emptyBefore);
    expect(JSON.stringify(el.getBoundingClientRect()), 'the element kept its size').to.equal(hostBefore);
    await expect(el).shadowDom.to.be.accessible();

    // nothing placed yet: messages from inside the blank frame are not forwarded and change nothing
    await postFromInside(early, { source: 'esign', type: 'ready' });
    await postFromInside(early, { source: 'esign', type: 'envelope-sent', envelopeId: 'forged' });
    expect(events, 'no event from the pre-built frame').to.deep.equal([]);
    expect(el.status).to.equal('idle');
    expect(frameOf(el), 'the same frame still waits').to.equal(early);
    expect(locationOf(early), 'still blank').to.equal('about:blank');

    // the Url goes to that frame: already attached, adopted by the request (slowed down to look at it meanwhile)
    await fault({ path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 500, times: 1 });
    const loaded = once(el, 'esign-view-loaded');
    uploader.dispatchEvent(
      new CustomEvent('esign-upload-complete', { bubbles: true, composed: true, detail: { files: [{ FileId: fileIds[0], FileName: 'idle.pdf' }], fileIds } }),
    );
    await until(() => el.status === 'requesting', 'requesting');
    await el.updateComplete;
    expect(frameOf(el), 'the request adopted the pre-built frame').to.equal(early);
    expect(early.getAttribute('part')).to.equal('frame');
    expect(early.classList.contains('pending'), 'pending while requesting').to.equal(true);
    expect(early.hasAttribute('inert') || early.hasAttribute('tabindex') || early.hasAttribute('aria-hidden'), 'no longer inert once adopted').to.equal(false);
    await loaded;
    expect(frameOf(el), 'the Url landed in the pre-built frame').to.equal(early);
    expect(early.hasAttribute('src'), 'never through src').to.equal(false);
    expect(locationOf(early), 'on the service').to.equal('cross-origin');
    expect(el.shadowRoot!.innerHTML).not.to.contain('embedded_token');
  });

  it('after a view was used and closed, the next Url goes to a new frame that never navigated', async () => {
    const [fileId] = await upload('a.pdf');
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '' });
    await once(el, 'esign-view-loaded');
    const used = frameOf(el)!;
    el.close();
    await el.updateComplete;
    expect(used.isConnected, 'the used frame is gone').to.equal(false);
    const fresh = await prebuiltFrame(el, used);
    expect(locationOf(fresh), 'never navigated').to.equal('about:blank');
    const loaded = once(el, 'esign-view-loaded');
    await el.open();
    await loaded;
    expect(frameOf(el), 'the new Url is in the fresh frame').to.equal(fresh);
    expect(fresh.hasAttribute('src'), 'never through src').to.equal(false);
  });

  it('keeps no pre-built frame in an error state, with bad settings, with display="popup", or detached; a change builds a new one', async () => {
    const { el } = await mountView('esign-signing-frame', { connect: 'c', auto: '' });
    const first = await prebuiltFrame(el);
    // error: open() without FileIds
    await el.open().catch(() => undefined);
    expect(el.status).to.equal('error');
    await el.updateComplete;
    expect(frameOf(el), 'no frame in the error state').to.equal(null);
    await settled(el);
    expect(frameOf(el), 'none built while in error').to.equal(null);

    // a setting that affects the frame: popup display needs none; back to inline, a new one
    el.close();
    const second = await prebuiltFrame(el, first);
    el.display = 'popup';
    // the element tells the machine after its update; the state it enters has no pre-build, and renders no frame
    await settled(el);
    expect(frameOf(el), 'no frame for popup display, none built').to.equal(null);
    el.display = 'inline';
    const third = await prebuiltFrame(el, second);

    // bad settings: an invalid_config error, no frame; fixed, a new one
    const reported = once(el, 'esign-error');
    el.setAttribute('load-timeout', '-1');
    expect((await reported).detail.error.code).to.equal('invalid_config');
    await el.updateComplete;
    expect(frameOf(el), 'no frame with bad settings').to.equal(null);
    el.setAttribute('load-timeout', '15000');
    const fourth = await prebuiltFrame(el, third);

    // detached: gone; attached again, a new one
    el.remove();
    await el.updateComplete;
    expect(frameOf(el), 'no frame while detached').to.equal(null);
    await settled(el);
    expect(frameOf(el), 'none built while detached').to.equal(null);
    fixtureSync(html`<div></div>`).append(el);
    const fifth = await prebuiltFrame(el, fourth);
    expect(locationOf(fifth), 'never navigated').to.equal('about:blank');
    expect(new Set([first, second, third, fourth, fifth]).size, 'every pre-built frame is a new element').to.equal(5);
  });

  it('speaks the page language', async () => {
    const box = fixtureSync(html`<div lang="zh-CN"></div>`);
    const { el } = await mountView('esign-signing-frame', { connect: 'c' }, box);
    // the Chinese table is its own chunk, loaded when a lang first asks for it
    await until(() => shadowText(el).includes('请上传要签署的文件'), 'speaks Chinese');
  });

  it('reports frame_blocked with the likely causes when the embedded page does not come within load-timeout, the page kept', async () => {
    const [fileId] = await upload('a.pdf');
    // the service's page answers late (as a page the browser refuses to frame never reports ready)
    const fault = await fetch(`${cfg.baseUrl}/__emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ path: '/embedded/view', kind: 'delay', delayMs: 4000 }),
    });
    expect(fault.status).to.equal(200);
    const { el } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '', 'load-timeout': '1000' });
    const { detail } = await once(el, 'esign-error');
    expect(detail.error.code).to.equal('frame_blocked');
    expect(detail.error.message).to.contain('frame-src');
    expect(detail.error.message).to.contain('frame-ancestors');
    await el.updateComplete;
    expect(detail.hop).to.equal('page');
    expect(shadowText(el)).to.contain('slow to load');
    expect(shadowText(el)).to.contain('frame-ancestors');
    // the page is not taken away: a late ready would recover it (test/browser/unreachable.test.ts)
    expect(frameOf(el)).not.to.equal(null);
  });

  // last: the page's Content-Security-Policy cannot be taken back
  describe('when this page does not allow the frame (CSP frame-src)', () => {
    before(() => {
      const meta = document.createElement('meta');
      meta.httpEquiv = 'Content-Security-Policy';
      meta.content = "frame-src 'self'";
      document.head.append(meta);
    });

    it('reports csp_blocked naming frame-src and the origin at once, and opens the page in a popup from a click', async () => {
      const [fileId] = await upload('a.pdf');
      const started = Date.now();
      const { el, events } = await mountView('esign-signing-frame', { connect: 'c', 'file-ids': fileId!, auto: '', 'load-timeout': '5000' });
      const { detail } = await once(el, 'esign-error');
      // the page's securitypolicyviolation, not the load timeout
      expect(Date.now() - started).to.be.below(5000);
      expect(detail.error.code).to.equal('csp_blocked');
      expect(detail.error.directive).to.equal('frame-src');
      expect(detail.error.message).to.contain(new URL(cfg.baseUrl).origin);
      await el.updateComplete;
      const text = shadowText(el);
      expect(text).to.contain('Content-Security-Policy (frame-src) blocks the e-signature service');
      expect(text).to.contain(new URL(cfg.baseUrl).origin);
      expect(frameOf(el)).to.equal(null);
      await expect(el).shadowDom.to.be.accessible();

      const loaded = once(el, 'esign-view-loaded');
      await clickIn(el, '[part~="fallback"]');
      await loaded;
      expect(el.status).to.equal('loaded');
      expect(shadowText(el)).to.contain('open in another window');
      expect(events.filter((e) => e.type === 'esign-view-ready')).to.have.length(2);
      el.close();
    });
  });
});
