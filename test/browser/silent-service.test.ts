/**
 * A server in front of the service that accepts connections and never answers (issue 51). The client with its own
 * timeout set short; then each element with its `request-timeout` set short: the views and the uploader tell the
 * service as the one that cannot be reached (words, `esign-error` with `hop: 'service'`), the views open by themselves
 * when it answers again, the uploader's row fails alone (the other rows go on) and its Retry uploads; `<esign-connect>`
 * makes no call to the service and keeps its account. Every wait is for an element's state or event, bounded by the
 * elements' own settings.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { expect } from '@open-wc/testing';
import '../../src/esign-connect.js';
import '../../src/esign-contract-list.js';
import '../../src/esign-signing-frame.js';
import '../../src/esign-uploader.js';
import { EsignClient } from '../../src/core/service/client.js';
import { UNREACHABLE_RETRY, unreachable } from '../../src/core/service/unreachable.js';
import { UPLOAD_RETRY_POLICY } from '../../src/core/upload/transport.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import type { EsignErrorDetail } from '../../src/elements/shared/events.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { cfg, connectAs, mount, mountView, once, shadowText, until } from './helpers.js';

const silent = (on: boolean) => executeServerCommand('esign-service-silent', { silent: on });
/** The client's and the elements' request timeout in this test: short, and the only wait for an answer. */
const TIMEOUT_MS = 1_500;
/**
 * The longest a view takes to open once the service answers: the backoff's cap (the try that was under way as the
 * server came back ends at once: its connection is reset) and a try of its own.
 */
const VIEW_RECOVERS_MS = UNREACHABLE_RETRY.maxDelayMs + TIMEOUT_MS + 10_000;
/** The longest an upload takes to fail against a silent server: each try's timeout, and the longest backoff between them. */
const UPLOAD_GIVES_UP_MS = (UPLOAD_RETRY_POLICY.retries + 1) * TIMEOUT_MS + (2 ** UPLOAD_RETRY_POLICY.retries - 1) * UPLOAD_RETRY_POLICY.baseDelayMs + 10_000;

const errorText = (el: Element) => (el.shadowRoot?.querySelector('[part~="error"]')?.textContent ?? '').replace(/\s+/g, ' ');
const pdf = (name: string) => new File([`%PDF-1.4 ${name}`], name, { type: 'application/pdf' });

describe('the service never answers', () => {
  let connect: EsignConnect;
  /** esign-error events <esign-connect> sent while the service was silent (it calls only the token proxy). */
  const connectErrors: EsignErrorDetail[] = [];
  before(async () => {
    // the session's base-url is the server in front of the service; the sign-in goes through the token proxy
    connect = await mount(
      'esign-connect',
      {
        id: 'silent',
        'client-id': cfg.clientId,
        'base-url': cfg.silentBaseUrl,
        'token-endpoint': cfg.tokenEndpoint,
        'redirect-uri': cfg.callbackUrl,
        storage: 'memory',
      },
      { parent: document.body },
    );
    await connectAs(connect, { spaceId: 'space_acme' });
    connect.addEventListener('esign-error', (event) => {
      if (event.target === connect) connectErrors.push(event.detail);
    });
  });
  afterEach(() => silent(false));
  after(() => connect.remove());

  it('a call ends at the client timeout, told as the service; the same client works when it answers', async () => {
    const client = new EsignClient({ baseUrl: cfg.silentBaseUrl, tokens: connect, timeoutMs: TIMEOUT_MS, retry: false });
    await client.signatureStatusView();

    await silent(true);
    const start = performance.now();
    const error = (await client.signatureStatusView().catch((caught: EsignError) => caught)) as EsignError;
    const took = performance.now() - start;
    expect(error.code).to.equal('timeout');
    expect(took, `ended after ${Math.round(took)} ms`).to.be.at.least(TIMEOUT_MS - 50);
    expect(unreachable(error, navigator.onLine)).to.equal('service');
    expect(error.message).to.contain(`${TIMEOUT_MS} ms`);

    await silent(false);
    const { data } = await client.signatureStatusView();
    expect(data.Url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/embedded\//);
  });

  for (const tag of ['esign-contract-list', 'esign-signing-frame'] as const) {
    it(`${tag} with request-timeout: names the service at that time, and opens by itself when it answers`, async function () {
      this.timeout(2 * TIMEOUT_MS + VIEW_RECOVERS_MS + 20_000);
      // FileIds for the signing frame, uploaded while the service answers
      let fileIds = '';
      if (tag === 'esign-signing-frame') {
        const up = await mount('esign-uploader', { connect: 'silent', id: keptNowhere() });
        const [file] = await up.upload([pdf('frame.pdf')]);
        fileIds = file!.FileId;
      }
      await silent(true);
      const attrs: Record<string, string> = { connect: 'silent', 'request-timeout': String(TIMEOUT_MS), 'allowed-origins': cfg.baseUrl };
      if (tag === 'esign-signing-frame') Object.assign(attrs, { 'file-ids': fileIds, auto: '' });
      const { el, events } = await mountView(tag, attrs);
      await until(() => el.status === 'requesting', `${tag} asks for its Url`, { timeout: 10_000, interval: 5 });
      const start = performance.now();
      await until(() => el.status === 'error', `${tag} tells the silence`, { timeout: TIMEOUT_MS + 10_000, interval: 5 });
      const took = performance.now() - start;
      // one try, ended by the element's own setting: no retries of a client stacked under the element's (four tries, 6 s at least here)
      expect(took, `told after ${Math.round(took)} ms`).to.be.below(3 * TIMEOUT_MS);
      const failed = events.find((event) => event.type === 'esign-error')!.detail as EsignErrorDetail;
      expect(failed.hop).to.equal('service');
      expect(failed.error.code).to.equal('view_failed');
      expect((failed.error.cause as EsignError | undefined)?.code).to.equal('timeout');
      expect(failed.error.message).to.contain(`within ${TIMEOUT_MS} ms`);
      expect(errorText(el)).to.contain('e-signature service cannot be reached');
      expect(errorText(el)).to.contain('by itself');
      expect(errorText(el)).not.to.contain('offline');

      const loaded = once(el, 'esign-view-loaded');
      const back = performance.now();
      await silent(false);
      await Promise.race([loaded, until(() => false, `${tag} opens by itself`, { timeout: VIEW_RECOVERS_MS })]);
      console.log(`${tag}: told after ${Math.round(took)} ms; opened ${Math.round(performance.now() - back)} ms after the server answered`);
      expect(el.status).to.equal('loaded');
      expect(errorText(el)).to.equal('');
    });
  }

  it('esign-uploader with request-timeout: the row says the service did not answer, the others go on, Retry uploads', async function () {
    this.timeout(UPLOAD_GIVES_UP_MS + 40_000);
    const errors: EsignErrorDetail[] = [];
    const up = await mount(
      'esign-uploader',
      { connect: 'silent', id: keptNowhere(), multiple: '', 'request-timeout': String(TIMEOUT_MS) },
      { before: (created) => created.addEventListener('esign-error', (e) => errors.push(e.detail)) },
    );
    await up.upload([pdf('before.pdf')]);

    await silent(true);
    void up.upload([pdf('silent.pdf')]).catch(() => undefined);
    const row = (name: string) => up.files.find((item) => item.FileName === name);
    await until(() => row('silent.pdf')?.status === 'failed', 'the row fails', { timeout: UPLOAD_GIVES_UP_MS });
    expect(errors).to.have.length(1);
    expect(errors[0]!.hop).to.equal('service');
    expect(errors[0]!.error.code).to.equal('upload_failed');
    expect((errors[0]!.error.cause as EsignError | undefined)?.code).to.equal('timeout');
    await up.updateComplete;
    expect(rowText(up, 'silent.pdf')).to.contain('Failed: the e-signature service did not answer');
    expect(shadowText(up)).not.to.contain('by itself');
    expect(row('before.pdf')?.status, 'the file uploaded before stays uploaded').to.equal('done');

    // the server answers again: a new file goes, the failed row keeps its words until the person retries it
    await silent(false);
    await up.upload([pdf('after.pdf')]);
    expect(row('after.pdf')?.status).to.equal('done');
    expect(row('silent.pdf')?.status).to.equal('failed');
    await up.retry(row('silent.pdf')!.key);
    expect(row('silent.pdf')?.status).to.equal('done');
    expect(up.fileIds).to.have.length(3);
  });

  it('esign-connect makes no call to the service: it keeps its account and says nothing while it is silent', async () => {
    await silent(true);
    const { el } = await mountView('esign-contract-list', { connect: 'silent', 'request-timeout': String(TIMEOUT_MS), 'allowed-origins': cfg.baseUrl });
    await until(() => el.status === 'error', 'the list tells the silence', { timeout: TIMEOUT_MS + 10_000 });
    await connect.updateComplete;
    expect(connect.status).to.equal('connected');
    expect(shadowText(connect)).not.to.contain('cannot be reached');
    expect(connectErrors).to.deep.equal([]);
  });
});

/** An uploader id no earlier run kept uploads under (its kept FileIds would be restored into its list). */
function keptNowhere(): string {
  return `silent-up-${crypto.randomUUID()}`;
}

/** The text of the uploader's row for the file `name`. */
function rowText(up: EsignUploader, name: string): string {
  const rows = [...(up.shadowRoot?.querySelectorAll('[part~="file"]') ?? [])];
  return (rows.find((li) => li.textContent?.includes(name))?.textContent ?? '').replace(/\s+/g, ' ');
}
