/**
 * The messages of an embedded view's page, one job: listens to `message` on the window while the element is
 * connected, keeps only those of the page it opened (its window, the exact origin of its Url), forwards each as
 * `esign-view-message`, tells the controller the ones it acts on, and times the page's `ready` (the load timeout).
 * Loaded with the view's controller.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { emit } from '../shared/events.js';
import { isEsignMessage } from './page-rules.js';

/** What the page says that the view acts on. */
export interface PageEvents {
  ready(): void;
  resize(height: number): void;
  error(code: string): void;
  envelopeSent(envelopeId: string, status: string): void;
}

/** The page being listened to: its window and its Url's origin; undefined while no page is open. */
export type PageSource = () => { window: Window | null | undefined; origin: string | undefined } | undefined;

export class PageMessages implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #source: PageSource;
  readonly #on: PageEvents;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost & HTMLElement, source: PageSource, on: PageEvents) {
    this.#host = host;
    this.#source = source;
    this.#on = on;
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('message', this.#onMessage);
  }

  hostDisconnected(): void {
    window.removeEventListener('message', this.#onMessage);
  }

  /** The page was given its Url: `late` runs unless it says `ready` within `timeoutMs` (0: no limit). */
  expectReady(timeoutMs: number, late: () => void): void {
    this.stopWaiting();
    if (timeoutMs > 0) this.#timer = setTimeout(() => ((this.#timer = undefined), late()), timeoutMs);
  }

  /** No `ready` is waited for any more. */
  stopWaiting(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #onMessage = (event: MessageEvent): void => {
    const page = this.#source();
    // only the page we opened, on the origin of its Url: any other window or origin is ignored
    if (!page?.window || event.source !== page.window || event.origin !== page.origin) return;
    emit(this.#host, 'esign-view-message', { data: event.data, origin: event.origin });
    const data: unknown = event.data;
    if (!isEsignMessage(data)) return;
    switch (data.type) {
      case 'ready':
        this.#on.ready();
        break;
      case 'resize': {
        const height = Number(data['height']);
        if (Number.isFinite(height) && height > 0) this.#on.resize(Math.min(Math.ceil(height), 100_000));
        break;
      }
      case 'error':
        this.#on.error(typeof data['code'] === 'string' ? data['code'] : 'unknown');
        break;
      case 'envelope-sent':
        if (typeof data['envelopeId'] === 'string') this.#on.envelopeSent(data['envelopeId'], typeof data['status'] === 'string' ? data['status'] : 'sent');
        break;
    }
  };
}
