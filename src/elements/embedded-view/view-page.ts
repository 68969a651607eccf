/**
 * An embedded view's page on its way to a window and in it: the accepted Url held until its frame can take it (inline:
 * once the element can be seen) or given to the popup at once, the window the element opened in the click, and the
 * page's messages (only its window's, on its origin). It tells the machine what became of the Url (`page-placed`, `closed`, `url-expiring`,
 * `failed`); the frame and the popup themselves are view-frame.ts.
 */
import type { ReactiveControllerHost } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import { hasPage } from './machine.js';
import type { ViewEvent } from './machine-types.js';
import type { ViewDisplay } from './rules.js';
import { emit } from '../shared/events.js';
import { isEsignMessage, isExpired, parseInstant } from './url-rules.js';
import { ViewFrame, ViewPopup, type HeldUrl } from './view-frame.js';
import type { ViewState } from './view-state.js';

export class ViewPage {
  readonly frame: ViewFrame;
  readonly popup = new ViewPopup();
  readonly #host: HTMLElement;
  readonly #send: (event: ViewEvent) => void;
  /** The accepted Url, until it is given to its frame or popup. */
  #held: HeldUrl | undefined;
  /** The window the element opened in the click, for the next popup request. */
  #clickPopup: Window | null = null;

  constructor(host: ReactiveControllerHost & HTMLElement, send: (event: ViewEvent) => void) {
    this.frame = new ViewFrame(host);
    this.#host = host;
    this.#send = send;
  }

  /** When the held Url is too old to use (ms since the epoch); undefined when none is held. */
  get heldUntil(): number | undefined {
    return this.#held?.expiresAtMs;
  }

  /** The window the element opened blank inside the click (null: the browser refused it), for the next popup request. */
  opened(popup: Window | null): void {
    this.#clickPopup = popup;
  }

  /** A Url is asked for, to show in `display`: its frame is prepared, or its window chosen. False when there is no window for it. */
  prepare(display: ViewDisplay): boolean {
    this.frame.prepare(display === 'inline');
    if (display === 'inline') return true;
    // the window opened in the click, else the one of the page being renewed
    const popup = this.#clickPopup ?? this.popup.open;
    this.#clickPopup = null;
    if (popup) this.popup.use(popup);
    return popup !== null;
  }

  /** Gives the accepted Url to the popup at once, or holds it for the frame (placed once the element can be seen). */
  show(display: ViewDisplay, url: string, expiresAt: string, state: ViewState, shown: boolean): void {
    this.frame.settled();
    // an unreadable ExpiresAt makes the Url good for immediate use only
    this.#held = { url, expiresAtMs: parseInstant(expiresAt) ?? Date.now() };
    if (display === 'popup') {
      const held = this.#take();
      const popup = this.popup.window;
      this.#send(held && popup && this.popup.place(popup, held.url) ? { type: 'page-placed' } : { type: 'closed' });
      return;
    }
    // the frame rendered while requesting takes the Url now, not after another update (else the next update does)
    this.placeHeld(state, shown);
  }

  /** Gives a held Url to the frame once the frame exists and the element can be seen (`shown`). */
  placeHeld(state: ViewState, shown: boolean): void {
    const held = this.#held;
    if (!held || state.shownIn !== 'inline' || state.status !== 'loading' || !shown) return;
    const frame = this.frame.blank(held);
    if (frame === 'failed') {
      this.#take();
      queueMicrotask(() => this.#send({ type: 'failed', error: new EsignError('view_failed', 'No blank frame could be prepared for the embedded page.') }));
    } else if (frame && isExpired(held.expiresAtMs, Date.now())) {
      // too old to use: a new Url (counted), asked for after this update
      this.#take();
      queueMicrotask(() => this.#send({ type: 'url-expiring', shown: true }));
    } else if (frame) {
      this.#take();
      this.frame.navigate(frame, held.url);
      this.#send({ type: 'page-placed' });
    }
  }

  /**
   * A message from a window: only the page we opened, on the origin of its Url, counts (any other window or origin is
   * ignored). Forwarded as `esign-view-message`; the page's own (`source: 'esign'`) told to the machine. `fileIds`: the
   * FileIds sent; `shown`: the element can be seen.
   */
  hear(event: MessageEvent, state: ViewState, fileIds: readonly string[], shown: boolean): void {
    const { shownIn, origin } = state;
    if (!state.placed || !hasPage(state)) return;
    const page = shownIn === 'popup' ? this.popup.window : this.frame.element?.contentWindow;
    if (!page || event.source !== page || event.origin !== origin) return;
    emit(this.#host, 'esign-view-message', { data: event.data, origin: event.origin });
    const data: unknown = event.data;
    if (!isEsignMessage(data)) return;
    switch (data.type) {
      case 'ready':
        return this.#send({ type: 'page-ready' });
      case 'resize': {
        const height = Number(data['height']);
        if (shownIn === 'inline' && Number.isFinite(height) && height > 0) this.frame.resize(Math.min(Math.ceil(height), 100_000));
        return;
      }
      case 'error': {
        // a renewed page could be shown now: the element can be seen, and a popup page's window is still open
        const canShow = shown && (shownIn !== 'popup' || this.popup.open !== null);
        return this.#send({ type: 'page-error', code: typeof data['code'] === 'string' ? data['code'] : 'unknown', shown: canShow });
      }
      case 'envelope-sent':
        if (typeof data['envelopeId'] !== 'string') return;
        return this.#send({
          type: 'envelope-sent',
          envelopeId: data['envelopeId'],
          status: typeof data['status'] === 'string' ? data['status'] : 'sent',
          fileIds,
        });
    }
  }

  /** Forgets the current page: the held Url, the frame's src, the popup (unless `keepPopup`). */
  clear(keepPopup: boolean): void {
    this.#held = undefined;
    this.frame.clear();
    this.popup.release(keepPopup);
  }

  /** The held Url, given away: it is not held any more. */
  #take(): HeldUrl | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }
}
