/**
 * The token proxy's process stopped and started again (issue 51): the real CLI (`esign-token-proxy`) on a Redis store,
 * stopped by the test's services as an operator would, while the page loads with the README's four tags. Each element
 * names the token proxy (words and `esign-error`'s `hop`), never "offline"; the views and the connect recover by
 * themselves within the backoff's first minute, no click; the uploader promises nothing, and its Retry works once the
 * proxy is back, on the session that outlived the process (its sealed cookie, opened by the same key).
 */
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/esign-connect.js';
import '../../src/esign-contract-list.js';
import '../../src/esign-signing-frame.js';
import '../../src/esign-uploader.js';
import { EsignClient } from '../../src/core/service/client.js';
import { UNREACHABLE_RETRY } from '../../src/core/service/unreachable.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignContractList } from '../../src/elements/embedded-view/esign-contract-list.js';
import type { EsignSigningFrame } from '../../src/elements/embedded-view/esign-signing-frame.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import type { EsignErrorDetail } from '../../src/elements/shared/events.js';
import { cfg, clearSession, clickIn, connectAs, mount, once, personStep, shadowText, until } from './helpers.js';

/** The longest the backoff's first minute takes to try again (the sum of its ceilings up to a minute), plus a Url's time. */
const FIRST_MINUTE_MS = 60_000 + UNREACHABLE_RETRY.maxDelayMs;
const errorText = (el: Element) => (el.shadowRoot?.querySelector('[part~="error"]')?.textContent ?? '').replace(/\s+/g, ' ');
/** Stops or starts the CLI's process; answers its token endpoint. */
const cliProxy = (action: 'start' | 'stop') => personStep<{ tokenEndpoint: string }>('esign-cli-proxy', { action });

describe('the token proxy process stopped and started again', () => {
  afterEach(async () => {
    await cliProxy('start');
    await clearSession();
  });

  it('each of the four tags names the token proxy, and the views and connect recover by themselves', async function () {
    this.timeout(FIRST_MINUTE_MS + 120_000);
    const { tokenEndpoint } = await cliProxy('start');
    const settings = { clientId: cfg.clientId, baseUrl: cfg.baseUrl, redirectUri: cfg.callbackUrl };
    const connectAttrs = {
      'client-id': settings.clientId,
      'base-url': settings.baseUrl,
      'token-endpoint': tokenEndpoint,
      'redirect-uri': settings.redirectUri,
    };

    // a first visit: the person connects through the CLI's proxy, and a file is uploaded for the signing frame
    const first = await mount('esign-connect', { ...connectAttrs, storage: 'indexeddb' });
    await connectAs(first, { spaceId: 'space_acme' });
    const client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: first });
    const { data } = await client.uploadFiles([{ FileName: 'restart.pdf', FileBody: btoa('%PDF-1.4 restart') }]);
    const fileId = data.Files[0]!.FileId;
    first.remove();

    // the proxy's process stops; the page loads again (the connect restores from IndexedDB, its token must come from the proxy)
    await cliProxy('stop');
    const errors = new Map<string, EsignErrorDetail[]>();
    const wrapper = await fixture(
      html`<div
        @esign-error=${(event: CustomEvent<EsignErrorDetail>) => {
          const tag = (event.target as Element).localName;
          errors.set(tag, [...(errors.get(tag) ?? []), event.detail]);
        }}
      >
        <esign-connect id="restart" client-id=${settings.clientId} base-url=${settings.baseUrl} token-endpoint=${tokenEndpoint} redirect-uri=${settings.redirectUri} storage="indexeddb"></esign-connect>
        <esign-uploader connect="restart"></esign-uploader>
        <esign-contract-list connect="restart"></esign-contract-list>
        <esign-signing-frame connect="restart" file-ids=${fileId} auto></esign-signing-frame>
      </div>`,
    );
    const connect = wrapper.querySelector('esign-connect') as EsignConnect;
    const up = wrapper.querySelector('esign-uploader') as EsignUploader;
    const list = wrapper.querySelector('esign-contract-list') as EsignContractList;
    const frame = wrapper.querySelector('esign-signing-frame') as EsignSigningFrame;
    // the stored session is read first (no proxy needed for that): an upload asked before then is refused with
    // `no_session` (seen in WebKit on a loaded machine), which is not what this test is about
    await until(() => connect.status === 'connected', 'esign-connect shows the stored session');
    const upFailed = once(up, 'esign-error');
    void up.upload([new File(['%PDF-1.4 while down'], 'down.pdf', { type: 'application/pdf' })]).catch(() => undefined);

    for (const view of [list, frame]) {
      await until(() => view.status === 'error', `${view.localName} fails`, { timeout: 15_000 });
      await view.updateComplete;
      const words = errorText(view);
      expect(words, view.localName).to.contain('token proxy cannot be reached');
      expect(words, view.localName).to.contain('by itself');
      expect(words, view.localName).not.to.contain('offline');
      expect(errors.get(view.localName)?.[0]?.hop, view.localName).to.equal('token-proxy');
    }
    expect(navigator.onLine).to.equal(true);
    expect((await upFailed).detail.hop).to.equal('token-proxy');
    await up.updateComplete;
    expect(shadowText(up)).to.contain('Could not reach the token proxy');
    expect(shadowText(up), 'the uploader promises no return').not.to.contain('by itself');
    // the account stays, with a note; never "signed out" or "offline" because a server is down
    expect(connect.status).to.equal('connected');
    expect(connect.session?.spaceId).to.equal('space_acme');
    await until(() => shadowText(connect).includes('The token proxy cannot be reached'), 'esign-connect notes the proxy is down');
    expect(shadowText(connect)).not.to.contain('offline');
    expect((errors.get('esign-connect') ?? []).every((detail) => detail.hop === 'token-proxy')).to.equal(true);

    // the process starts again (same port, key and store): no click, no online event
    const listLoaded = once(list, 'esign-view-loaded');
    const frameLoaded = once(frame, 'esign-view-loaded');
    const refreshed = once(connect, 'esign-session-refreshed');
    const back = performance.now();
    await cliProxy('start');
    const timeout = until(() => false, 'the views and connect recover by themselves', { timeout: FIRST_MINUTE_MS });
    await Promise.race([Promise.all([listLoaded, frameLoaded, refreshed]), timeout]);
    console.log(`recovered ${Math.round(performance.now() - back)} ms after the CLI was started again`);
    expect(list.status).to.equal('loaded');
    expect(frame.status).to.equal('loaded');
    await until(() => !shadowText(connect).includes('cannot be reached'), 'the note goes by itself');
    expect(connect.session?.spaceId, 'the session outlived the process').to.equal('space_acme');

    // the uploader's row: the person's Retry uploads it, on the same session
    const uploaded = once(up, 'esign-upload-complete');
    const retry = 'button[aria-label="Retry down.pdf"]';
    expect(up.shadowRoot!.querySelector(retry), 'a Retry beside the failed row').not.to.equal(null);
    await clickIn(up, retry);
    const { detail } = await uploaded;
    expect(detail.files.map((file) => file.FileName)).to.include('down.pdf');
  });
});
