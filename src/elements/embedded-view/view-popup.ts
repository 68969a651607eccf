/**
 * The popup window of `display="popup"`: the element opens it blank inside the person's click; this gives it the
 * checked Url, watches for the person closing it, brings it to the front, and closes it.
 */
export class ViewPopup {
  #window: Window | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #onClosed: () => void;

  /** `onClosed`: the person closed the window of the current page. */
  constructor(onClosed: () => void) {
    this.#onClosed = onClosed;
  }

  /** The window of the current page (or the blank one opened for it), while it is ours. */
  get window(): Window | null {
    return this.#window;
  }

  /** The window, while it is open. */
  get open(): Window | null {
    return this.#window && !this.#window.closed ? this.#window : null;
  }

  /** `popup` is the window of the next page (the one before, if another, is closed). */
  use(popup: Window): void {
    if (this.#window !== popup) this.release(false);
    this.#window = popup;
  }

  /** Gives the window its Url; false when the person closed it meanwhile. */
  place(popup: Window, url: string): boolean {
    if (popup.closed) return false;
    popup.location.replace(url);
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      if (this.#window === popup && popup.closed) this.#onClosed();
    }, 500);
    return true;
  }

  focus(): void {
    this.open?.focus();
  }

  /** Stops watching; the window is closed and forgotten unless `keep` (a popup stays open on the page of a sent envelope). */
  release(keep: boolean): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (keep) return;
    if (this.#window && !this.#window.closed) this.#window.close();
    this.#window = null;
  }
}
