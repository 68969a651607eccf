import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import '../src/esign-contract-list.js';
import { demo } from './demo-config.js';
import { defineDemoSession } from './demo-session.js';

defineDemoSession();

interface Args {
  display: 'inline' | 'popup';
  manual: boolean;
  'allowed-origins': string;
  'load-timeout': number;
  lang: string;
}

const log = (e: CustomEvent) => console.info(e.type, e.type === 'esign-error' ? e.detail.error.code : e.detail);

function page(args: Args, options: { id?: string; slots?: TemplateResult; connect?: boolean; extra?: TemplateResult; signIn?: boolean; fault?: object } = {}) {
  const id = options.id ?? 'esign-list-demo';
  return html`
    <div lang=${args.lang} style="display: grid; gap: 1rem; font: 14px system-ui">
      ${
        options.connect === false
          ? ''
          : options.signIn
            ? html`<esign-connect id=${id} client-id=${demo.clientId} base-url=${demo.baseUrl} token-endpoint=${demo.tokenEndpoint}></esign-connect>`
            : html`<esign-demo-session id=${id} fault=${ifDefined(options.fault ? JSON.stringify(options.fault) : undefined)}></esign-demo-session>`
      }
      ${options.extra ?? ''}
      <esign-contract-list
        connect=${id}
        display=${args.display}
        ?manual=${args.manual}
        allowed-origins=${ifDefined(args['allowed-origins'] || undefined)}
        load-timeout=${args['load-timeout']}
        @esign-view-ready=${log}
        @esign-view-loaded=${log}
        @esign-view-expired=${log}
        @esign-view-message=${log}
        @esign-error=${log}
        >${options.slots ?? ''}</esign-contract-list
      >
      <p style="opacity: 0.8; max-width: 70ch; margin: 0">
        ${options.signIn ? html`Connect as <code>alice@example.com</code> / <code>alice-password</code>;` : html`Connected as Alice (Acme Legal);`} envelopes sent
        from the signing frame's stories show up here.
      </p>
    </div>
  `;
}

const meta: Meta<Args> = {
  title: 'Elements/esign-contract-list',
  component: 'esign-contract-list',
  args: { display: 'inline', manual: false, 'allowed-origins': '', 'load-timeout': 15000, lang: 'en' },
  argTypes: {
    display: { control: 'inline-radio', options: ['inline', 'popup'] },
    lang: { control: 'inline-radio', options: ['en', 'zh-CN', 'ms'] },
  },
  render: (args) => page(args),
};

export default meta;
type Story = StoryObj<Args>;

/** Opens by itself once connected: the user's contracts in the connected Space. */
export const Default: Story = {};

/** With a real sign-in: click Connect, log in as Alice and choose a Space. */
export const SignIn: Story = { render: (args) => page(args, { id: 'esign-list-sign-in', signIn: true }) };

/** The Url is on its way (the emulator holds the answer for a minute): the loading state. */
export const Loading: Story = {
  tags: ['holds-a-request'],
  render: (args) => page(args, { id: 'esign-list-loading', fault: { path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 60_000, times: 1 } }),
};

/** `manual` and a refresh button: the list waits for it, and each refresh asks for a new one-time Url. */
export const Refresh: Story = {
  args: { manual: true },
  render: (args) =>
    page(args, {
      id: 'esign-list-refresh',
      extra: html`<button
        style="justify-self: start"
        @click=${(e: Event) =>
          void (e.target as HTMLElement)
            .parentElement!.querySelector('esign-contract-list')!
            .refresh()
            .catch(() => undefined)}
      >
        Refresh the list
      </button>`,
    }),
};

/** `display="popup"`: the list opens in a window from the user's click. */
export const Popup: Story = { args: { display: 'popup' } };

/** No session: the empty state, here replaced through `slot="empty"`. */
export const Empty: Story = {
  render: (args) =>
    page(args, {
      id: 'esign-list-nobody',
      connect: false,
      slots: html`<p slot="empty">Sign in to follow your contracts.</p>`,
    }),
};

/** The page never says `ready` within `load-timeout` (1 ms here): reported as `frame_blocked` with its likely causes and a popup fallback. */
export const FrameBlocked: Story = { args: { 'load-timeout': 1 } };

/** `allowed-origins` names another origin: the Url is refused (`url_rejected`) and never put in the DOM. */
export const UrlRejected: Story = { args: { 'allowed-origins': 'https://esign.example.com' } };

/**
 * Error from the service: the emulator answers embedded/views with 503 (a test fault, more times than the client
 * retries); the element shows `view_failed` with a retry.
 */
export const ServiceError: Story = {
  render: (args) => page(args, { id: 'esign-list-error', fault: { path: '/openapi/v1/embedded/views', kind: 'status', status: 503, times: 4 } }),
};

/** In Malay: the element's own words follow the nearest `lang`; the service's page inside follows the browser's language (Accept-Language), so a Malay browser sees a Malay list. */
export const Malay: Story = { args: { lang: 'ms' } };
