import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-contract-list.js';
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
  mountView,
  once,
  personStep,
  postFromInside,
  prebuiltFrame,
  shadowText,
  until,
} from './helpers.js';

let connect: EsignConnect;
let client: EsignClient;

describe('<esign-contract-list>', () => {
  before(async () => {
    await executeServerCommand('esign-reset');
    connect = await connectedElement('c', { spaceId: 'space_acme', storage: 'memory' });
    client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect, operatorUserId: 'user_alice' });
  });

  after(() => connect.remove());

  afterEach(clearFaults);

  it('opens by itself when a session exists and shows the contracts of the Space', async () => {
    const { data: files } = await client.uploadFiles([{ FileName: 'nda.pdf', FileBody: btoa('%PDF-1.4 nda') }]);
    await client.createEnvelope({ FileIds: [files.Files[0]!.FileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }], Subject: 'NDA with Bob' });
    const { el } = await mountView('esign-contract-list', { connect: 'c' });
    const { detail } = await once(el, 'esign-view-ready');
    expect(detail.operateType).to.equal('signature_status');
    await once(el, 'esign-view-loaded');
    const frame = el.shadowRoot!.querySelector('iframe')!;
    expect(frame.title).to.equal('E-signature: your contracts');
    expect(frame.hasAttribute('src')).to.equal(false);
    const text = (await personStep('esign-frame-text', { path: '/contracts', contains: 'NDA with Bob' })) as string;
    expect(text).to.contain('Alice Tan');
    await expect(el).shadowDom.to.be.accessible();
  });

  it('is as tall as its page says it is, border included: the page inside has no scrollbar', async () => {
    const { el, events } = await mountView('esign-contract-list', { connect: 'c' });
    await once(el, 'esign-view-loaded');
    // the last height the page reported (the page measures its content and posts `resize` when it changes)
    const reported = (): number | undefined =>
      events
        .flatMap((e) => {
          const data = e.type === 'esign-view-message' ? (e.detail.data as { type?: string; height?: number }) : undefined;
          return data?.type === 'resize' ? [Math.ceil(Number(data.height))] : [];
        })
        .at(-1);
    await until(() => reported() !== undefined, 'the page to report its height');
    // an iframe's viewport is its content box, which clientHeight measures (the frame's 1 px border left out): a pixel
    // less than the page's content and engines with classic scrollbars (Firefox, WebKitGTK) show one
    let seen = '';
    const fits = await until(
      () => {
        seen = `${frameOf(el)!.clientHeight} px for the ${reported()} px the page reported`;
        return frameOf(el)!.clientHeight === reported();
      },
      'the frame to fit its page',
      { timeout: 3_000 },
    ).catch(() => false);
    expect(fits, `the frame's viewport is ${seen}`).to.equal(true);
  });

  it('refresh() loads the list again with a new Url, in a new frame', async () => {
    const { el, events } = await mountView('esign-contract-list', { connect: 'c' });
    await once(el, 'esign-view-loaded');
    const used = el.shadowRoot!.querySelector('iframe')!;
    await fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });
    const loaded = once(el, 'esign-view-loaded');
    await el.refresh();
    await loaded;
    const renewed = el.shadowRoot!.querySelector('iframe')!;
    expect(renewed, 'a frame that was given a Url never gets another').not.to.equal(used);
    expect(used.isConnected, 'the used frame is gone').to.equal(false);
    const counters = await emulatorCounters();
    expect(counters['POST /openapi/v1/embedded/views']).to.equal(1);
    expect(counters['GET /embedded/view']).to.equal(1);
    expect(events.filter((e) => e.type === 'esign-view-loaded')).to.have.length(2);
    expect(events.map((e) => e.type)).not.to.include('esign-error');
  });

  it('loading again, keeps its height until the new page reports its own: never the opening height meanwhile', async () => {
    const { el } = await mountView('esign-contract-list', { connect: 'c' });
    await once(el, 'esign-view-loaded');
    const base = el.shadowRoot!.querySelector<HTMLElement>('[part~="base"]')!;
    await until(() => base.classList.contains('sized'), 'the page to report its height');
    const before = el.getBoundingClientRect().height;
    // shorter than the opening height (32rem), so taking it meanwhile would show
    expect(before, 'the list before').to.be.below(512);
    const heights: number[] = [];
    const observer = new ResizeObserver(() => heights.push(el.getBoundingClientRect().height));
    observer.observe(el);
    // a new envelope: the page loaded again is taller by its row
    const { data: files } = await client.uploadFiles([{ FileName: 'lease.pdf', FileBody: btoa('%PDF-1.4 lease') }]);
    await client.createEnvelope({ FileIds: [files.Files[0]!.FileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }], Subject: 'Lease' });
    const loaded = once(el, 'esign-view-loaded');
    await el.refresh();
    await loaded;
    await until(() => el.shadowRoot!.querySelector('[part~="base"]')?.classList.contains('sized'), 'the new page to report its height');
    await new Promise((resolve) => requestAnimationFrame(resolve));
    observer.disconnect();
    const after = el.getBoundingClientRect().height;
    expect(after, 'the list after').to.be.above(before);
    expect(
      heights.filter((h) => h !== before && h !== after),
      `heights between ${before} and ${after}`,
    ).to.deep.equal([]);
  });

  it('with manual, waits for refresh() or a click', async () => {
    await fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });
    const { el } = await mountView('esign-contract-list', { connect: 'c', manual: '' });
    // the Open button shows once the element has the session: the update that showed it decided not to open
    await until(() => el.shadowRoot!.querySelector('[part~="button"]'), 'the Open button');
    await el.updateComplete;
    expect(el.status).to.equal('idle');
    expect((await emulatorCounters())['POST /openapi/v1/embedded/views']).to.equal(undefined);
    const loaded = once(el, 'esign-view-loaded');
    await clickIn(el, '[part~="button"]');
    await loaded;
    expect((await emulatorCounters())['POST /openapi/v1/embedded/views'], 'one Url, for the click').to.equal(1);
  });

  it('the deprecated auto="false" still waits like manual, and says so in the console', async () => {
    await fetch(`${cfg.baseUrl}/__emulator/requests`, { method: 'DELETE' });
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
    try {
      const { el } = await mountView('esign-contract-list', { connect: 'c', auto: 'false' });
      await until(() => el.shadowRoot!.querySelector('[part~="button"]'), 'the Open button');
      await el.updateComplete;
      expect(el.status).to.equal('idle');
      expect(el.auto).to.equal(false);
      expect(el.manual, 'manual is the one to set').to.equal(false);
      expect((await emulatorCounters())['POST /openapi/v1/embedded/views']).to.equal(undefined);
      await until(() => warnings.some((w) => w.includes('auto="false" is deprecated')), 'the warning, once the view starts');
      expect(warnings).to.have.length(1);
      expect(warnings.join(' ')).to.contain('manual');
      // presence alone (auto="", the default) is no deprecated spelling: the list loads by itself
      const loaded = once((await mountView('esign-contract-list', { connect: 'c', auto: '' })).el, 'esign-view-loaded');
      await loaded;
      expect(warnings).to.have.length(1);
    } finally {
      console.warn = warn;
    }
  });

  it('with manual, builds one blank, hidden, inert frame in idle time; the Url lands in it, and after close() in a new one', async () => {
    const { el, events } = await mountView('esign-contract-list', { connect: 'c', manual: '' });
    const first = await prebuiltFrame(el);
    expect(first.contentWindow!.location.href, 'never navigated').to.equal('about:blank');
    expect(first.inert, 'inert').to.equal(true);
    expect(first.getAttribute('aria-hidden')).to.equal('true');
    expect(first.getAttribute('tabindex')).to.equal('-1');
    expect(getComputedStyle(first).visibility).to.equal('hidden');
    await expect(el).shadowDom.to.be.accessible();
    // a message from inside the blank frame is ignored
    await postFromInside(first, { source: 'esign', type: 'ready' });
    expect(el.status).to.equal('idle');
    expect(events, 'no event from the pre-built frame').to.deep.equal([]);

    let loaded = once(el, 'esign-view-loaded');
    await clickIn(el, '[part~="button"]');
    await loaded;
    expect(frameOf(el), 'the Url landed in the pre-built frame').to.equal(first);
    expect(first.hasAttribute('src'), 'never through src').to.equal(false);

    el.close();
    const second = await prebuiltFrame(el, first);
    expect(first.isConnected, 'the used frame is gone').to.equal(false);
    expect(second.contentWindow!.location.href, 'never navigated').to.equal('about:blank');
    loaded = once(el, 'esign-view-loaded');
    await el.refresh();
    await loaded;
    expect(frameOf(el), 'the new Url landed in the new frame').to.equal(second);
  });

  it('display="popup": opens the list in a window from the click, and goes back to idle when it is closed', async () => {
    const { el } = await mountView('esign-contract-list', { connect: 'c', display: 'popup' });
    await el.updateComplete;
    // a popup cannot open by itself: the element waits for a click
    expect(el.status).to.equal('idle');
    const loaded = once(el, 'esign-view-loaded');
    await clickIn(el, '[part~="button"]');
    await loaded;
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('iframe')).to.equal(null);
    expect(shadowText(el)).to.contain('open in another window');
    el.close();
    await el.updateComplete;
    expect(el.status).to.equal('idle');
  });

  it('keeps service errors visible with a retry', async () => {
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 403, code: 'OperationDenied.NotMember', times: 1 });
    const { el } = await mountView('esign-contract-list', { connect: 'c' });
    const { detail } = await once(el, 'esign-error');
    expect((detail.error as EsignError).code).to.equal('view_failed');
    expect(detail.error.serviceCode).to.equal('OperationDenied.NotMember');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain('could not open the page');
    const loaded = once(el, 'esign-view-loaded');
    await clickIn(el, '[part~="retry"]');
    await loaded;
  });

  it('shows the expired slot when the page keeps saying its Url expired', async () => {
    // every Url is already used when the frame loads it: two renewals, then the element stops and waits for the user
    await fault({ path: '/embedded/view', method: 'GET', kind: 'delay', delayMs: 400, times: 10 });
    const { el, events } = await mountView('esign-contract-list', { connect: 'c' });
    el.innerHTML = '<p slot="expired">Your session timed out.</p>';
    await once(el, 'esign-view-ready');
    // the emulator's clock passes every ExpiresAt while the frame is on its way
    const advance = setInterval(() => void executeServerCommand('esign-advance-clock', { seconds: 301 }), 100);
    try {
      await until(() => el.status === 'expired', 'expired', { timeout: 10_000 }).catch((e) => {
        throw new Error(`${e} ${el.status} ${events.map((event) => event.type).join(',')} ${el.error?.message}`);
      });
    } finally {
      clearInterval(advance);
    }
    await el.updateComplete;
    expect(events.filter((e) => e.type === 'esign-view-expired')).to.have.length(3);
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="expired"]')!;
    expect(slot.assignedElements()[0]!.textContent).to.equal('Your session timed out.');
  });

  // last: disconnecting ends the shared session
  it('closes the list when the session ends, and shows the empty state', async () => {
    const { el } = await mountView('esign-contract-list', { connect: 'c' });
    await once(el, 'esign-view-loaded');
    await connect.disconnect();
    await until(() => el.status === 'idle', 'idle after disconnect');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('iframe')).to.equal(null);
    expect(shadowText(el)).to.contain('Connect your e-signature account');
  });
});
