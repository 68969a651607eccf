import { expect, fixture, html as fhtml } from '@open-wc/testing';
import { html, LitElement } from 'lit';
import '../../src/esign-connect.js';
import { ContextConsumer } from '@lit/context';
import { SessionController } from '../../src/elements/shared/session-controller.js';
import { sessionContext } from '../../src/elements/shared/session-context.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import { cfg, until } from './helpers.js';

/** A minimal element that uses a session the way the other esign elements do. */
class SessionProbe extends LitElement {
  static override properties = { connect: {} };
  connect: string | null = null;
  readonly session = new SessionController(this);
  protected override render() {
    const provider = this.session.provider;
    return html`${provider ? `provider:${provider.baseUrl}` : 'no provider'}`;
  }
}
customElements.define('session-probe', SessionProbe);

/** A consumer as an earlier copy of the library made it: @lit/context's ContextConsumer, subscribing. */
class ContextProbe extends LitElement {
  readonly seen: unknown[] = [];
  readonly consumer = new ContextConsumer(this, { context: sessionContext, subscribe: true, callback: (value) => this.seen.push(value) });
}
customElements.define('context-probe', ContextProbe);

describe('finding the session', () => {
  it('uses the nearest <esign-connect> ancestor', async () => {
    const el =
      await fixture<EsignConnect>(fhtml`<esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"
      ><session-probe></session-probe
    ></esign-connect>`);
    const probe = el.querySelector('session-probe') as SessionProbe;
    await until(() => probe.session.provider === el, 'probe finds its ancestor');
    expect(probe.shadowRoot!.textContent).to.contain(`provider:${cfg.baseUrl}`);
  });

  it('answers a context request keyed by the string "esign-session", as a second copy of the library sends it', async () => {
    const el =
      await fixture<EsignConnect>(fhtml`<esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"
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

  it('answers a subscribing @lit/context consumer (an earlier copy of the library) with the element', async () => {
    const el =
      await fixture<EsignConnect>(fhtml`<esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"
      ><context-probe></context-probe
    ></esign-connect>`);
    const probe = el.querySelector('context-probe') as ContextProbe;
    expect(probe.seen).to.deep.equal([el]);
    expect(probe.consumer.value).to.equal(el);
    // it may let go of its subscription (it is handed an unsubscribe function) and ask again when it comes back
    probe.remove();
    el.append(probe);
    expect(probe.seen).to.deep.equal([el, el]);
    expect(probe.consumer.value).to.equal(el);
  });

  it('follows an element moved to another <esign-connect>, and out of any', async () => {
    const wrapper = await fixture(fhtml`<div>
      <esign-connect id="one" client-id="a" base-url="https://one.example.com" token-endpoint="https://one.example.com/token" storage="memory"><session-probe></session-probe></esign-connect>
      <esign-connect id="two" client-id="b" base-url="https://two.example.com" token-endpoint="https://two.example.com/token" storage="memory"></esign-connect>
    </div>`);
    const probe = wrapper.querySelector('session-probe') as SessionProbe;
    await until(() => probe.shadowRoot!.textContent!.includes('provider:https://one.example.com'), 'the first one');
    wrapper.querySelector('#two')!.append(probe);
    await until(() => probe.shadowRoot!.textContent!.includes('provider:https://two.example.com'), 'the second one');
    wrapper.append(probe);
    await until(() => probe.shadowRoot!.textContent!.includes('no provider'), 'none');
    expect(probe.session.provider).to.equal(undefined);
  });

  it('uses the nearest of two nested <esign-connect>', async () => {
    const wrapper =
      await fixture(fhtml`<esign-connect client-id="a" base-url="https://outer.example.com" token-endpoint="https://outer.example.com/token" storage="memory">
      <esign-connect client-id="b" base-url="https://inner.example.com" token-endpoint="https://inner.example.com/token" storage="memory"><session-probe></session-probe></esign-connect>
    </esign-connect>`);
    const probe = wrapper.querySelector('session-probe') as SessionProbe;
    await until(() => probe.shadowRoot!.textContent!.includes('provider:https://inner.example.com'), 'the inner one');
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
    await until(() => probe.session.provider === connect, 'probe finds the named element');
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
