import { css, svg, type PropertyValues, type PropertyDeclarations } from 'lit';
import { EmbeddedViewElement } from './element.js';
import { embeddedViewStyles } from './template.js';
import { autoConverter, fileIdsConverter, listChanged } from './rules.js';
import { signingFrameMessages } from './embedded-view.messages.js';
import { RootListener } from '../shared/root-listener.js';
import type { EsignEnvelopeSentDetail } from '../shared/events.js';

const penIcon = svg`<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="m13.5 6.5 4 4"/>`;

export type { ViewDisplay, ViewResult, ViewStatus } from './rules.js';

/**
 * Shows the service's envelope edit page (`embedded/views`, `request_signatures`) for the given FileIds
 * in a sandboxed iframe, or in a popup. The Url is checked (https or loopback http, allowed origin), used
 * once, renewed when it expires, when the element is re-attached or when the page is restored from the back/forward
 * cache (a sent envelope stays said), and a frame that does not load is reported with its likely causes and a popup
 * fallback. What happened is kept for late listeners: `status`, `lastResult`, `whenSent()`.
 *
 * With an uploader, no script is needed: `<esign-signing-frame uploader="up" auto>` takes the FileIds of
 * `<esign-uploader id="up">`'s `esign-upload-complete`.
 *
 * While it waits with a session (for FileIds, a click or a renewal), the element builds one blank frame in
 * idle time, hidden and inert (no part, not focusable, not in the accessibility tree, out of the layout), so
 * the page appears sooner once a Url arrives; each Url still goes only to a frame that never navigated.
 *
 * When the browser is offline, or the token proxy, the service or its page cannot be reached, it says which, and opens
 * by itself where it promises to (docs/guides/when-something-is-down.md); a page slow to say `ready` stays in place.
 *
 * @summary Start an envelope in the service's embedded page.
 *
 * @fires esign-envelope-sent - The page sent the envelope: the element shows the sent state with "start another". `detail: {envelopeId, fileIds, status}`. An `<esign-uploader>` on the page marks those files sent; an `<esign-contract-list>` refreshes. The other tabs of this origin that follow the same service and Space hear it too (no token or Url crosses): it is fired at their document with `byOtherTab: true`, and their uploaders and contract lists do the same.
 * @fires esign-error - `detail.error` is an `EsignError`: `no_session`, `no_files`, `url_rejected`, `frame_blocked`, `csp_blocked` (the page's Content-Security-Policy blocks the service: `detail.error.directive` is `frame-src` or `connect-src`), `view_failed`, `popup_blocked`, … `detail.hop` says what could not be reached (`offline`, `token-proxy`, `service`, `page`; absent otherwise: docs/guides/when-something-is-down.md).
 *
 * @slot empty - Replaces the text shown without a session or without FileIds.
 * @slot sent - Replaces the "envelope sent" message and its button.
 *
 * @csspart empty - The state without a session, FileIds or an open page.
 * @csspart sent - The state after the envelope was sent.
 *
 * @cssstate sent - The page sent the envelope.
 */
export class EsignSigningFrame extends EmbeddedViewElement {
  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
      fileIds: { attribute: 'file-ids', converter: fileIdsConverter, hasChanged: listChanged },
      uploader: {},
      auto: { converter: autoConverter },
    };
  }

  // every state takes the page's opening height, so the page opening (or the sent card) does not move what is below
  static override styles = [
    ...embeddedViewStyles,
    css`
      :host [part~='base'],
      :host [part~='base'].framed.sized {
        min-height: var(--esign-frame-min-height, 32rem);
      }
    `,
  ];

  /** The FileIds to start the envelope with (attribute: space- or comma-separated). */
  fileIds: string[] = [];

  /** The id of an uploader whose `esign-upload-complete` supplies the FileIds. */
  uploader = '';

  /**
   * Open the page by itself as soon as there is a session and FileIds (inline display only: a popup needs a click). An
   * HTML boolean: on when present. `auto="false"` is deprecated: it still means off for now, with a console warning.
   */
  auto = false;

  protected readonly operateType = 'request_signatures';
  protected readonly icon = penIcon;
  protected override startAnotherAction = (): void => this.startAnother();
  /** The named uploader's `esign-upload-complete` (it bubbles and is composed: the tree root sees it, the uploader its target). */
  readonly #uploads = new RootListener(
    this,
    'esign-upload-complete',
    (event) => {
      const target = event.target as Element | null;
      if (!this.uploader || target?.id !== this.uploader) return;
      const ids = (event as CustomEvent<{ fileIds?: unknown }>).detail?.fileIds;
      if (Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string')) this.fileIds = [...(ids as string[])];
    },
    () => this.uploader,
  );

  constructor() {
    super(signingFrameMessages);
  }

  /**
   * Resolves with the `esign-envelope-sent` detail of the envelope sent in the page: at once while the element shows
   * it (`status` is `sent`, even when that happened before this call), else when the next one is sent. Errors do not
   * reject it (the person can try again in the same element; `lastResult` tells them); it rejects only when the
   * element's own code cannot be loaded (EsignError `network_error`, also sent as `esign-error`).
   */
  whenSent(): Promise<EsignEnvelopeSentDetail> {
    return this.view().then((view) => view.whenSent());
  }

  /** After a sent envelope: forgets its FileIds and waits for the next ones (the sent state's button does this). */
  startAnother(): void {
    this.fileIds = [];
    // closing forgets the sent envelope: the element waits for the next
    this.close();
  }

  protected override fileIdsToSend(): readonly string[] {
    return this.fileIds;
  }

  protected override update(changed: PropertyValues<this>): void {
    // the sent card takes the height the page had, so the page below does not move up as the frame makes way for it
    // (a person's "start another" lets it go); set through the CSSOM, which a strict style-src allows
    const base = this.renderRoot?.querySelector<HTMLElement>('[part~="base"]');
    const keep = base && this.status === 'sent' && !base.style.minHeight ? base.getBoundingClientRect().height : 0;
    super.update(changed);
    if (!base) return;
    if (keep) base.style.minHeight = `${keep}px`;
    else if (this.status !== 'sent') base.style.minHeight = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('uploader')) this.#uploads.listen();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-signing-frame': EsignSigningFrame;
  }
}
