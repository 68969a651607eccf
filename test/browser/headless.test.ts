/**
 * `esign-elements/headless`: a signing UI of the integrator's own (stories/headless-panel.ts) hosts the view
 * controller, against the emulator over HTTP: it opens the envelope page in its own frame and follows it.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import { defineMySigningPanel } from '../../stories/headless-panel.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import { cfg, connectedElement, once, until } from './helpers.js';

defineMySigningPanel();

describe('esign-elements/headless', () => {
  let connect: EsignConnect;

  before(async () => {
    await executeServerCommand('esign-reset');
    connect = await connectedElement('c', { spaceId: 'space_acme', storage: 'memory' });
  });

  after(() => connect.remove());

  it('a custom element hosts the view controller: its own look, the page in its own frame', async () => {
    const client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
    const { data } = await client.uploadFiles([{ FileName: 'own-ui.pdf', FileBody: btoa('%PDF-1.4 own ui') }]);
    const panel = document.createElement('my-signing-panel');
    panel.connect = 'c';
    document.body.append(panel);
    await panel.updateComplete;
    const pill = () => panel.shadowRoot!.querySelector('[role="status"]')!.textContent;
    const button = () => panel.shadowRoot!.querySelector('button')!;
    expect(pill()).to.equal('idle');
    expect(button().disabled, 'no FileIds yet').to.equal(true);

    panel.fileIds = data.Files.map((f) => f.FileId);
    await until(() => !button().disabled, 'the button once there are FileIds');
    const loaded = once(panel, 'esign-view-loaded');
    button().click();
    const { detail } = await loaded;
    expect(detail.origin).to.equal(new URL(cfg.baseUrl).origin);
    await until(() => pill() === 'loaded', 'the pill to say loaded');
    const frame = panel.shadowRoot!.querySelector('iframe')!;
    expect(frame.hasAttribute('src'), 'the Url never goes through an attribute').to.equal(false);
    expect(panel.shadowRoot!.innerHTML).not.to.contain('embedded_token');
    panel.remove();
  });
});
