import { svg, type PropertyDeclarations, type PropertyValues } from 'lit';
import { EmbeddedViewElement } from './element.js';
import { legacyOff, type ViewDisplay } from './rules.js';
import { contractListMessages } from './embedded-view.messages.js';
import { RootListener } from '../shared/root-listener.js';

const listIcon = svg`<path d="M9 6h11M9 12h11M9 18h11"/><circle cx="4.5" cy="6" r="1"/><circle cx="4.5" cy="12" r="1"/><circle cx="4.5" cy="18" r="1"/>`;

/**
 * Shows the user's contracts in the connected Space: the service's contract list page (`embedded/views`,
 * `signature_status`) in a sandboxed iframe, or in a popup. Same Url rules, renewal and error states as
 * `<esign-signing-frame>`, and the same blank, hidden, inert frame built in idle time while it waits (with
 * `manual`, after `close()`, or once the page expired) so `refresh()` or a click shows the list sooner.
 *
 * When an `<esign-signing-frame>` in the same document, or in another tab of this origin following the same service
 * and Space, sends an envelope (`esign-envelope-sent`), a list that is shown (or not `manual`) loads again by itself
 * (inline display, once it has a session), so the new envelope shows without a reload: one new Url, no other call.
 * Loading again, it keeps the height its page had until the new page reports its own, so what is below moves at most
 * once, by the new rows.
 *
 * When the browser is offline, or the token proxy, the service or its page cannot be reached, it says which, and opens
 * by itself where it promises to (docs/guides/when-something-is-down.md); a page slow to say `ready` stays in place.
 *
 * @summary Follow the user's contracts in the service's embedded page.
 *
 * @fires esign-error - `detail.error` is an `EsignError`: `no_session`, `url_rejected`, `frame_blocked`, `csp_blocked` (the page's Content-Security-Policy blocks the service: `detail.error.directive` is `frame-src` or `connect-src`), `view_failed`, `popup_blocked`, … `detail.hop` says what could not be reached (`offline`, `token-proxy`, `service`, `page`; absent otherwise: docs/guides/when-something-is-down.md).
 *
 * @slot empty - Replaces the text shown without a session.
 *
 * @csspart empty - The state without a session or an open page.
 */
export class EsignContractList extends EmbeddedViewElement {
  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return { manual: { type: Boolean } };
  }

  /** Waits for `refresh()` (or a click) to load the list. Without it the list loads by itself as soon as there is a session (inline display). */
  manual = false;

  /**
   * Whether the list loads by itself: `!manual`, and no deprecated `auto="false"` (read as `manual`, with a console
   * warning). Deprecated: set `manual` instead.
   * @deprecated Use `manual`.
   */
  get auto(): boolean {
    return !this.manual && !legacyOff(this.getAttribute('auto'));
  }

  set auto(value: boolean) {
    this.manual = !value;
  }

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

  /** The height of the list's page while it loads again (0: none kept). */
  #kept = 0;

  protected override update(changed: PropertyValues<this>): void {
    // loading again (after an envelope was sent, or refresh()), the list keeps the height its page had until the new
    // page reports its own, instead of taking the opening height meanwhile: what is below moves once, by the new
    // rows, if at all; set through the CSSOM, which a strict style-src allows
    // (until then: the page may say `ready` before it says how tall it is)
    const reloading = this.status === 'requesting' || this.status === 'loading' || (this.#kept > 0 && this.status === 'loaded');
    const before = this.renderRoot?.querySelector<HTMLElement>('[part~="base"]');
    if (reloading && !this.#kept && before?.classList.contains('sized')) this.#kept = before.getBoundingClientRect().height;
    super.update(changed);
    const base = this.renderRoot?.querySelector<HTMLElement>('[part~="base"]');
    if (!reloading || base?.classList.contains('sized')) this.#kept = 0;
    if (base) base.style.minHeight = this.#kept ? `${this.#kept}px` : '';
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
