/**
 * A server in front of the service that accepts connections and never answers (issue 51), with the client's own
 * timeout set short: the call ends with `timeout` at that time, told as the service that cannot be reached, and the
 * same client works again when the server answers. (The views make their client with the default timeout and retry
 * policy, four tries of 30 s: no setting of theirs makes it short yet, so they are not run against it here.)
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { expect } from '@open-wc/testing';
import '../../src/esign-connect.js';
import { EsignClient } from '../../src/core/service/client.js';
import { unreachable } from '../../src/core/service/unreachable.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { cfg, connectAs, mount } from './helpers.js';

const silent = (on: boolean) => executeServerCommand('esign-service-silent', { silent: on });
/** The client's timeout in this test: short, and the only wait. */
const TIMEOUT_MS = 1_500;

describe('the service never answers', () => {
  let connect: EsignConnect;
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
  });
  after(async () => {
    await silent(false);
    connect.remove();
  });

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
});
