import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { demo } from './demo-config.js';

interface Args {
  mode: 'popup' | 'redirect';
  storage: 'indexeddb' | 'memory';
  'space-id': string;
  'login-hint': string;
  'token-endpoint': string;
  'base-url': string;
  'refresh-tokens': 'proxy' | 'browser';
}

const meta: Meta<Args> = {
  title: 'Elements/esign-connect',
  component: 'esign-connect',
  args: {
    mode: 'popup',
    storage: 'indexeddb',
    'space-id': '',
    'login-hint': '',
    'token-endpoint': demo.tokenEndpoint,
    'base-url': demo.baseUrl,
    'refresh-tokens': 'proxy',
  },
  argTypes: {
    mode: { control: 'inline-radio', options: ['popup', 'redirect'] },
    'refresh-tokens': { control: 'inline-radio', options: ['proxy', 'browser'] },
    storage: { control: 'inline-radio', options: ['indexeddb', 'memory'] },
  },
  render: (args) => html`
    <esign-connect
      client-id=${demo.clientId}
      base-url=${args['base-url']}
      token-endpoint=${args['token-endpoint']}
      mode=${args.mode}
      refresh-tokens=${args['refresh-tokens']}
      storage=${args.storage}
      space-id=${ifDefined(args['space-id'] || undefined)}
      login-hint=${ifDefined(args['login-hint'] || undefined)}
      @esign-connected=${(e: CustomEvent) => console.info('esign-connected', e.detail)}
      @esign-error=${(e: CustomEvent) => console.info('esign-error', e.detail.error.code)}
    ></esign-connect>
    <p style="font: 13px system-ui; opacity: 0.8; max-width: 60ch">
      Demo accounts on the local emulator: <code>alice@example.com</code> / <code>alice-password</code> (two Spaces),
      <code>bob@example.com</code> / <code>bob-password</code>. Sent emails appear in the
      <a href=${demo.outbox} target="_blank" rel="noopener">emulator's outbox</a>.
    </p>
  `,
};

export default meta;
type Story = StoryObj<Args>;

/** Click Connect, log in as Alice on the emulator's consent page, choose a Space and Agree. */
export const Default: Story = {};

/** Nothing is kept on disk: reloading the page forgets the session. */
export const MemoryStorage: Story = { args: { storage: 'memory' } };

/**
 * Designated Space Mode: the integrator fixes the Space and the user; the consent page asks for no
 * Space. Bob is already a member of Acme Legal; log in as bob@example.com / bob-password.
 */
export const DesignatedSpace: Story = { args: { 'space-id': 'space_acme', 'login-hint': 'bob@example.com', storage: 'memory' } };

/**
 * The token proxy is unreachable: the sign-in window cannot open its login page (the browser says so in it); when
 * the window is closed, the element shows that the sign-in service could not be reached.
 */
export const ProxyDown: Story = { args: { 'token-endpoint': 'http://127.0.0.1:9/token', storage: 'memory' } };

/**
 * The opt-in browser-held mode (`refresh-tokens="browser"`), for a token proxy that cannot be served from the page's
 * own site: this page is the PKCE client and the consent page sends the code back to it (this iframe page is a
 * registered redirect URI), and the page keeps the refresh token, readable by any script on it (docs/security.md).
 */
export const BrowserHeld: Story = { args: { 'refresh-tokens': 'browser', storage: 'memory' } };

/** A configuration mistake (plain-http service on a public host) is reported, not thrown. */
export const BadConfiguration: Story = { args: { 'base-url': 'http://esign.example.com', storage: 'memory' } };

/**
 * The browser blocked the sign-in window. The story makes `window.open` answer `null`, exactly what a popup
 * blocker does, so it shows the same state in every browser: the element says so and offers to continue in
 * this tab.
 */
export const PopupBlocked: Story = {
  args: { storage: 'memory' },
  play: async ({ canvasElement }) => {
    const el = canvasElement.querySelector('esign-connect') as (HTMLElement & { connect(): Promise<unknown>; updateComplete: Promise<boolean> }) | null;
    if (!el) return;
    await el.updateComplete;
    const open = window.open;
    window.open = () => null;
    try {
      await el.connect().catch(() => undefined);
    } finally {
      window.open = open;
    }
  },
};
