import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import { defineMySigningPanel, type MySigningPanel } from './headless-panel.js';
import { EsignClient } from '../src/core/service/client.js';
import type { SessionProvider } from '../src/elements/shared/session-context.js';
import { demo } from './demo-config.js';
import { defineDemoSession } from './demo-session.js';

defineDemoSession();
defineMySigningPanel();

/** Uploads a one-page sample PDF to the connected Space and hands its FileId to the panel. */
async function sampleFile(panel: MySigningPanel, session: SessionProvider): Promise<void> {
  const client = new EsignClient({ baseUrl: demo.baseUrl, tokens: session });
  const pdf =
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF';
  const { data } = await client.uploadFiles([{ FileName: 'sample-contract.pdf', FileBody: btoa(pdf) }]);
  panel.fileIds = data.Files.map((f) => f.FileId);
}

const meta: Meta = {
  title: 'Headless/Custom signing UI',
  render: () => {
    queueMicrotask(() => {
      const panel = document.querySelector('my-signing-panel');
      const session = document.getElementById('esign-headless-demo') as unknown as SessionProvider | null;
      if (panel && session) void sampleFile(panel, session).catch((error: unknown) => console.info('sample upload failed', error));
    });
    return html`<esign-demo-session id="esign-headless-demo"></esign-demo-session>
      <my-signing-panel connect="esign-headless-demo"></my-signing-panel>`;
  },
};

export default meta;
type Story = StoryObj;

/** A custom Lit element hosts the view controller of `esign-elements/headless`: its own look, the library's behaviour. */
export const CustomSigningUI: Story = {};
