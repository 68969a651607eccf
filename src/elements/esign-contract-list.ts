import { LitElement } from 'lit';
import { property } from 'lit/decorators.js';
import type { EsignError } from '../core/errors.js';
import {
  autoConverter,
  EmbeddedViewController,
  embeddedViewStyles,
  renderEmbeddedView,
  type ViewDisplay,
  type ViewStatus,
} from './embedded-view-controller.js';
import { embeddedViewMessages } from './embedded-view.messages.js';
import { contractListMessages } from './esign-contract-list.messages.js';
import { LocalizeController } from './localize.js';

/**
 * Shows the user's contracts in the connected Space: the service's contract list page (`embedded/views`,
 * `signature_status`) in a sandboxed iframe, or in a popup. Same Url rules, renewal and error states as
 * `<esign-signing-frame>`, and the same blank, hidden, inert frame built in idle time while it waits (with
 * `auto="false"`, after `close()`, or once the page expired) so `refresh()` or a click shows the list sooner.
 *
 * When an `<esign-signing-frame>` in the same document sends an envelope (`esign-envelope-sent`), the list loads
 * again by itself (inline display, once it has a session), so the new envelope shows without a reload.
 *
 * @summary Follow the user's contracts in the service's embedded page.
 *
 * @fires esign-view-ready - A Url was received and accepted. `detail: {origin, expiresAt, operateType}` (never the Url: it carries a token).
 * @fires esign-view-loaded - The page said it is ready (`ready` message), or, with `load-timeout="0"`, the frame loaded. `detail: {origin}`.
 * @fires esign-view-expired - The Url or the page expired. `detail: {expiresAt, renewing}`; `renewing` is true when a new Url is being asked for.
 * @fires esign-view-message - A message from the page, forwarded unchanged, only from the frame's window and the Url's exact origin. `detail: {data, origin}`.
 * @fires esign-error - `detail.error` is an `EsignError`: `no_session`, `url_rejected`, `frame_blocked`, `view_failed`, `popup_blocked`, …
 *
 * @slot loading - Replaces the loading indicator.
 * @slot error - Replaces the error message and its buttons (read `error` or listen to `esign-error` for the details).
 * @slot expired - Replaces the "page expired" message and its button.
 * @slot empty - Replaces the text shown without a session.
 *
 * @csspart base - The wrapper of every state and the frame.
 * @csspart frame - The iframe.
 * @csspart loading - The loading state.
 * @csspart spinner - The loading indicator.
 * @csspart error - The error state.
 * @csspart expired - The expired state.
 * @csspart empty - The state without a session or an open page.
 * @csspart popup - The note shown while the page is open in a popup.
 * @csspart button - Every button.
 * @csspart retry - The "try again" button of the error state.
 * @csspart fallback - The "open in a new window" button offered when the frame is blocked.
 *
 * @cssprop [--esign-frame-min-height=32rem] - Minimum height while the page is shown; the frame fills the element (give the element a height to fix it) and grows with the height its page reports. States need less and take less.
 * @cssprop [--esign-accent=light-dark(#2557d6, #8cb0ff)] - Primary colour: buttons, spinner, focus rings.
 * @cssprop [--esign-accent-contrast=light-dark(#ffffff, #0b1530)] - Text on the primary colour.
 * @cssprop [--esign-text=CanvasText] - Text colour of the states.
 * @cssprop [--esign-surface=Canvas] - Background of the state cards and behind the frame.
 * @cssprop [--esign-danger=light-dark(#b3261e, #ffb4ab)] - Errors.
 * @cssprop [--esign-success=light-dark(#1b6e3a, #8fdca6)] - The sent state.
 * @cssprop [--esign-font=system-ui, sans-serif] - Font family.
 * @cssprop [--esign-radius=8px] - Corner radius of the buttons, cards and the frame.
 * @cssprop [--esign-spacing=0.5rem] - Spacing unit; gaps and paddings are multiples of it.
 */
export class EsignContractList extends LitElement {
  static override styles = embeddedViewStyles;

  /** The id of the `<esign-connect>` whose session to use; without it, the nearest `<esign-connect>` ancestor. */
  @property() connect = '';

  /** Open the list as soon as there is a session (default on; `auto="false"` waits for `refresh()` or a click). */
  @property({ converter: autoConverter(true) }) auto = true;

  /** `inline` (default: an iframe in the element) or `popup` (a window opened from the user's click). */
  @property() display: ViewDisplay = 'inline';

  /** Origins the service's Url may have, space- or comma-separated. Default: the session's base URL origin. */
  @property({ attribute: 'allowed-origins' }) allowedOrigins = '';

  /** Milliseconds to wait for the page's `ready` before reporting `frame_blocked`; 0 trusts the frame's load event instead. */
  @property({ attribute: 'load-timeout', type: Number }) loadTimeout = 15_000;

  readonly #view = new EmbeddedViewController(this, { operateType: 'signature_status' });
  readonly #shared = new LocalizeController(this, embeddedViewMessages);
  readonly #own = new LocalizeController(this, contractListMessages);
  #eventRoot: Document | ShadowRoot | undefined;

  /** Where the element is: `idle`, `requesting`, `loading`, `loaded`, `expired` or `error`. */
  get status(): ViewStatus {
    return this.#view.status;
  }

  /** The last error, while `status` is `error`. */
  get error(): EsignError | undefined {
    return this.#view.error;
  }

  /** Loads the list again with a new Url (a Url works once). Call it from a click with `display="popup"`. Rejects with the EsignError also sent as `esign-error`. */
  refresh(options: { display?: ViewDisplay } = {}): Promise<void> {
    return this.#view.open(options);
  }

  /** Same as `refresh()`. */
  open(options: { display?: ViewDisplay } = {}): Promise<void> {
    return this.#view.open(options);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#eventRoot = this.getRootNode() as Document | ShadowRoot;
    this.#eventRoot.addEventListener('esign-envelope-sent', this.#onEnvelopeSent);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#eventRoot?.removeEventListener('esign-envelope-sent', this.#onEnvelopeSent);
    this.#eventRoot = undefined;
  }

  /** Closes the page. */
  close(): void {
    this.#view.close();
  }

  readonly #onEnvelopeSent = (): void => {
    if (this.display === 'popup' || !this.#view.hasSession) return;
    // shown, or about to be (auto): a new Url shows the new envelope; a list nobody opened stays closed
    if (this.status !== 'idle' || this.auto) void this.refresh().catch(() => undefined);
  };

  protected override render() {
    return renderEmbeddedView(this.#view, this, {
      title: this.#own.term('title'),
      heading: this.#own.term('heading'),
      icon: 'list',
      open: this.#own.term('open'),
      empty: this.#own.term('empty'),
      term: (key, params) => this.#shared.term(key, params),
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-contract-list': EsignContractList;
  }
}
