/**
 * The popup window of an embedded view (`display="popup"`), one job: the element opens it blank inside the user's
 * click; this gives it the checked Url, watches for the user closing it, brings it to the front, and closes it.
 * Loaded with the view's controller.
 */
export class ViewPopup {
  /** The window of the current page (or the blank one opened for it), while it is ours. */
  window: Window | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #onClosed: () => void;

  /** `onClosed`: the user closed the window of the current page. */
  constructor(onClosed: () => void) {
    this.#onClosed = onClosed;
  }

  /** The window, while it is open. */
  get open(): Window | null {
    return this.window && !this.window.closed ? this.window : null;
  }

  /** Gives the window its Url; false when the user closed it meanwhile. */
  place(popup: Window, url: string): boolean {
    if (popup.closed) return false;
    popup.location.replace(url);
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      if (this.window === popup && popup.closed) this.#onClosed();
    }, 500);
    return true;
  }

  /** Brings the window to the front. */
  focus(): void {
    this.open?.focus();
  }

  /** Stops watching, and closes the window unless it is `keep` (a popup stays open on the page of a sent envelope). */
  release(keep?: Window): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.window && this.window !== keep && !this.window.closed) this.window.close();
    if (this.window !== keep) this.window = null;
  }
}
