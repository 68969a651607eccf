// A browser test with the kit's web-test-runner commands: the page under test is this one, the person acts in the
// consent popup from the server side, and Bob signs from the emailed link.
import { expect, waitUntil } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/index.js';
import type { EsignPageConfig } from '@esign-elements/testing/web-test-runner';

describe('<esign-connect> with the test kit in web-test-runner', () => {
  it('Alice connects through the consent popup', async () => {
    const esign = (await executeServerCommand('esign-services')) as EsignPageConfig;
    document.body.innerHTML = `<esign-connect ${esign.connectAttributes}></esign-connect>`;
    const connect = document.querySelector('esign-connect')!;
    await executeServerCommand('esign-sign-in', { person: 'alice' });
    await waitUntil(() => connect.shadowRoot?.textContent?.includes('Connected as Alice Tan'), 'connected', { timeout: 10_000 });
    expect(connect.status).to.equal('connected');
    expect(connect.session?.spaceId).to.equal('space_acme');
  });

  it('a declined consent is the error the page shows', async () => {
    document.body.innerHTML = '';
    const esign = (await executeServerCommand('esign-services')) as EsignPageConfig;
    document.body.innerHTML = `<esign-connect ${esign.connectAttributes} storage="memory"></esign-connect>`;
    const connect = document.querySelector('esign-connect')!;
    await executeServerCommand('esign-sign-in', { person: 'bob', decision: 'deny' });
    await waitUntil(() => connect.status === 'error', 'declined', { timeout: 10_000 });
    expect(connect.error?.code).to.equal('access_denied');
  });
});
