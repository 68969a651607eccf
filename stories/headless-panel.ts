/** A signing UI of an integrator's own on `esign-elements/headless` (the headless story, test/browser/headless.test.ts). */
import { LitElement, css, html, nothing, type PropertyDeclarations } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { connect, EmbeddedViewController, FRAME_ALLOW, FRAME_SANDBOX_BLANK, type ViewActions, type ViewDisplay } from '../src/headless.js';

/**
 * <my-signing-panel>: a signing UI of the integrator's own, built on `esign-elements/headless`. The view controller
 * asks for the Url, checks it, renews it, listens to the page and keeps the state; this element only draws what
 * `connect()` makes of that state (the elements' own): its own header with a status pill, its own buttons, and the
 * frame the controller fills (keyed by `frame.key`, sandboxed blank until the controller navigates it).
 */
export class MySigningPanel extends LitElement {
  // a getter, not a field: lit-analyzer reads it (and so checks this tag's attributes in templates)
  static override get properties(): PropertyDeclarations {
    return { connect: {}, fileIds: { attribute: false } };
  }
  static override styles = css`
    :host {
      display: grid;
      gap: 0.75rem;
      font: 14px system-ui;
      max-width: 56rem;
    }
    header {
      display: flex;
      gap: 0.75rem;
      align-items: center;
    }
    .pill {
      padding: 0.125rem 0.625rem;
      border-radius: 999px;
      background: #e8eefc;
      color: #12306b;
    }
    .pill[data-status='error'] {
      background: #fde7e5;
      color: #7a1610;
    }
    .pill[data-status='sent'] {
      background: #e3f5e9;
      color: #114d27;
    }
    iframe {
      width: 100%;
      min-height: 32rem;
      border: 2px dashed #8a94a6;
      border-radius: 12px;
    }
    iframe.waiting {
      visibility: hidden;
    }
  `;

  connect = '';
  fileIds: string[] = [];
  readonly auto = false;
  readonly display: ViewDisplay = 'inline';
  readonly allowedOrigins = '';
  readonly loadTimeout = 15_000;
  readonly view = new EmbeddedViewController(this, { operateType: 'request_signatures', fileIds: () => this.fileIds });

  readonly #actions: ViewActions = {
    open: (display) => void this.view.open(display ?? 'inline', null).catch(() => undefined),
    close: () => this.view.close(),
    focusPopup: () => this.view.focusPopup(),
    frameLoaded: () => this.view.onFrameLoad(),
  };

  override render() {
    const { view } = this;
    const facts = { auto: this.auto, display: this.display, hasSession: view.hasSession, hasFiles: view.hasFiles, frame: view.frame };
    const api = connect(view.state, facts, this.#actions);
    return html`
      <header>
        <strong>My signing panel</strong>
        <span class="pill" data-status=${api.status} role="status">${api.status}</span>
        <button ?disabled=${!view.hasSession || !view.hasFiles} @click=${() => api.open()}>
          ${api.status === 'idle' ? 'Prepare the envelope' : 'Start again'}
        </button>
        ${api.status === 'loaded' || api.status === 'sent' ? html`<button @click=${() => api.close()}>Close</button>` : nothing}
      </header>
      ${api.status === 'error' ? html`<p role="alert">${api.error?.code}: ${api.error?.message}</p>` : nothing}
      ${api.status === 'sent' ? html`<p>Envelope ${view.state.sentEnvelopeId} sent.</p>` : nothing}
      ${
        api.frame && api.frameShown
          ? keyed(
              api.frame.key,
              html`<iframe
              title="E-signature: new envelope"
              class=${api.status === 'loaded' ? '' : 'waiting'}
              sandbox=${FRAME_SANDBOX_BLANK}
              allow=${FRAME_ALLOW}
              @load=${api.frameLoaded}
            ></iframe>`,
            )
          : nothing
      }
    `;
  }
}

/**
 * Registers the tag. Called from the story and the test: a plain `import './headless-panel.js'` is dropped by the
 * bundler of the static Storybook build (the package's "sideEffects" list names only the library's defining modules).
 */
export function defineMySigningPanel(): void {
  if (!customElements.get('my-signing-panel')) customElements.define('my-signing-panel', MySigningPanel);
}

declare global {
  interface HTMLElementTagNameMap {
    'my-signing-panel': MySigningPanel;
  }
}
