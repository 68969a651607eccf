import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand, sendMouse } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { cfg, clearSession, clickIn, connectAs, emulatorCounters, fault, mountConnect, once, personStep, shadowText, until } from './helpers.js';

async function embeddedStatus(token: string): Promise<number> {
  const res = await fetch(`${cfg.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  return res.status;
}

/** Records each token request `win` makes (forced or not) and its answer's status into `trace`; returns the undo. */
function observeTokenRequests(win: Window, page: string, trace: string[]): () => void {
  const original = win.fetch;
  win.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(cfg.tokenEndpoint)) return original.call(win, input, init);
    // the frame's URLSearchParams is of its own realm: read the form as text
    const forced = new URLSearchParams(String(init?.body ?? '')).get('force') === '1';
    trace.push(`${page} asks the proxy (force ${String(forced)})`);
    const response = await original.call(win, input, init);
    trace.push(`${page} gets ${response.status}`);
    return response;
  };
  return () => {
    win.fetch = original;
  };
}

describe('<esign-connect>', () => {
  beforeEach(async () => {
    await executeServerCommand('esign-reset');
  });
  afterEach(async () => {
    await clearSession();
  });

  it('renders an accessible connect button and no session at first', async () => {
    const el = await mountConnect();
    const button = el.shadowRoot!.querySelector('button')!;
    expect(button.textContent).to.contain('Connect e-signature account');
    expect(el.session).to.equal(undefined);
    expect(el.status).to.equal('idle');
    await expect(el).shadowDom.to.be.accessible();
    const error = await el.getAccessToken().catch((e: EsignError) => e);
    expect((error as EsignError).code).to.equal('no_session');
  });

  it('connects in a popup opened from the click, in Open Mode with a Space choice', async () => {
    const el = await mountConnect();
    const session = await connectAs(el, { spaceId: 'space_alice' });
    expect(session.spaceId).to.equal('space_alice');
    expect(session.scope).to.include('envelope:create');
    expect(session.expiresAt.getTime()).to.be.greaterThan(Date.now() + 30 * 60_000);
    expect(el.status).to.equal('connected');
    // the session manager on main adds the service's names (userName, spaceName); without them the bar says "Connected"
    expect(shadowText(el)).to.match(/Connected( as Alice Tan)?/);
    const token = await el.getAccessToken();
    expect(await embeddedStatus(token)).to.equal(200);
    // the session never exposes a token
    expect(JSON.stringify(el.session)).not.to.contain(token);
  });

  it('reports a denied consent as access_denied and shows it', async () => {
    const el = await mountConnect();
    const errorEvent = once(el, 'esign-error');
    await clickIn(el, 'button');
    await personStep('esign-consent', { spaceId: 'space_acme', action: 'deny' });
    const { detail } = await errorEvent;
    expect(detail.error.code).to.equal('access_denied');
    await el.updateComplete;
    expect(el.status).to.equal('error');
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.match(/declined|denied/i);
  });

  it('keeps its outcome as state for code that listens late: status, error and session', async () => {
    // nobody listens while the user answers (a framework that attaches its listeners after the first render)
    const el = await mountConnect();
    await clickIn(el, 'button');
    await personStep('esign-consent', { spaceId: 'space_acme', action: 'deny' });
    await until(() => el.status === 'error', 'the outcome');
    expect(el.error!.code).to.equal('access_denied');
    expect(el.session).to.equal(undefined);
    // a later success replaces it (the error state's button tries again)
    await clickIn(el, 'button');
    await personStep('esign-consent', { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme' });
    await until(() => el.status === 'connected', 'connected', { timeout: 10_000 });
    expect(el.error).to.equal(undefined);
    expect(el.session!.spaceId).to.equal('space_acme');
  });

  it('leaves the connecting state with popup_closed when the user closes the popup', async () => {
    const el = await mountConnect();
    const errorEvent = once(el, 'esign-error');
    await clickIn(el, 'button');
    await until(() => el.status === 'connecting');
    await personStep('esign-close-consent');
    const { detail } = await errorEvent;
    expect(detail.error.code).to.equal('popup_closed');
    expect(el.status).to.equal('error');
  });

  it('says so when the popup is blocked and offers to continue in this tab', async () => {
    const el = await mountConnect();
    // no user gesture: Chromium's popup blocker refuses the window
    const error = await el.connect().catch((e: EsignError) => e);
    expect((error as EsignError).code).to.equal('popup_blocked');
    await el.updateComplete;
    expect(shadowText(el)).to.match(/blocked/i);
    const fallback = el.shadowRoot!.querySelector('[part~="fallback"]');
    expect(fallback?.textContent).to.contain('Continue in this tab');
  });

  it('refuses a callback whose state it never issued, and removes the code from the address bar', async () => {
    const frame = document.createElement('iframe');
    frame.src = `${cfg.callbackUrl}?code=forged-code&state=forged-state#redirect`;
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    document.body.append(frame);
    await loaded;
    const inner = () => frame.contentDocument!.querySelector('esign-connect') as EsignConnect | null;
    await until(() => inner()?.status === 'error', 'the fixture shows an error', { timeout: 5000 });
    expect(inner()!.error!.code).to.equal('state_mismatch');
    expect(frame.contentWindow!.location.search).to.equal('');
    frame.remove();
  });

  it('connects with a full-page redirect and the tab that opened it adopts the session', async () => {
    const el = await mountConnect();
    // a second tab of the same site, opened by a click, using redirect mode
    const opener = document.createElement('button');
    opener.textContent = 'open tab';
    let tab: Window | null = null;
    opener.addEventListener('click', () => (tab = window.open(`${cfg.callbackUrl}#redirect`, 'redirect-tab')));
    document.body.append(opener);
    const rect = opener.getBoundingClientRect();
    await sendMouse({ type: 'click', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)] });
    try {
      await until(() => (tab?.document.querySelector('esign-connect') as EsignConnect | null)?.status === 'idle', 'tab ready', { timeout: 5000 });
      const adopted = once(el, 'esign-connected');
      void (tab!.document.querySelector('esign-connect') as EsignConnect).connect();
      await personStep('esign-consent', { spaceId: 'space_acme' });
      await until(
        () => {
          try {
            return (tab!.document.querySelector('esign-connect') as EsignConnect | null)?.status === 'connected';
          } catch {
            return false; // still on the emulator's origin
          }
        },
        'the redirect tab completes the sign-in',
        { timeout: 10000 },
      );
      expect(tab!.location.search, 'the code is gone from the address bar').to.equal('');
      const { detail } = await adopted;
      expect(detail.session.spaceId).to.equal('space_acme');
      expect(detail.restored).to.equal(true);
    } finally {
      (tab as Window | null)?.close();
      opener.remove();
    }
  });

  it('refreshes on demand, and two pages racing to refresh make one refresh request', async () => {
    const el = await mountConnect();
    await connectAs(el, { spaceId: 'space_acme' });
    const first = await el.getAccessToken();

    const refreshed = once(el, 'esign-session-refreshed');
    const before = await emulatorCounters();
    const second = await el.getAccessToken({ forceRefresh: true });
    expect((await refreshed).detail.byOtherTab).to.equal(false);
    expect(second).not.to.equal(first);
    expect((await emulatorCounters())['grant:refresh_token'] ?? 0).to.equal((before['grant:refresh_token'] ?? 0) + 1);

    // a second page of the same origin restores the session from IndexedDB
    const frame = document.createElement('iframe');
    frame.src = `${cfg.callbackUrl}#popup`;
    document.body.append(frame);
    await until(() => (frame.contentDocument?.querySelector('esign-connect') as EsignConnect | null)?.status === 'connected', 'second page restored', {
      timeout: 5000,
    });
    const other = frame.contentDocument!.querySelector('esign-connect') as EsignConnect;

    // what decides the race, kept for the failure message (seen twice in CI as two refreshes, never reproduced alone):
    // each page's refreshed events in order, and whether it took the other page's refresh
    const trace: string[] = [];
    const watch = (page: string) => (event: Event) =>
      trace.push(`${page} refreshed (byOtherTab ${String((event as CustomEvent<{ byOtherTab: boolean }>).detail.byOtherTab)})`);
    const watchPage = watch('page');
    const watchFrame = watch('frame');
    el.addEventListener('esign-session-refreshed', watchPage);
    other.addEventListener('esign-session-refreshed', watchFrame);
    // each page's requests to the proxy's token route, observed (passed through unchanged): whether it forced, and
    // which page went first under the lock
    const restoreFetch = [observeTokenRequests(window, 'page', trace), observeTokenRequests(frame.contentWindow!, 'frame', trace)];
    const mid = await emulatorCounters();
    const [a, b] = await Promise.all([el.getAccessToken({ forceRefresh: true }), other.getAccessToken({ forceRefresh: true })]);
    const after = await emulatorCounters();
    for (const restore of restoreFetch) restore();
    el.removeEventListener('esign-session-refreshed', watchPage);
    other.removeEventListener('esign-session-refreshed', watchFrame);
    expect(
      (after['grant:refresh_token'] ?? 0) - (mid['grant:refresh_token'] ?? 0),
      `refresh requests at the service for two racing pages; in order: ${trace.join(', ')}; tokens ${a === b ? 'equal' : 'differ'}`,
    ).to.equal(1);
    expect(a).to.equal(b);
    expect(await embeddedStatus(a)).to.equal(200);
    frame.remove();
  });

  it('disconnect revokes the grant, clears storage and tells listeners', async () => {
    const el = await mountConnect();
    await connectAs(el, { spaceId: 'space_acme' });
    const token = await el.getAccessToken();
    const gone = once(el, 'esign-disconnected');
    await el.disconnect();
    expect((await gone).detail.reason).to.equal('user');
    expect(el.status).to.equal('idle');
    expect(await embeddedStatus(token)).to.equal(401);
    el.remove();
    const fresh = await mountConnect();
    // getAccessToken answers once the element has read the storage: nothing is left to resume
    const error = await fresh.getAccessToken().catch((e: EsignError) => e);
    expect((error as EsignError).code).to.equal('no_session');
    expect(fresh.session).to.equal(undefined);
    expect(fresh.status).to.equal('idle');
  });

  it('ends the session with session_expired when the grant was revoked elsewhere', async () => {
    const el = await mountConnect({ storage: 'memory' });
    await connectAs(el, { spaceId: 'space_acme' });
    // the refresh token's lifetime (30 days) passes on the emulator's clock
    await executeServerCommand('esign-advance-clock', { seconds: 31 * 24 * 3600 });
    const gone = once(el, 'esign-disconnected');
    const error = await el.getAccessToken({ forceRefresh: true }).catch((e: EsignError) => e);
    expect((error as EsignError).code).to.equal('session_expired');
    expect((await gone).detail.reason).to.equal('expired');
    await el.updateComplete;
    expect(shadowText(el)).to.match(/expired/i);
  });

  it('ends the session with refresh_interrupted when a refresh was lost after the service rotated its token', async () => {
    const el = await mountConnect({ storage: 'memory' });
    await connectAs(el, { spaceId: 'space_acme' });
    // the service rotates the refresh token, then the proxy loses the connection before the answer: the outcome is
    // unknown to it; the element's retry (same request id) sends the rotated token, and this service has no reuse grace
    await fault({ path: '/openapi/v1/oauth/token', kind: 'drop', after: true });
    const gone = once(el, 'esign-disconnected');
    const error = await el.getAccessToken({ forceRefresh: true }).catch((e: EsignError) => e);
    expect((error as EsignError).code).to.equal('refresh_interrupted');
    expect((error as EsignError).serviceCode).to.equal('refresh_interrupted');
    expect((await gone).detail.reason).to.equal('expired');
    await el.updateComplete;
    expect(shadowText(el)).to.match(/interrupted/i);
    expect(shadowText(el)).to.match(/Connect again/);
    expect(el.shadowRoot!.querySelector('button')!.textContent).to.contain('Connect e-signature account');
  });

  it('connects in Designated Space Mode without a Space choice, after the member is pre-added', async () => {
    const admin = await mountConnect({ storage: 'memory' });
    await connectAs(admin, { spaceId: 'space_acme' });
    const added = await fetch(`${cfg.baseUrl}/openapi/v1/members/add`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await admin.getAccessToken()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Email: 'carol@example.com', Name: 'Carol Wong' }),
    });
    const body = (await added.json()) as { Response: { Data: { Status: string } } };
    expect(body.Response.Data.Status).to.equal('pending');
    await admin.disconnect();
    admin.remove();

    const el = await mountConnect({ 'space-id': 'space_acme', 'login-hint': 'carol@example.com' });
    const session = await connectAs(el, { email: 'carol@example.com', password: 'carol-password' });
    expect(session.spaceId).to.equal('space_acme');
  });

  it('reports a bad attribute as invalid_config and renders the error, never throwing from a setter', async () => {
    const el = await mountConnect();
    const errorEvent = once(el, 'esign-error');
    expect(() => el.setAttribute('mode', 'sideways')).not.to.throw();
    const { detail } = await errorEvent;
    expect(detail.error.code).to.equal('invalid_config');
    await el.updateComplete;
    expect(el.status).to.equal('error');
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain('mode');
  });

  it('refuses a plain-http token endpoint that is not loopback', async () => {
    const errorEvent = new Promise<CustomEvent>((resolve) => document.addEventListener('esign-error', (e) => resolve(e as CustomEvent), { once: true }));
    await fixture(html`<esign-connect client-id="x" base-url=${cfg.baseUrl} token-endpoint="http://example.com/token"></esign-connect>`);
    const event = await errorEvent;
    expect(event.detail.error.code).to.equal('invalid_config');
    expect(event.detail.error.message).to.contain('https');
  });

  it('speaks the language of the nearest lang attribute, then the document, and follows changes', async () => {
    const wrapper = await fixture(html`<div lang="zh-CN">
      <esign-connect client-id=${cfg.clientId} base-url=${cfg.baseUrl} token-endpoint=${cfg.tokenEndpoint} storage="memory"></esign-connect>
    </div>`);
    const el = wrapper.querySelector('esign-connect') as EsignConnect;
    // the Chinese table is its own chunk, loaded when a lang first asks for it
    await until(() => shadowText(el).includes('连接电子签名账户'), 'speaks Chinese');
    wrapper.setAttribute('lang', 'ms');
    await until(() => shadowText(el).includes('Sambungkan akaun e-tandatangan'), 'switches to Malay');
    wrapper.removeAttribute('lang');
    document.documentElement.lang = 'zh-Hans-SG';
    try {
      await until(() => shadowText(el).includes('连接电子签名账户'), 'falls back to the document language');
    } finally {
      document.documentElement.lang = 'en';
    }
  });

  it('stays accessible in the error state', async () => {
    const el = await mountConnect();
    await el.connect().catch(() => undefined);
    await el.updateComplete;
    expect(el.status).to.equal('error');
    await expect(el).shadowDom.to.be.accessible();
  });

  it('browser-held mode: says at once that the service refused the redirect address, naming it and the registered ones', async () => {
    // (the default mode's redirect URI is the token proxy's callback, registered once by the integrator)
    const refused = `${cfg.pageOrigin}/not-registered.html`;
    const el = await fixture<EsignConnect>(html`<esign-connect
      client-id=${cfg.clientId}
      base-url=${cfg.baseUrl}
      token-endpoint=${cfg.tokenEndpoint}
      refresh-tokens="browser"
      redirect-uri=${refused}
      storage="memory"
    ></esign-connect>`);
    await el.updateComplete;
    const failed = once(el, 'esign-error');
    await clickIn(el, 'button');
    const { detail } = await failed;
    expect(detail.error.code).to.equal('oauth_error');
    expect(detail.error.serviceCode).to.equal('invalid_redirect_uri');
    expect(detail.error.message).to.contain(refused);
    expect(detail.error.message).to.contain(cfg.callbackUrl);
    await el.updateComplete;
    expect(el.status).to.equal('error');
    expect(el.shadowRoot!.querySelector('[part~="error"]')!.textContent).to.contain(refused);
  });
});
