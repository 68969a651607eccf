/**
 * Where an embedded view's page is shown: the inline frame (`ViewFrame`) and the popup (`ViewPopup`, below).
 *
 * The inline frame, one job: every Url goes to an iframe that never navigated before, and only
 * by `location.replace` after the Url was checked (never through a `src` attribute: the token stays out of the DOM).
 *
 * Building an iframe makes the browser create a browsing context and load about:blank synchronously (several ms), so
 * it is done before the Url is needed: while the element waits with a session (idle, expired or sent, inline, settings
 * valid, shown), one blank, hidden, inert frame is built in idle time (the machine's `frame-prebuild` activity,
 * view-activities.ts); the next request adopts it. Without one (no idle time yet, or a renewal of a frame in use), a
 * fresh blank frame is rendered as soon as the request is sent, so that work overlaps the request. It also sizes the
 * frame to the height its page reports.
 */
import type { ReactiveControllerHost } from 'lit';
import { FRAME_SANDBOX } from './rules.js';

/** A checked Url, not given to a window yet. */
export interface HeldUrl {
  url: string;
  expiresAtMs: number;
  /** A frame that was not blank any more was replaced once for this Url (a second time is an error, not a loop). */
  replacedFrame?: boolean;
}

export class ViewFrame {
  #viewId = 0;
  #pending = false;
  #height: number | undefined;
  #prebuilt = false;
  /** Frames that were given a Url: never given another (a Url may be placed before the update that renders its fresh frame). */
  readonly #used = new WeakSet<HTMLIFrameElement>();
  readonly #host: ReactiveControllerHost & HTMLElement;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.#host = host;
  }

  /**
   * The key of the rendered iframe. A new key means a new iframe element: it changes whenever a frame that never
   * navigated is needed (a pre-built frame, or a Url with no unused frame to adopt), so every Url gets a fresh one.
   */
  get viewId(): number {
    return this.#viewId;
  }

  /** True while the fresh frame of a Url on its way is rendered (blank, sandboxed, hidden). */
  get pending(): boolean {
    return this.#pending;
  }

  /** The height the page reported with `resize`, in CSS pixels. */
  get height(): number | undefined {
    return this.#height;
  }

  /** The rendered iframe, looked up in the shadow root as Lit's `@query` does (one iframe at a time: the template keys it). */
  get element(): HTMLIFrameElement | undefined {
    return this.#host.shadowRoot?.querySelector('iframe') ?? undefined;
  }

  /** Whether the pre-built frame is rendered: one was built, and the element still waits for a Url. */
  get prebuilt(): boolean {
    return this.#prebuilt;
  }

  /**
   * A Url is asked for: its frame is the pre-built one if it is rendered and still blank (same key, so the same
   * element, shown as pending at once), else a new one (new key), rendered by `requestSent()`.
   */
  prepare(inline: boolean): void {
    const adopt = inline && this.#prebuilt && this.isFresh(this.element);
    this.forgetPrebuilt();
    this.#height = undefined;
    if (adopt) this.#pending = true;
    else this.#renew();
  }

  /** The request of an inline Url is on its way: its blank frame is rendered now, so building it does not delay sending it. */
  requestSent(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#host.requestUpdate();
  }

  /** The request ended (answered or failed): the frame is not waiting for a Url any more. */
  settled(): void {
    this.#pending = false;
  }

  /** The page reported its height. */
  resize(height: number): void {
    this.#height = height;
    this.#host.requestUpdate();
  }

  /** The next render makes a new iframe element. */
  #renew(): void {
    this.#viewId += 1;
    this.#host.requestUpdate();
  }

  /** A frame that was never given a Url and still shows its initial about:blank (same origin as this page, so readable). */
  isFresh(frame: HTMLIFrameElement | undefined): frame is HTMLIFrameElement {
    if (!frame || !frame.isConnected || this.#used.has(frame)) return false;
    try {
      return frame.contentWindow?.location.href === 'about:blank';
    } catch {
      return false; // another origin's document: it navigated
    }
  }

  /** The rendered frame, if it may still be given a Url (attached, never given one). */
  get candidate(): HTMLIFrameElement | undefined {
    const frame = this.element;
    return frame && frame.isConnected && !this.#used.has(frame) ? frame : undefined;
  }

  /**
   * The rendered frame if it may take `held` now (attached, never given a Url, still about:blank); undefined while
   * there is none yet. A frame that navigated anyway (should not happen) is never reused: a new one is rendered, once
   * per Url ('failed' the second time).
   */
  blank(held: HeldUrl): HTMLIFrameElement | 'failed' | undefined {
    const frame = this.candidate;
    if (!frame || this.isFresh(frame)) return frame;
    this.#used.add(frame);
    if (held.replacedFrame) return 'failed';
    held.replacedFrame = true;
    this.#renew();
    return undefined;
  }

  /** Gives a fresh frame its Url, by navigation. */
  navigate(frame: HTMLIFrameElement, url: string): void {
    this.#used.add(frame);
    // exactly as returned, and as a navigation rather than a src attribute: the token stays out of the DOM, and a
    // re-inserted frame (which reloads its src) has nothing to load again (isFresh checked that contentWindow exists).
    // sandbox flags are taken when a navigation starts: the service's page gets the full set, the blank document never had scripts
    frame.setAttribute('sandbox', FRAME_SANDBOX);
    frame.contentWindow!.location.replace(url);
  }

  /** A blank frame waits for the next Url: a new key, so a new iframe element, attached by the next render; never one that was given a Url. */
  prebuild(): void {
    this.#prebuilt = true;
    this.#renew();
  }

  /** No frame waits ahead of need any more: the next render has none (or the request that adopted it keeps it). */
  forgetPrebuilt(): void {
    if (!this.#prebuilt) return;
    this.#prebuilt = false;
    this.#host.requestUpdate();
  }

  /** The height the page reported, set through the CSSOM: never a style attribute, so a strict style-src allows it. */
  size(): void {
    const frame = this.element;
    if (!frame) return;
    const { style } = frame;
    let height = '';
    if (this.#height) {
      // the page reported the height of its own viewport's content; the frame's box also holds its border (and any
      // padding a page style gives it through ::part(frame)) when it is border-box, as it is by default: without
      // them the page is a few pixels short and engines with classic scrollbars show one
      const box = getComputedStyle(frame);
      const around =
        box.boxSizing === 'border-box'
          ? ['borderTopWidth', 'borderBottomWidth', 'paddingTop', 'paddingBottom'].reduce(
              (sum, side) => sum + (parseFloat(box[side as 'borderTopWidth']) || 0),
              0,
            )
          : 0;
      height = `${this.#height + around}px`;
    }
    style.flexBasis = height;
    style.height = height;
  }

  /** Forgets the current page's frame: an iframe keeps its src when detached and loads it again when re-inserted. */
  clear(): void {
    this.#pending = false;
    this.#height = undefined;
    this.element?.removeAttribute('src');
  }
}

// ---- the popup ----

/**
 * The popup window of `display="popup"`: the element opens it blank inside the person's click; this gives it the
 * checked Url, brings it to the front, and closes it. (Whether the person closed it is watched while the page is in it:
 * the controller's `popup-watch` activity.)
 */
export class ViewPopup {
  #window: Window | null = null;

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
    return true;
  }

  focus(): void {
    this.open?.focus();
  }

  /** Forgets the window, closing it unless `keep` (a popup stays open on the page of a sent envelope). */
  release(keep: boolean): void {
    if (keep) return;
    if (this.#window && !this.#window.closed) this.#window.close();
    this.#window = null;
  }
}
