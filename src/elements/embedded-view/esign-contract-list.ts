import { svg, type PropertyDeclarations } from 'lit';
import { EmbeddedViewElement } from './element.js';
import { autoConverter, type ViewDisplay } from './rules.js';
import { contractListMessages } from './esign-contract-list.messages.js';
import { RootListener } from '../shared/root-listener.js';

const listIcon = svg`<path d="M9 6h11M9 12h11M9 18h11"/><circle cx="4.5" cy="6" r="1"/><circle cx="4.5" cy="12" r="1"/><circle cx="4.5" cy="18" r="1"/>`;

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
export class EsignContractList extends EmbeddedViewElement {
  static override properties: PropertyDeclarations = {
    auto: { converter: autoConverter(true) },
  };

  /** Open the list as soon as there is a session (default on; `auto="false"` waits for `refresh()` or a click). */
  override auto = true;

  protected readonly operateType = 'signature_status';
  protected readonly icon = listIcon;

  constructor() {
    super(contractListMessages);
    // a signing frame in this tree sent an envelope: an inline list that is shown (or about to be, `auto`) loads again
    // with a new Url; a list nobody opened stays closed
    new RootListener(this, 'esign-envelope-sent', () => {
      if (this.display !== 'popup' && this.hasSession && (this.status !== 'idle' || this.auto)) void this.refresh().catch(() => undefined);
    });
  }

  /** Loads the list again with a new Url (a Url works once). Call it from a click with `display="popup"`. Rejects with the EsignError also sent as `esign-error`. */
  refresh(options: { display?: ViewDisplay } = {}): Promise<void> {
    return this.open(options);
  }

}

declare global {
  interface HTMLElementTagNameMap {
    'esign-contract-list': EsignContractList;
  }
}
