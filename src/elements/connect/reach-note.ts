/**
 * The note of <esign-connect> while a refresh cannot reach the token proxy (or the service): the account stays shown
 * (the session is not lost because a server is down), with a short note that goes by itself when a refresh works
 * again. Meanwhile it tries again with the elements' backoff (core/service/unreachable.ts): while the page is visible,
 * paused while hidden, one try at once when the tab is shown again or the window gets the focus.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { backoffDelay } from '../../core/service/retry.js';
import { browserOnline, unreachable, UNREACHABLE_RETRY, type Hop } from '../../core/service/unreachable.js';
import type { SessionChange } from '../../core/session/types.js';

export class ReachNote implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #retry: () => Promise<unknown>;
  #hop: Hop | undefined;
  #tries = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `retry`: one try (a token asked for, which refreshes). */
  constructor(host: ReactiveControllerHost, retry: () => Promise<unknown>) {
    this.#host = host;
    this.#retry = retry;
    host.addController(this);
  }

  /** What a refresh could not reach (`token-proxy` or `service`), while that is so; never `offline` (the offline note says it). */
  get hop(): Hop | undefined {
    return this.#hop;
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.#now);
    window.addEventListener('focus', this.#now);
  }

  hostDisconnected(): void {
    document.removeEventListener('visibilitychange', this.#now);
    window.removeEventListener('focus', this.#now);
    this.#stop();
  }

  /** The session manager's change: an unreachable refresh shows the note and schedules a try; anything else ends it. */
  change(change: SessionChange): void {
    if (change.type !== 'unreachable') {
      if (this.#hop) this.#set(undefined);
      this.#tries = 0;
      this.#stop();
      return;
    }
    const hop = unreachable(change.error, browserOnline());
    if (hop !== 'token-proxy' && hop !== 'service') return;
    this.#set(hop);
    this.#stop();
    this.#timer = setTimeout(this.#due, backoffDelay(this.#tries++, UNREACHABLE_RETRY));
  }

  #set(hop: Hop | undefined): void {
    this.#hop = hop;
    this.#host.requestUpdate();
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The backoff's try: now if the page is visible, else at the next look. */
  readonly #due = (): void => {
    this.#timer = undefined;
    if (document.visibilityState === 'visible') void this.#retry().catch(() => undefined);
  };

  /** Visible again, or focused: one try at once while the note is shown. */
  readonly #now = (): void => {
    if (!this.#hop || document.visibilityState !== 'visible') return;
    this.#stop();
    void this.#retry().catch(() => undefined);
  };
}
