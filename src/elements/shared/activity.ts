/**
 * `esign-activity` for host idle timers: the person works inside the embedded page, which the host page cannot see
 * (another origin's document: its clicks and keys never reach this window). What it can see, it reports, throttled:
 * focus entering the page's frame (as `focusin` on the frame, or as this window's `blur` with the frame focused),
 * and the page's messages that a person causes (`esign-view-message`: only the page the element opened, on its Url's
 * origin): `activity`, `envelope-sent`, … but not the page's own `ready`, `resize` or `error`, which come without
 * anyone there (an idle timer that signs out an unattended session must not be kept alive by a page loading).
 *
 * Loaded with the embedded views' later part (not at first render).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { emit } from './events.js';
import type { EsignActivityDetail, EsignViewMessageDetail } from './events.js';

/** At most one `esign-activity` per element in this many milliseconds (idle timers count in minutes). */
export const ACTIVITY_INTERVAL_MS = 5_000;
/** The page's messages that are not the person's doing (docs/architecture.md, embedded page messages). */
const NOT_THE_PERSON = new Set(['ready', 'resize', 'error']);

export class ActivityController implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #frame: () => Element | null | undefined;
  /** When the last event was sent (performance.now(): a clock change does not stop or flood them). */
  #last = -Infinity;

  /** `frame`: the element's shown frame, if any (a frame built ahead of need is not the page). */
  constructor(host: ReactiveControllerHost & HTMLElement, frame: () => Element | null | undefined) {
    this.#host = host;
    this.#frame = frame;
    host.addController(this);
  }

  hostConnected(): void {
    this.#host.addEventListener('esign-view-message', this.#onMessage);
    this.#host.addEventListener('focusin', this.#onFocusIn);
    window.addEventListener('blur', this.#onBlur);
  }

  hostDisconnected(): void {
    this.#host.removeEventListener('esign-view-message', this.#onMessage);
    this.#host.removeEventListener('focusin', this.#onFocusIn);
    window.removeEventListener('blur', this.#onBlur);
  }

  readonly #onMessage = (event: CustomEvent<EsignViewMessageDetail>): void => {
    const data = event.detail.data as { source?: unknown; type?: unknown } | null;
    if (typeof data === 'object' && data?.source === 'esign' && typeof data.type === 'string' && !NOT_THE_PERSON.has(data.type)) this.#seen('message');
  };

  readonly #onFocusIn = (event: FocusEvent): void => {
    const frame = this.#frame();
    if (frame && event.composedPath()[0] === frame) this.#seen('focus');
  };

  /** Focus moving into a frame blurs this window; the frame is then the focused element (known after the blur). */
  readonly #onBlur = (): void => {
    setTimeout(() => {
      const frame = this.#frame();
      if (frame && document.activeElement === this.#host && this.#host.shadowRoot?.activeElement === frame) this.#seen('focus');
    }, 0);
  };

  #seen(source: EsignActivityDetail['source']): void {
    const now = performance.now();
    if (now - this.#last < ACTIVITY_INTERVAL_MS) return;
    this.#last = now;
    emit(this.#host, 'esign-activity', { source, at: Date.now() });
  }
}
