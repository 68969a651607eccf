/**
 * When a server or the network fails mid-task (issue 51), and a page slow to say ready (issue 46 item 2): each fault
 * made from outside the elements (the token proxy's address cut, the browser set offline, the service's page held).
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/esign-connect.js';
import '../../src/esign-contract-list.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignContractList } from '../../src/elements/embedded-view/esign-contract-list.js';
import { UNREACHABLE_RETRY } from '../../src/core/service/unreachable.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { cfg, clearFaults, clearSession, connectAs, fault, frameOf, mountConnect, once, setOffline, shadowText, until } from './helpers.js';

/** The longest the backoff's first minute takes to try again: the sum of its ceilings up to a minute, plus a Url's time. */
const FIRST_MINUTE_MS = 60_000 + UNREACHABLE_RETRY.maxDelayMs;
const errorText = (list: EsignContractList) => (list.shadowRoot?.querySelector('[part~="error"]')?.textContent ?? '').replace(/\s+/g, ' ');
const proxyDown = (down: boolean) => executeServerCommand('esign-proxy-down', { down });

/** A connect and a list beside it, as on a page that loads (the connect restores from IndexedDB). */
async function page(loadTimeout = 15_000): Promise<{ connect: EsignConnect; list: EsignContractList }> {
  const wrapper = await fixture(
    html`<div>
      <esign-connect id="down" client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} redirect-uri=${cfg.callbackUrl} storage="indexeddb"></esign-connect>
      <esign-contract-list connect="down" load-timeout=${loadTimeout}></esign-contract-list>
    </div>`,
  );
  return { connect: wrapper.querySelector('esign-connect') as EsignConnect, list: wrapper.querySelector('esign-contract-list') as EsignContractList };
}

describe('when something is down', () => {
  afterEach(async () => {
    await proxyDown(false);
    await setOffline(false);
    await clearFaults();
    await clearSession();
  });

  it('the token proxy down at page load: the list says so (not offline) and opens by itself when it is back', async function () {
    this.timeout(FIRST_MINUTE_MS + 30_000);
    const first = await mountConnect();
    await connectAs(first, { spaceId: 'space_acme' });
    first.remove();

    await proxyDown(true);
    const errors: Array<CustomEvent> = [];
    const { connect, list } = await page();
    list.addEventListener('esign-error', (event) => errors.push(event));
    await until(() => list.status === 'error', 'the list fails', { timeout: 15_000 });
    expect(navigator.onLine).to.equal(true);
    expect(errors[0]!.detail.hop).to.equal('token-proxy');
    const words = errorText(list);
    expect(words).to.contain('token proxy');
    expect(words).to.contain('cannot be reached');
    expect(words).not.to.contain('offline');
    expect(connect.session?.spaceId, 'the account is still shown').to.equal('space_acme');
    expect(connect.status).to.equal('connected');
    await until(() => shadowText(connect).includes('The token proxy cannot be reached'), 'esign-connect notes the proxy is down');
    expect(shadowText(connect)).not.to.contain('offline');

    const loaded = once(list, 'esign-view-loaded');
    await proxyDown(false);
    // no click, no online event: the backoff's next try finds the proxy back
    await Promise.race([loaded, until(() => false, 'the list opens by itself', { timeout: FIRST_MINUTE_MS })]);
    expect(list.status).to.equal('loaded');
    expect(errors.every((event) => event.detail.hop === 'token-proxy')).to.equal(true);
    await until(() => !shadowText(connect).includes('cannot be reached'), 'the note goes by itself');
  });

  it('esign-connect alone: the proxy down at a refresh keeps the account, with a note that goes by itself', async function () {
    this.timeout(FIRST_MINUTE_MS + 30_000);
    const first = await mountConnect();
    await connectAs(first, { spaceId: 'space_acme' });
    first.remove();
    await proxyDown(true);
    const connect = await mountConnect();
    await until(() => connect.status === 'connected', 'restored');
    const refused = await connect.getAccessToken().catch((error: EsignError) => error);
    expect((refused as EsignError).code).to.equal('network_error');
    await connect.updateComplete;
    expect(shadowText(connect)).to.contain('The token proxy cannot be reached');
    expect(connect.status, 'not signed out because a server is down').to.equal('connected');
    expect(connect.session?.spaceId).to.equal('space_acme');

    const refreshed = once(connect, 'esign-session-refreshed');
    await proxyDown(false);
    await Promise.race([refreshed, until(() => false, 'a refresh by itself', { timeout: FIRST_MINUTE_MS })]);
    await connect.updateComplete;
    expect(shadowText(connect)).not.to.contain('cannot be reached');
  });

  it('offline just after the frame got its Url: says offline within 2 s, and opens by itself when the connection returns', async function () {
    this.timeout(60_000);
    const first = await mountConnect();
    await connectAs(first, { spaceId: 'space_acme' });
    first.remove();
    // the page is on its way (held 20 s at the service) when the network drops
    await fault({ path: '/embedded/s/', kind: 'delay', delayMs: 20_000 });
    const { list } = await page();
    await until(() => list.status === 'loading', 'the Url is in the frame, its page on its way', { timeout: 15_000 });
    const failed = once(list, 'esign-error');
    const start = performance.now();
    await setOffline(true);
    const { detail } = await failed;
    await list.updateComplete;
    const took = performance.now() - start;
    expect(took, `said after ${Math.round(took)} ms`).to.be.below(2_000);
    expect(detail.hop).to.equal('offline');
    expect(detail.error.code).to.equal('network_error');
    expect(errorText(list)).to.contain('You are offline');
    expect(errorText(list)).not.to.contain('Content-Security-Policy');

    // (the held page was the fault's one request: the next page comes at once)
    const loaded = once(list, 'esign-view-loaded');
    await setOffline(false);
    await loaded;
    expect(list.status).to.equal('loaded');
  });

  it('a page slow to say ready: told as slow beside the page, then recovered by its late ready, the frame kept', async function () {
    const timeout = 1_500;
    this.timeout(60_000);
    const first = await mountConnect();
    await connectAs(first, { spaceId: 'space_acme' });
    first.remove();
    // the page answers well after the load timeout: its ready comes late
    await fault({ path: '/embedded/s/', kind: 'delay', delayMs: timeout * 3 });
    const { list } = await page(timeout);
    const failed = once(list, 'esign-error');
    await until(() => list.status === 'loading', 'the Url is in the frame', { timeout: 15_000 });
    const frame = await until(() => frameOf(list), 'the frame');
    const { detail } = await failed;
    expect(detail.error.code).to.equal('frame_blocked');
    expect(detail.hop).to.equal('page');
    await list.updateComplete;
    expect(errorText(list)).to.contain('slow');
    expect(list.shadowRoot!.querySelector('[part~="retry"]')?.textContent?.trim(), 'Retry beside the page').to.equal('Try again');
    expect(frameOf(list), 'the page is not replaced').to.equal(frame);

    await once(list, 'esign-view-loaded');
    await list.updateComplete;
    expect(list.status).to.equal('loaded');
    expect(list.error).to.equal(undefined);
    expect(list.shadowRoot!.querySelector('[part~="error"]')).to.equal(null);
    expect(frameOf(list), 'the same frame, loaded').to.equal(frame);
  });
});
