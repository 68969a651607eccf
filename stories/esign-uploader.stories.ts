import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { ref } from 'lit/directives/ref.js';
import '../src/esign-uploader.js';
import { EsignError } from '@esign-elements/shared/errors';
import type { EsignUploader } from '../src/elements/uploader/esign-uploader.js';
import { demo } from './demo-config.js';
import { defineDemoSession } from './demo-session.js';

defineDemoSession();

interface Args {
  multiple: boolean;
  accept: string;
  'max-size': string;
  'max-files': string;
  disabled: boolean;
  lang: string;
}

const log = (e: CustomEvent) => console.info(e.type, e.type === 'esign-error' ? e.detail.error.code : e.detail);

/**
 * A stand-in session for the states that need one but should not touch the network: its token never
 * comes (uploads stay "on their way") or is refused (uploads fail).
 *
 * @attr behaviour - `refuse`: its token is refused (uploads fail); else it never comes.
 */
class DemoSession extends HTMLElement {
  readonly baseUrl = demo.baseUrl;
  readonly operatorUserId = undefined;
  get session() {
    return { scope: ['envelope:create'], spaceId: 'space_demo', expiresAt: new Date(Date.now() + 3_600_000), connectedAt: new Date() };
  }
  getAccessToken(options: { signal?: AbortSignal } = {}): Promise<string> {
    if (this.getAttribute('behaviour') === 'refuse') {
      return Promise.reject(new EsignError('session_expired', 'The session expired; connect again.'));
    }
    // held until cancelled
    return new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(new EsignError('aborted', 'Cancelled.'))));
  }
}
if (!customElements.get('demo-esign-session')) customElements.define('demo-esign-session', DemoSession);

/** A small PDF-looking file of `size` bytes (content does not matter to the demo). */
function sampleFile(name: string, size: number, type = 'application/pdf'): File {
  const bytes = new Uint8Array(size);
  bytes.set(new TextEncoder().encode('%PDF-1.4\n'));
  return new File([bytes], name, { type });
}

const started = new WeakSet<Element>();

function uploader(args: Args, options: { connect?: string; persistKey?: string; files?: () => File[] } = {}) {
  return html`<esign-uploader
    connect=${ifDefined(options.connect)}
    ?multiple=${args.multiple}
    ?disabled=${args.disabled}
    accept=${ifDefined(args.accept || undefined)}
    max-size=${ifDefined(args['max-size'] || undefined)}
    max-files=${ifDefined(args['max-files'] || undefined)}
    persist-key=${ifDefined(options.persistKey)}
    @esign-upload-start=${log}
    @esign-upload-complete=${log}
    @esign-error=${log}
    ${ref((el) => {
      const files = options.files;
      // once the element has found its session, hand it the sample files as a drop would (once per element)
      if (!el || !files || started.has(el)) return;
      started.add(el);
      // once its session is there (a demo session asks the emulator for a token first)
      const provider = (): { session?: unknown } | null =>
        options.connect ? (document.getElementById(options.connect) as { session?: unknown } | null) : null;
      const ready = async (): Promise<void> => {
        for (let i = 0; i < 50 && options.connect && !provider()?.session; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      };
      void (el as EsignUploader).updateComplete.then(ready).then(() => (el as EsignUploader).upload(files()).catch(() => undefined));
    })}
  ></esign-uploader>`;
}

const note = html`<p style="opacity: 0.8; max-width: 70ch; margin: 0; font: 13px system-ui">
  Connect as <code>alice@example.com</code> / <code>alice-password</code> on the local emulator, then drop PDFs or press the
  drop zone (Enter or Space) to pick files. Events are logged to the console.
</p>`;

const meta: Meta<Args> = {
  title: 'Elements/esign-uploader',
  component: 'esign-uploader',
  args: { multiple: true, accept: '', 'max-size': '', 'max-files': '', disabled: false, lang: 'en' },
  argTypes: {
    lang: { control: 'inline-radio', options: ['en', 'zh-CN', 'ms'] },
  },
  render: (args) => html`
    <div lang=${args.lang} style="display: grid; gap: 1rem; max-width: 36rem">
      <esign-connect id="esign-upload-demo" client-id=${demo.clientId} base-url=${demo.baseUrl} token-endpoint=${demo.tokenEndpoint}></esign-connect>
      ${uploader(args, { connect: 'esign-upload-demo', persistKey: 'story-default' })} ${note}
    </div>
  `,
};

export default meta;
type Story = StoryObj<Args>;

/** Beside an `<esign-connect>` it names with `connect`. Until you connect, the drop zone says so. Uploads survive a reload. */
export const Default: Story = {};

/** Nested inside `<esign-connect>`: no `connect` attribute needed. One file only (no `multiple`), PDF only, 5 MB at most. */
export const WithConnect: Story = {
  args: { multiple: false, accept: '.pdf,application/pdf', 'max-size': String(5 * 1024 * 1024) },
  render: (args) => html`
    <div lang=${args.lang} style="display: grid; gap: 1rem; max-width: 36rem">
      <esign-connect client-id=${demo.clientId} base-url=${demo.baseUrl} token-endpoint=${demo.tokenEndpoint}>
        <div style="margin-top: 1rem">${uploader(args, { persistKey: 'story-nested' })}</div>
      </esign-connect>
      ${note}
    </div>
  `,
};

/** Connected (as Alice, Acme Legal): two sample PDFs uploaded to the emulator, each with its FileId. */
export const Uploaded: Story = {
  render: (args) => html`
    <div lang=${args.lang} style="max-width: 36rem">
      <esign-demo-session id="uploaded-session"></esign-demo-session>
      ${uploader(args, { connect: 'uploaded-session', persistKey: 'story-uploaded', files: () => [sampleFile('Lease agreement.pdf', 48_000), sampleFile('Annex A.pdf', 598)] })}
    </div>
  `,
};

/** Refused before a byte is read: a program, a file over `max-size`, an empty file. Each shows its reason; the others would go on. */
export const RejectedFile: Story = {
  args: { 'max-size': String(1024 * 1024) },
  render: (args) => html`
    <div lang=${args.lang} style="max-width: 36rem">
      ${uploader(args, {
        files: () => [
          new File([new Uint8Array(10)], 'setup.exe', { type: 'application/x-msdownload' }),
          sampleFile('Scanned contract (40 pages).pdf', 2 * 1024 * 1024),
          new File([], 'empty.pdf', { type: 'application/pdf' }),
        ],
      })}
    </div>
  `,
};

/** Files on their way, with per-file and overall progress and Cancel buttons (the demo session holds them there). */
export const Uploading: Story = {
  render: (args) => html`
    <div lang=${args.lang} style="max-width: 36rem">
      <demo-esign-session id="held-session"></demo-esign-session>
      ${uploader(args, { connect: 'held-session', files: () => [sampleFile('Lease agreement.pdf', 800_000), sampleFile('Annex A.pdf', 120_000), sampleFile('Annex B.pdf', 90_000)] })}
    </div>
  `,
};

/** An upload that failed (here: the session expired): the reason, and a Retry button. */
export const Failed: Story = {
  name: 'Error',
  render: (args) => html`
    <div lang=${args.lang} style="max-width: 36rem">
      <demo-esign-session id="refusing-session" behaviour="refuse"></demo-esign-session>
      ${uploader(args, { connect: 'refusing-session', files: () => [sampleFile('Service agreement.pdf', 300_000)] })}
    </div>
  `,
};

/** A setup mistake (a negative `max-size`) is shown and sent as `esign-error` `invalid_config`, never thrown. */
export const Misconfigured: Story = { args: { 'max-size': '-5' } };

/** Turned off: the drop zone takes nothing. */
export const Disabled: Story = { args: { disabled: true } };

/**
 * A late listener: the files upload before anyone listens (as in a framework that attaches its listeners after the
 * first render); the outcome is still there as state. "Read the outcome" shows `status` and `lastResult`.
 */
export const LateListener: Story = {
  render: (args) => html`
    <div lang=${args.lang} style="display: grid; gap: 1rem; max-width: 36rem">
      <esign-demo-session id="late-session"></esign-demo-session>
      ${uploader(args, { connect: 'late-session', persistKey: 'story-late', files: () => [sampleFile('Late listener.pdf', 4_000)] })}
      <button
        style="justify-self: start"
        @click=${(e: Event) => {
          const root = (e.target as HTMLElement).parentElement!;
          const el = root.querySelector('esign-uploader')!;
          root.querySelector('output')!.textContent = JSON.stringify({ status: el.status, lastResult: el.lastResult }, null, 2);
        }}
      >
        Read the outcome
      </button>
      <output style="white-space: pre; font: 12px ui-monospace, monospace"></output>
    </div>
  `,
};
