import { expect, fixture, html as fhtml } from '@open-wc/testing';
import { html, LitElement } from 'lit';
import { property } from 'lit/decorators.js';
import '../../src/esign-connect.js';
import { SessionController } from '../../src/elements/session-controller.js';
import type { EsignConnect } from '../../src/elements/esign-connect.js';
import { cfg, until } from './helpers.js';

/** A minimal element that uses a session the way the other esign elements do. */
class SessionProbe extends LitElement {
  @property() connect: string | null = null;
  readonly session = new SessionController(this);
  protected override render() {
    const provider = this.session.provider;
    return html`${provider ? `provider:${provider.baseUrl}` : 'no provider'}`;
  }
}
customElements.define('session-probe', SessionProbe);

describe('finding the session', () => {
  it('uses the nearest <esign-connect> ancestor', async () => {
    const el = await fixture<EsignConnect>(fhtml`<esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"
      ><session-probe></session-probe
    ></esign-connect>`);
    const probe = el.querySelector('session-probe') as SessionProbe;
    await until(() => probe.session.provider === el, 'probe finds its ancestor');
    expect(probe.shadowRoot!.textContent).to.contain(`provider:${cfg.baseUrl}`);
  });

  it('answers a context request keyed by the string "esign-session", as a second copy of the library sends it', async () => {
    const el = await fixture<EsignConnect>(fhtml`<esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"
      ><div></div
    ></esign-connect>`);
    // a consumer that shares no module with this copy: the community context protocol, plain DOM, the key by value
    const provided: unknown[] = [];
    const request = Object.assign(new Event('context-request', { bubbles: true, composed: true }), {
      context: 'esign-session',
      contextTarget: el.querySelector('div'),
      callback: (value: unknown) => provided.push(value),
      subscribe: false,
    });
    el.querySelector('div')!.dispatchEvent(request);
    expect(provided).to.deep.equal([el]);
  });

  it('uses the element named by connect="ID", even when it is added later', async () => {
    const wrapper = await fixture(fhtml`<div><session-probe connect="later"></session-probe></div>`);
    const probe = wrapper.querySelector('session-probe') as SessionProbe;
    await probe.updateComplete;
    expect(probe.session.provider).to.equal(undefined);
    expect(probe.shadowRoot!.textContent).to.contain('no provider');
    const connect = document.createElement('esign-connect') as EsignConnect;
    connect.id = 'later';
    connect.setAttribute('client-id', cfg.clientId);
    connect.setAttribute('base-url', cfg.baseUrl);
    connect.setAttribute('token-endpoint', cfg.tokenEndpoint);
    connect.setAttribute('storage', 'memory');
    wrapper.append(connect);
    await until(() => probe.session.provider === connect, "probe finds the named element");
  });

  it('prefers connect="ID" over an ancestor', async () => {
    const wrapper = await fixture(fhtml`<div>
      <esign-connect id="named" client-id="a" base-url="https://named.example.com" token-endpoint="https://named.example.com/token" storage="memory"></esign-connect>
      <esign-connect client-id="b" base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory">
        <session-probe connect="named"></session-probe>
      </esign-connect>
    </div>`);
    const probe = wrapper.querySelector('session-probe') as SessionProbe;
    await until(() => probe.session.provider?.baseUrl === 'https://named.example.com', 'named wins');
  });
});
