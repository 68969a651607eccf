/** Offline and back online, as when a laptop leaves the Wi-Fi: the elements say so, keep the session and resume. */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/esign-connect.js';
import '../../src/esign-contract-list.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignContractList } from '../../src/elements/embedded-view/esign-contract-list.js';
import { cfg, connectAs, once, setOffline, shadowText, until } from './helpers.js';

describe('offline and back online', () => {
  afterEach(async () => {
    await setOffline(false);
  });

  it('the contract list says it is offline, then opens again by itself; the session survives', async () => {
    const wrapper = await fixture(html`<div>
      <esign-connect id="net" client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} redirect-uri=${cfg.callbackUrl} storage="memory"></esign-connect>
      <esign-contract-list connect="net" load-timeout="10000"></esign-contract-list>
    </div>`);
    const connect = wrapper.querySelector('esign-connect') as EsignConnect;
    const list = wrapper.querySelector('esign-contract-list') as EsignContractList;
    await connectAs(connect, { spaceId: 'space_acme' });
    await until(() => list.status === 'loaded', 'the list loads', { timeout: 15000 });

    await setOffline(true);
    await until(() => shadowText(connect).includes('You are offline'), 'esign-connect shows it is offline');
    const failed = once(list, 'esign-error');
    void list.refresh().catch(() => undefined);
    expect((await failed).detail.error.code).to.equal('network_error');
    await list.updateComplete;
    expect(list.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain('You are offline');
    expect(connect.status).to.equal('connected');

    const loaded = once(list, 'esign-view-loaded');
    await setOffline(false);
    await loaded;
    expect(list.status).to.equal('loaded');
    await until(() => !shadowText(connect).includes('You are offline'), 'the offline note goes away');
    expect(connect.session?.spaceId).to.equal('space_acme');
  });
});
