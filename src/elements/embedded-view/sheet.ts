/**
 * The phone sheet of the embedded views (`sheet` attribute): below a breakpoint the shown page takes the whole screen,
 * with a visible close button and the safe areas kept clear, and the browser's back button closes it instead of
 * leaving the host page.
 *
 * How: while the frame is shown (requesting into a blank frame, loading, loaded) and the viewport is narrower than
 * `--esign-sheet-breakpoint` (default 640px), the element's `[part~=base]` becomes a full-screen layer: in the top
 * layer as a manual popover where the browser has popovers (no z-index of the page can cover it), else fixed at
 * `--esign-sheet-z-index`. Nothing moves in the DOM (a moved iframe reloads, and its Url is single-use), and the
 * viewport meta is never touched (pinch-zoom stays). Opening pushes one history entry (the page's own state kept, plus
 * a marker); back (popstate) closes the page; closing any other way (the close button, Escape, `close()`, an envelope
 * sent, an error, a wider window) goes back over that entry, so none is left behind.
 *
 * Who does what: this controller owns the sheet's state (`open`, its history entry, the popstate, resize and Escape
 * listeners) and does only what cannot be a binding: `showPopover()`/`hidePopover()` and moving the focus. The
 * element's template (template.ts) renders the open sheet from `open`: the base part's `data-sheet`, `role`, `aria-label`
 * and `popover`, and the bar with its close button, with the element's styles and words. It is loaded with the view's
 * controller; before that the sheet is closed.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export interface SheetHost extends ReactiveControllerHost, HTMLElement {
  /** The element's `sheet` setting. */
  sheet: boolean;
  close(): void;
}

/** Below this viewport width (a CSS length) the shown page is a sheet, unless `--esign-sheet-breakpoint` says otherwise. */
export const SHEET_BREAKPOINT = '640px';
/** The history state's key that marks the entry a sheet pushed. */
const MARK = 'esignSheet';

/**
 * Our own `history.back()` calls whose popstate has not come yet, for every element (one element may go back as it is
 * removed, while another opens): a popstate that is one of these is not the person's.
 */
let pendingBacks = 0;
/** True while the popstate being dispatched is one of ours (set by the first listener, registered here). */
let ownPopState = false;
if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    ownPopState = pendingBacks > 0;
    if (ownPopState) pendingBacks -= 1;
  });
}

export class SheetController implements ReactiveController {
  readonly #host: SheetHost;
  /** Whether the view's page is in the element's frame (`connect()`'s `frameShown`). */
  readonly #frameShown: () => boolean;
  #open = false;
  /** Where the focus goes once the element is rendered: to the close button of a sheet just opened, or to the next control. */
  #focus: 'close' | 'next' | undefined;
  /** This sheet's history marker (one per opening). */
  #mark = '';

  constructor(host: SheetHost, frameShown: () => boolean) {
    this.#host = host;
    this.#frameShown = frameShown;
    host.addController(this);
  }

  /** Whether the sheet is open: the template shows `[part~=base]` as the sheet, with its bar. */
  get open(): boolean {
    return this.#open;
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.#onPopState);
    window.addEventListener('resize', this.#onResize);
    this.#host.addEventListener('keydown', this.#onKey);
    this.#host.requestUpdate();
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.#onPopState);
    window.removeEventListener('resize', this.#onResize);
    this.#host.removeEventListener('keydown', this.#onKey);
    if (this.#open) {
      this.#close();
      this.#host.requestUpdate();
    }
  }

  /** Before the element renders: open while the frame is shown on a narrow viewport, else closed. */
  hostUpdate(): void {
    const wanted = this.#host.isConnected && this.#host.sheet && this.#frameShown() && this.#narrow();
    if (wanted === this.#open) return;
    if (wanted) {
      this.#open = true;
      this.#focus = 'close';
      this.#mark = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const state: unknown = history.state;
      history.pushState({ ...(state !== null && typeof state === 'object' ? state : {}), [MARK]: this.#mark }, '');
    } else {
      this.#close();
    }
  }

  /** Once rendered: the open sheet in the top layer, and the focus where it goes. */
  hostUpdated(): void {
    const root = this.#host.shadowRoot;
    const base = this.#base();
    const focus = this.#focus;
    this.#focus = undefined;
    // the close button had focus: it goes to the element's next control (its open button), not to the page's body
    if (focus === 'next') root?.querySelector<HTMLElement>('button')?.focus();
    if (!this.#open || !base) return;
    if (typeof base.showPopover === 'function' && !base.matches(':popover-open')) base.showPopover();
    // focus was on what opened it (gone now) or nowhere: the close button, the one control of the sheet the page can give it
    const active = document.activeElement;
    if (focus === 'close' && (!active || active === document.body || (active === this.#host && !root?.activeElement))) {
      root?.querySelector<HTMLElement>('[part~="sheet-close"]')?.focus();
    }
  }

  /** Whether the viewport is narrower than the breakpoint (the element's `--esign-sheet-breakpoint`, a CSS length). */
  #narrow(): boolean {
    const breakpoint = getComputedStyle(this.#host).getPropertyValue('--esign-sheet-breakpoint').trim() || SHEET_BREAKPOINT;
    return window.matchMedia(`(width < ${breakpoint})`).matches;
  }

  #base(): HTMLElement | null | undefined {
    return this.#host.shadowRoot?.querySelector<HTMLElement>('[part~="base"]');
  }

  /**
   * Back to the element's place in the page (the next render drops the sheet's attributes and bar); our history
   * entry, if it is still the current one, is gone back over.
   */
  #close(): void {
    this.#open = false;
    this.#focus = this.#host.shadowRoot?.activeElement?.matches('[part~="sheet-close"]') ? 'next' : undefined;
    const base = this.#base();
    if (typeof base?.hidePopover === 'function' && base.matches(':popover-open')) base.hidePopover();
    if (this.#onOurEntry()) {
      pendingBacks += 1;
      history.back();
    }
  }

  #onOurEntry(): boolean {
    const state: unknown = history.state;
    return state !== null && typeof state === 'object' && (state as Record<string, unknown>)[MARK] === this.#mark;
  }

  /** Back (or forward) left our entry: the person closed the sheet, so the page goes; our own back is not that. */
  readonly #onPopState = (): void => {
    if (ownPopState) return;
    if (this.#open && !this.#onOurEntry()) {
      this.#mark = '';
      this.#host.close();
    }
  };

  readonly #onResize = (): void => {
    if (this.#host.sheet) this.#host.requestUpdate();
  };

  readonly #onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && this.#open && !event.defaultPrevented) {
      event.preventDefault();
      this.#host.close();
    }
  };
}
