/**
 * When an embedded view asks for a page by itself, one job: `auto` (once per session, Space, allowed origins and
 * FileIds), a re-attached element (an SPA route entered again), a page restored from the back/forward cache, an
 * expired page seen again (element shown, tab visible), and the connection's return after an offline failure. The
 * controller calls it from its own host hooks, in order (it decides before the controller resets on disconnection).
 * Loaded with the view's controller.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ViewDisplay, ViewStatus } from './rules.js';

/** What the triggers read of the view. */
export interface ViewState {
  readonly status: ViewStatus;
  readonly shownIn: ViewDisplay | undefined;
  readonly hasSession: boolean;
  readonly hasFiles: boolean;
}

/** What the triggers make the view do. */
export interface ViewActions {
  /** A bad setting is reported (true while there is one). */
  checkConfig(): boolean;
  /** The automatic open's key: a new one opens again. */
  autoKey(): string;
  /** Asks for a new Url for the inline frame (errors are reported by the view). */
  start(): void;
  /** Asks for a new Url for the current page (counted as an automatic renewal). */
  renew(): void;
  /** Closes the page: the session that opened it ended. */
  close(): void;
}

export interface ViewTriggerHost extends ReactiveControllerHost, HTMLElement {
  auto: boolean;
  display: ViewDisplay;
}

export class ViewTriggers {
  /** The key of the last automatic (or explicit) open. */
  autoKey = '';
  /** An offline failure: open again when the connection returns. */
  resumeOnline = false;
  #reopen = false;
  #wasShown = false;
  #scheduled = false;
  #resizeObserver: ResizeObserver | undefined;
  readonly #host: ViewTriggerHost;
  readonly #state: ViewState;
  readonly #view: ViewActions;

  constructor(host: ViewTriggerHost, state: ViewState, actions: ViewActions) {
    this.#host = host;
    this.#state = state;
    this.#view = actions;
  }

  connected(): void {
    document.addEventListener('visibilitychange', this.#onVisibility);
    window.addEventListener('pageshow', this.#onPageShow);
    if (typeof ResizeObserver === 'function') {
      // a host that goes from display:none to shown changes size: time to use or renew a held Url
      this.#resizeObserver ??= new ResizeObserver(() => this.#host.requestUpdate());
      this.#resizeObserver.observe(this.#host);
    }
  }

  /** Before the view resets: what to do when the element is attached again. */
  disconnected(): void {
    document.removeEventListener('visibilitychange', this.#onVisibility);
    this.#resizeObserver?.disconnect();
    // moved in the DOM, an iframe reloads its src: the used Url must not be fetched again, so a re-attached element asks for a new one
    this.#reopen = this.#mustReopen();
    // a sent envelope stays said: `auto` does not start the same files again
    if (this.#state.status !== 'sent') this.autoKey = '';
    this.#wasShown = false;
    window.removeEventListener('pageshow', this.#onPageShow);
  }

  /** After each update: decides in a microtask (decisions that start work run after the update, never inside it). */
  updated(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#decide();
    });
  }

  /** The browser's connection came back or went. */
  networkChanged(online: boolean): void {
    if (!online || !this.resumeOnline) return;
    this.resumeOnline = false;
    this.#view.start();
  }

  /** A page in a frame (asked for, shown, or expired) whose Url must not be used again. */
  #mustReopen(): boolean {
    const { status } = this.#state;
    return this.#state.shownIn !== 'popup' && (status === 'requesting' || status === 'loading' || status === 'loaded' || status === 'expired');
  }

  #decide(): void {
    const view = this.#view;
    const state = this.#state;
    if (!this.#host.isConnected || view.checkConfig()) return;
    const shown = isShown(this.#host);
    const becameShown = shown && !this.#wasShown;
    this.#wasShown = shown;
    if (!state.hasSession) {
      // the session ended: the page of that account goes too
      if (state.status !== 'idle' && state.status !== 'error') view.close();
      this.autoKey = '';
      return;
    }
    const display: ViewDisplay = this.#host.display === 'popup' ? 'popup' : 'inline';
    if (this.#reopen && display === 'inline') {
      this.#reopen = false;
      this.autoKey = view.autoKey();
      view.start();
      return;
    }
    // expired while out of sight: seen again (element shown, tab visible), it asks for a new Url; while in sight the user decides
    if (state.status === 'expired' && state.shownIn !== 'popup' && becameShown) {
      view.renew();
      return;
    }
    if (!this.#host.auto || display !== 'inline' || !state.hasFiles) return;
    const key = view.autoKey();
    if (key === this.autoKey) return;
    this.autoKey = key;
    view.start();
  }

  /**
   * The page came back from the back/forward cache: its frame shows a page whose Url was used (or has expired since), so
   * a new Url is asked for, as for a re-attached element; a sent envelope stays shown.
   */
  readonly #onPageShow = (event: PageTransitionEvent): void => {
    if (!event.persisted || !this.#mustReopen()) return;
    this.#reopen = true;
    this.#host.requestUpdate();
  };

  readonly #onVisibility = (): void => {
    if (document.visibilityState === 'visible') this.#host.requestUpdate();
  };
}

/** Whether `host` can be seen: connected, its tab visible, not hidden by a style (`checkVisibility` where there is one). */
export function isShown(host: HTMLElement): boolean {
  if (document.visibilityState === 'hidden' || !host.isConnected) return false;
  const check = (host as HTMLElement & { checkVisibility?: () => boolean }).checkVisibility;
  return check ? check.call(host) : true;
}
