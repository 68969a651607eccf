import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import '../src/index.js';
import { EsignClient } from '../src/core/service/client.js';
import type { EsignConnect } from '../src/elements/connect/esign-connect.js';
import { demo } from './demo-config.js';
import { defineDemoSession } from './demo-session.js';

defineDemoSession();

const meta: Meta = {
  title: 'Guides/Full flow',
  parameters: { layout: 'padded' },
};

export default meta;

const note = (text: ReturnType<typeof html>) => html`<p style="font: 13px system-ui; opacity: 0.8; max-width: 70ch; margin: 0">${text}</p>`;

/**
 * The four tags and their attributes, no script: connect (Alice, any Space), drop a PDF, initiate the
 * envelope in the embedded page (add a signer, Send), then follow it in the contract list.
 */
export const AllFourTags: StoryObj = {
  render: () => html`
    <div style="display: grid; gap: 1.25rem">
      ${note(html`Log in as <code>alice@example.com</code> / <code>alice-password</code>. Signers you add receive a signing link in the
        <a href=${demo.outbox} target="_blank" rel="noopener">emulator's outbox</a>.`)}
      <esign-connect id="esign" client-id=${demo.clientId} base-url=${demo.baseUrl} token-endpoint=${demo.tokenEndpoint}></esign-connect>
      <esign-uploader id="up" connect="esign" persist-key="full-flow"></esign-uploader>
      <esign-signing-frame connect="esign" uploader="up" auto></esign-signing-frame>
      <esign-contract-list connect="esign"></esign-contract-list>
    </div>
  `,
};

const connectedPage = () => html`
  <div style="display: grid; gap: 1.25rem; max-width: 56rem">
    <esign-demo-session id="esign-dark"></esign-demo-session>
    <esign-uploader id="up-dark" connect="esign-dark" persist-key="dark-host" multiple></esign-uploader>
    <esign-signing-frame connect="esign-dark" uploader="up-dark" auto></esign-signing-frame>
    <esign-contract-list connect="esign-dark"></esign-contract-list>
  </div>
`;

/**
 * Across tabs: open this story in a second tab (or window) of the same browser. Upload a file in each, then send an
 * envelope in one: the other tab marks the envelope's files sent (if it holds them) and loads its contract list again,
 * with no script (the two tabs follow the same service and Space). Disconnect in a tab with a real sign-in and the
 * other shows it too.
 */
export const AcrossTabs: StoryObj = {
  render: () => html`
    <div style="display: grid; gap: 1.25rem; max-width: 56rem">
      ${note(html`Open this page in a second tab. A Send in one tab shows in the other: files marked sent, the contract list loaded again.`)}
      <esign-demo-session id="esign-tabs"></esign-demo-session>
      <esign-uploader id="up-tabs" connect="esign-tabs" persist-key="across-tabs" multiple></esign-uploader>
      <esign-signing-frame connect="esign-tabs" uploader="up-tabs" auto></esign-signing-frame>
      <esign-contract-list connect="esign-tabs"></esign-contract-list>
    </div>
  `,
};

/** The same elements on a page that asks for dark (`color-scheme: dark`): they follow the page, not the OS. */
export const DarkHostPage: StoryObj = {
  parameters: { host: 'dark' },
  render: connectedPage,
};

/**
 * A right-to-left page (`dir="rtl"`): the elements follow the page's direction (their styles use logical
 * properties: start and end, not left and right), so icons, buttons, file rows and cards mirror.
 */
export const RightToLeftPage: StoryObj = {
  render: () => html`<div dir="rtl">${connectedPage()}</div>`,
};

/** The same elements on a light page (no color-scheme), whatever the operating system prefers. */
export const LightHostPage: StoryObj = {
  parameters: { host: 'light' },
  render: connectedPage,
};

/**
 * Designated Space Mode: an admin pre-adds a member (members/add makes them pending and emails an
 * invitation), then the member connects with `space-id` and `login-hint`: the consent page asks for no
 * Space, and agreeing makes the membership active.
 */
export const DesignatedSpaceMode: StoryObj = {
  render: () => {
    const invite = async (event: Event): Promise<void> => {
      const button = event.currentTarget as HTMLButtonElement;
      const root = button.closest('section')!;
      const admin = root.querySelector<EsignConnect>('#space-admin')!;
      const status = root.querySelector<HTMLElement>('#invite-status')!;
      const spaceId = admin.session?.spaceId;
      if (!spaceId) {
        status.textContent = 'Connect as the admin first.';
        return;
      }
      try {
        const client = new EsignClient({ baseUrl: demo.baseUrl, tokens: admin });
        const { data, requestId } = await client.addMember({ Email: 'carol@example.com', Name: 'Carol Wong' });
        status.textContent = `Carol is ${data.Status} in Space ${spaceId} (RequestId ${requestId}).`;
        const member = root.querySelector<EsignConnect>('#space-member')!;
        member.spaceId = spaceId;
        member.hidden = false;
      } catch (error) {
        status.textContent = `Could not add the member: ${(error as Error).message}`;
      }
    };
    return html`
      <section style="display: grid; gap: 1rem; font: 14px system-ui; max-width: 60rem">
        ${note(html`<strong>1.</strong> The integrator's admin connects (Alice, <code>alice-password</code>, choose
          <em>Acme Legal</em>) and pre-adds Carol to that Space.`)}
        <esign-connect id="space-admin" client-id=${demo.clientId} base-url=${demo.baseUrl} token-endpoint=${demo.tokenEndpoint}></esign-connect>
        <div><button type="button" @click=${invite}>Pre-add carol@example.com</button> <span id="invite-status" role="status"></span></div>
        ${note(html`<strong>2.</strong> Carol connects in Designated Space Mode: log in as <code>carol@example.com</code> /
          <code>carol-password</code>; there is no Space to choose.`)}
        <esign-connect
          id="space-member"
          hidden
          client-id=${demo.clientId}
          base-url=${demo.baseUrl}
          token-endpoint=${demo.tokenEndpoint}
          login-hint="carol@example.com"
          storage="memory"
        ></esign-connect>
      </section>
    `;
  },
};
