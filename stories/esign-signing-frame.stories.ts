import type { Meta, StoryObj } from '@storybook/web-components-vite';
import { html, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { ref } from 'lit/directives/ref.js';
import '../src/esign-signing-frame.js';
import { EsignClient } from '../src/core/service/client.js';
import type { EsignConnect } from '../src/elements/connect/esign-connect.js';
import type { EsignSigningFrame } from '../src/elements/embedded-view/esign-signing-frame.js';
import { demo } from './demo-config.js';
import { defineDemoSession } from './demo-session.js';

defineDemoSession();

interface Args {
  display: 'inline' | 'popup';
  auto: boolean;
  'allowed-origins': string;
  'load-timeout': number;
  'file-ids': string;
  sheet: boolean;
  lang: string;
}

const log = (e: CustomEvent) => console.info(e.type, e.type === 'esign-error' ? e.detail.error.code : e.detail);

/** Uploads a one-page sample PDF to the connected Space and hands its FileId to the frame (what <esign-uploader> does for a person). */
function sampleFiles(frame: EsignSigningFrame, connect: EsignConnect): void {
  let done = false;
  const upload = async (): Promise<void> => {
    if (done || !connect.session) return;
    done = true;
    const client = new EsignClient({ baseUrl: demo.baseUrl, tokens: connect });
    const pdf =
      '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF';
    const { data } = await client.uploadFiles([{ FileName: 'sample-contract.pdf', FileBody: btoa(pdf) }]);
    frame.fileIds = data.Files.map((f) => f.FileId);
  };
  connect.addEventListener('esign-connected', () => void upload().catch((error: unknown) => console.info('sample upload failed', error)));
  void upload();
}

function page(args: Args, options: { sample?: boolean; id?: string; slots?: TemplateResult; note?: TemplateResult; signIn?: boolean; fault?: object } = {}) {
  const id = options.id ?? 'esign-demo';
  let connect: EsignConnect | undefined;
  return html`
    <div lang=${args.lang} style="display: grid; gap: 1rem; font: 14px system-ui">
      ${
        options.signIn
          ? html`<esign-connect
            id=${id}
            client-id=${demo.clientId}
            base-url=${demo.baseUrl}
            token-endpoint=${demo.tokenEndpoint}
            ${ref((el) => (connect = el as EsignConnect | undefined))}
          ></esign-connect>`
          : html`<esign-demo-session
            id=${id}
            fault=${ifDefined(options.fault ? JSON.stringify(options.fault) : undefined)}
            ${ref((el) => (connect = el as unknown as EsignConnect | undefined))}
          ></esign-demo-session>`
      }
      <esign-signing-frame
        connect=${id}
        display=${args.display}
        ?auto=${args.auto}
        allowed-origins=${ifDefined(args['allowed-origins'] || undefined)}
        load-timeout=${args['load-timeout']}
        file-ids=${ifDefined(args['file-ids'] || undefined)}
        ?sheet=${args.sheet}
        ${ref((el) => {
          if (el && options.sample && connect) sampleFiles(el as EsignSigningFrame, connect);
        })}
        @esign-view-ready=${log}
        @esign-view-loaded=${log}
        @esign-view-expired=${log}
        @esign-view-message=${log}
        @esign-activity=${log}
        @esign-error=${log}
        >${options.slots ?? ''}</esign-signing-frame
      >
      ${options.note ?? ''}
      <p style="opacity: 0.8; max-width: 70ch; margin: 0">
        ${options.signIn ? html`Connect as <code>alice@example.com</code> / <code>alice-password</code> on the local emulator.` : html`Connected as Alice (Acme Legal) on the local emulator.`} Signers' emails land in the
        <a href=${demo.outbox} target="_blank" rel="noopener">emulator's outbox</a>. Events are logged to the console.
      </p>
    </div>
  `;
}

const meta: Meta<Args> = {
  title: 'Elements/esign-signing-frame',
  component: 'esign-signing-frame',
  args: { display: 'inline', auto: true, 'allowed-origins': '', 'load-timeout': 15000, 'file-ids': '', sheet: false, lang: 'en' },
  argTypes: {
    display: { control: 'inline-radio', options: ['inline', 'popup'] },
    lang: { control: 'inline-radio', options: ['en', 'zh-CN', 'ms'] },
  },
  render: (args) => page(args, { sample: true }),
};

export default meta;
type Story = StoryObj<Args>;

/** Connected as Alice, a sample PDF is uploaded and the envelope edit page opens; add a signer and Send to see the sent state. */
export const Default: Story = {};

/** With a real sign-in: click Connect, log in as Alice, choose a Space; then the same as Default. */
export const SignIn: Story = { render: (args) => page(args, { sample: true, id: 'esign-sign-in', signIn: true }) };

/** `display="popup"`: the page opens in a window from the user's click (the window opens inside the click, then the Url is asked for). */
export const Popup: Story = { args: { display: 'popup' } };

/** Nothing to sign yet: connected but without FileIds, the element says what is missing (replaceable with `slot="empty"`). */
export const Empty: Story = {
  render: (args) => page(args, { id: 'esign-empty' }),
};

/** No session: not connected yet (here an `<esign-connect>` nobody signed in to). */
export const NoSession: Story = {
  render: (args) => page(args, { id: 'esign-no-session', signIn: true }),
};

/** The Url is on its way (the emulator holds the answer for a minute): the loading state. */
export const Loading: Story = {
  tags: ['holds-a-request'],
  render: (args) =>
    page(args, {
      sample: true,
      id: 'esign-loading',
      fault: { path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 60_000, times: 1 },
    }),
};

/** The loading state replaced through `slot="loading"`. */
export const LoadingSlot: Story = {
  tags: ['holds-a-request'],
  render: (args) =>
    page(args, {
      sample: true,
      id: 'esign-loading-slot',
      fault: { path: '/openapi/v1/embedded/views', kind: 'delay', delayMs: 60_000, times: 1 },
      slots: html`<p slot="loading" style="font-style: italic">Preparing your envelope…</p>`,
    }),
};

/**
 * Expired Url: the frame sits in a closed section, so its Url is fetched but held, not loaded. Move the emulator's
 * clock past ExpiresAt, then open the section: the page answers `url_expired`, the element fires
 * `esign-view-expired` (`renewing: true`) and loads a new Url by itself.
 */
export const ExpiredUrl: Story = {
  render: (args) => html`
    <div style="display: grid; gap: 0.75rem; font: 14px system-ui">
      <button
        style="justify-self: start"
        @click=${async (e: Event) => {
          const res = await fetch(`${demo.baseUrl}/__emulator/clock`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ advanceSeconds: 301 }),
          });
          (e.target as HTMLButtonElement).textContent = `Emulator clock now ${((await res.json()) as { now: string }).now}: move again`;
        }}
      >
        Move the emulator's clock 301 s forward
      </button>
      <details>
        <summary>Show the signing page</summary>
        ${page(args, { sample: true, id: 'esign-expired' })}
      </details>
    </div>
  `,
};

/**
 * Frame blocked: with `load-timeout="1"` the page cannot say `ready` in time, as when this site's CSP `frame-src` or the
 * service's `frame-ancestors` refuses the frame. The element lists the likely causes and offers the page in a new window.
 */
export const FrameBlocked: Story = { args: { 'load-timeout': 1 } };

/** Url rejected: `allowed-origins` names another origin than the service's, so the Url is refused (`url_rejected`) and never reaches the DOM. */
export const UrlRejected: Story = { args: { 'allowed-origins': 'https://esign.example.com' } };

/** Error from the service: a FileId that is not in the Space (`ResourceNotFound.File`) is reported as `view_failed`, with a retry. */
export const ServiceError: Story = {
  args: { 'file-ids': 'file_not_in_this_space' },
  render: (args) => page(args, { id: 'esign-service-error' }),
};

/** In Chinese: the element's own words follow the nearest `lang`; the service's page inside follows the browser's language (Accept-Language). */
export const Chinese: Story = { args: { lang: 'zh-CN' } };

/**
 * Never stranded: take the frame out of the page and put it back (a single-page app's route entered again), or replay
 * the `pageshow` of a back/forward cache restore. A page in the frame gets a new Url (the used one is never loaded
 * again); a sent envelope stays said. `lastResult` and `whenSent()` tell a listener attached after the fact what
 * happened; read them with the buttons (send an envelope first to see `whenSent()` resolve).
 */
export const RestoreAndLateListeners: Story = {
  render: (args) => {
    let slot: HTMLElement | undefined;
    let frame: EsignSigningFrame | undefined;
    // the element, found once (it may be out of the page, between leaving and re-entering the route)
    const theFrame = (): EsignSigningFrame | undefined => (frame ??= slot?.querySelector('esign-signing-frame') ?? undefined);
    let out: HTMLElement | undefined;
    const show = (label: string, value: unknown): void => {
      if (out)
        out.textContent = `${label}: ${JSON.stringify(value, (_key, v: unknown) => (v instanceof Error ? { code: (v as { code?: string }).code, message: v.message } : v), 2)}`;
    };
    return html`
      <div style="display: grid; gap: 0.75rem; font: 14px system-ui">
        <div style="display: flex; gap: 0.5rem; flex-wrap: wrap">
          <button
            @click=${() => {
              const el = theFrame();
              if (!el || !slot) return;
              el.remove();
              // a moment later, as a router would: the same element attached again
              setTimeout(() => slot!.append(el), 300);
            }}
          >
            Leave and re-enter the route
          </button>
          <button @click=${() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))}>Replay a back/forward restore</button>
          <button @click=${() => show('lastResult', theFrame()?.lastResult)}>Read lastResult</button>
          <button
            @click=${() => {
              show('whenSent()', 'waiting for an envelope…');
              void theFrame()
                ?.whenSent()
                .then((detail) => show('whenSent()', detail));
            }}
          >
            Await whenSent()
          </button>
        </div>
        <pre ${ref((el) => (out = el as HTMLElement | undefined))} style="margin: 0; white-space: pre-wrap"></pre>
        <div
          ${ref((el) => (slot = el as HTMLElement | undefined))}
        >
          ${page(args, { sample: true, id: 'esign-restore' })}
        </div>
      </div>
    `;
  },
};

/**
 * `sheet`, on a phone: below 640 px wide (`--esign-sheet-breakpoint`) the page takes the whole screen, with a Close
 * button and the safe areas kept clear; Close, Escape or the browser's back button closes it, and the page you were on
 * stays. Wider, the frame stays in the layout. Narrow the window (or use a phone's size in the toolbar) to see it.
 */
export const PhoneSheet: Story = { args: { sheet: true }, render: (args) => page(args, { sample: true, id: 'esign-sheet' }) };

/**
 * A host idle timer (docs/guides/idle-timers.md) that hears the person working inside the page: `esign-activity`
 * (focus going into the frame, the page's messages a person causes, at most every 5 s) restarts it like the page's own input events.
 */
export const IdleTimer: Story = {
  render: (args) => {
    const TIMEOUT_S = 120;
    let last = Date.now();
    let label: HTMLElement | undefined;
    const activity = (): void => {
      last = Date.now();
    };
    const tick = (): void => {
      if (!label?.isConnected) return;
      const left = Math.max(0, TIMEOUT_S - Math.round((Date.now() - last) / 1000));
      label.textContent = left > 0 ? `Signed out after ${TIMEOUT_S} s idle: ${left} s left.` : 'Idle: a real app would sign you out now.';
      setTimeout(tick, 1000);
    };
    for (const type of ['pointerdown', 'keydown', 'esign-activity']) document.addEventListener(type, activity);
    return html`<div style="display: grid; gap: 0.75rem; font: 14px system-ui">
      <p
        style="margin: 0"
        ${ref((el) => {
          label = el as HTMLElement | undefined;
          if (label) tick();
        })}
      ></p>
      ${page(args, { sample: true, id: 'esign-idle' })}
    </div>`;
  },
};
