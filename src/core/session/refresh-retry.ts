/**
 * Tries a refresh again after one that could not reach the token proxy (or the service): with the elements' backoff
 * (core/service/unreachable.ts) while the page is visible, paused while it is hidden, one try at once when it is
 * shown again or the window gets the focus; stopped by a refresh that works or a session that ends. So the note of
 * <esign-connect> ("the token proxy cannot be reached") goes by itself when the proxy answers again.
 */
import { backoffDelay } from '../service/retry.js';
import { UNREACHABLE_RETRY } from '../service/unreachable.js';

export class RefreshRetry {
  readonly #try: () => Promise<unknown>;
  #tries = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #listening = false;

  /** `tryNow`: one refresh (its failure calls `failed()` again). */
  constructor(tryNow: () => Promise<unknown>) {
    this.#try = tryNow;
  }

  /** A refresh could not reach its server: the next try after the backoff. */
  failed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        if (visible()) this.#now();
      },
      backoffDelay(this.#tries++, UNREACHABLE_RETRY),
    );
    if (this.#listening || typeof window === 'undefined') return;
    this.#listening = true;
    document.addEventListener('visibilitychange', this.#look);
    window.addEventListener('focus', this.#look);
  }

  /** A refresh worked, or the session ended: no more tries. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#tries = 0;
    if (!this.#listening) return;
    this.#listening = false;
    document.removeEventListener('visibilitychange', this.#look);
    window.removeEventListener('focus', this.#look);
  }

  #now(): void {
    void this.#try().catch(() => undefined);
  }

  /** Shown again or focused: one try at once. */
  readonly #look = (): void => {
    if (!visible()) return;
    clearTimeout(this.#timer);
    this.#now();
  };
}

const visible = (): boolean => typeof document === 'undefined' || document.visibilityState === 'visible';
