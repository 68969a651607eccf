/** A signing UI of an integrator's own on `esign-elements/headless` (the headless story, test/browser/headless.test.ts). */
import { LitElement, css, html, nothing, type PropertyDeclarations } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { EmbeddedViewController, FRAME_ALLOW, FRAME_SANDBOX_BLANK, type ViewDisplay } from '../src/headless.js';

/**
 * <my-signing-panel>: a signing UI of the integrator's own, built on `esign-elements/headless`. The view controller
 * asks for the Url, checks it, renews it, listens to the page and keeps the state; this element only draws it: its
 * own header with a status pill, its own buttons, and the frame the controller fills (keyed by `viewId`, sandboxed
 * blank until the controller navigates it).
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

  override render() {
    const { view } = this;
    const frame = view.framePending || (view.shownIn === 'inline' && (view.status === 'loading' || view.status === 'loaded'));
    return html`
      <header>
        <strong>My signing panel</strong>
        <span class="pill" data-status=${view.status} role="status">${view.status}</span>
        <button ?disabled=${!view.hasSession || !view.hasFiles} @click=${() => void view.open('inline', null).catch(() => undefined)}>
          ${view.status === 'idle' ? 'Prepare the envelope' : 'Start again'}
        </button>
        ${view.status === 'loaded' || view.status === 'sent' ? html`<button @click=${() => view.close()}>Close</button>` : nothing}
      </header>
      ${view.status === 'error' ? html`<p role="alert">${view.error?.code}: ${view.error?.message}</p>` : nothing}
      ${view.status === 'sent' ? html`<p>Envelope ${view.sentEnvelopeId} sent.</p>` : nothing}
      ${
        frame
          ? keyed(
              view.viewId,
              html`<iframe
              title="E-signature: new envelope"
              class=${view.status === 'loaded' ? '' : 'waiting'}
              sandbox=${FRAME_SANDBOX_BLANK}
              allow=${FRAME_ALLOW}
              @load=${view.onFrameLoad}
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
