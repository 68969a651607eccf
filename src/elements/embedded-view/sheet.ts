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
 * Its styles are the element's (template.ts); it is loaded with the view's controller.
 */
import { html, render, svg, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { icon } from '../shared/icons.js';
import type { LocalizeController } from '../shared/localize.js';
import type { StateTerms } from './embedded-view.messages.js';

export interface SheetHost extends ReactiveControllerHost, HTMLElement {
  /** The element's `sheet` setting. */
  sheet: boolean;
  readonly status: string;
  close(): void;
}

/** Below this viewport width (a CSS length) the shown page is a sheet, unless `--esign-sheet-breakpoint` says otherwise. */
export const SHEET_BREAKPOINT = '640px';
/** The history state's key that marks the entry a sheet pushed. */
const MARK = 'esignSheet';
/** The statuses in which the frame is shown. */
const SHOWN = new Set(['requesting', 'loading', 'loaded']);

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

const closeIcon = svg`<path d="M6 6l12 12M18 6 6 18"/>`;

export class SheetController implements ReactiveController {
  readonly #host: SheetHost;
  readonly #words: Pick<LocalizeController<StateTerms>, 'term'>;
  /** The bar with the close button, put at the top of `[part~=base]` while the sheet is open. */
  readonly #bar = document.createElement('div');
  /** The `[part~=base]` shown as the sheet, while it is open. */
  #base: HTMLElement | undefined;
  /** This sheet's history marker (one per opening). */
  #mark = '';

  /** `words`: the element's words of the later states (a controller of the element, so a language change updates it). */
  constructor(host: SheetHost, words: Pick<LocalizeController<StateTerms>, 'term'>) {
    this.#host = host;
    this.#words = words;
    this.#bar.setAttribute('part', 'sheet-bar');
    host.addController(this);
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
    this.#hide();
  }

  hostUpdated(): void {
    const root = this.#host.shadowRoot;
    const base = root?.querySelector<HTMLElement>('[part~="base"]') ?? undefined;
    const wanted = this.#host.sheet && SHOWN.has(this.#host.status) && !!root?.querySelector('iframe[part~="frame"]') && this.#narrow();
    if (wanted && base) this.#show(base);
    else this.#hide();
  }

  /** Whether the viewport is narrower than the breakpoint (the element's `--esign-sheet-breakpoint`, a CSS length). */
  #narrow(): boolean {
    const breakpoint = getComputedStyle(this.#host).getPropertyValue('--esign-sheet-breakpoint').trim() || SHEET_BREAKPOINT;
    return window.matchMedia(`(width < ${breakpoint})`).matches;
  }

  #show(base: HTMLElement): void {
    const frame = base.querySelector('iframe[part~="frame"]');
    render(
      html`<button part="button sheet-close" class="secondary" type="button" @click=${() => this.#host.close()}>${icon(closeIcon)}${this.#words.term('closeSheet')}</button>`,
      this.#bar,
    );
    // the label of the layer: the frame's title ("E-signature: new envelope")
    base.setAttribute('aria-label', frame?.getAttribute('title') ?? '');
    if (this.#base === base) return;
    this.#hide();
    this.#base = base;
    base.prepend(this.#bar);
    base.setAttribute('data-sheet', '');
    base.setAttribute('role', 'dialog');
    if (typeof base.showPopover === 'function') {
      base.setAttribute('popover', 'manual');
      base.showPopover();
    }
    this.#mark = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const state: unknown = history.state;
    history.pushState({ ...(state !== null && typeof state === 'object' ? state : {}), [MARK]: this.#mark }, '');
    // focus was on what opened it (gone now) or nowhere: the close button, the one control of the sheet the page can give it
    const active = document.activeElement;
    if (!active || active === document.body || (active === this.#host && !this.#host.shadowRoot?.activeElement)) this.#closeButton()?.focus();
  }

  /** Back to the element's place in the page; our history entry, if it is still the current one, is gone back over. */
  #hide(): void {
    const base = this.#base;
    if (!base) return;
    const hadFocus = this.#bar.contains(this.#host.shadowRoot?.activeElement ?? null);
    this.#base = undefined;
    if (typeof base.hidePopover === 'function' && base.matches(':popover-open')) base.hidePopover();
    for (const name of ['popover', 'data-sheet', 'role', 'aria-label']) base.removeAttribute(name);
    this.#bar.remove();
    if (this.#onOurEntry()) {
      pendingBacks += 1;
      history.back();
    }
    // the close button had focus: give it to the element's next control (its open button), not to the page's body
    if (hadFocus) void this.#host.updateComplete.then(() => this.#host.shadowRoot?.querySelector<HTMLElement>('button')?.focus());
  }

  #onOurEntry(): boolean {
    const state: unknown = history.state;
    return state !== null && typeof state === 'object' && (state as Record<string, unknown>)[MARK] === this.#mark;
  }

  #closeButton(): HTMLButtonElement | null {
    return this.#bar.querySelector('button');
  }

  /** Back (or forward) left our entry: the person closed the sheet, so the page goes; our own back is not that. */
  readonly #onPopState = (): void => {
    if (ownPopState) return;
    if (this.#base && !this.#onOurEntry()) {
      this.#mark = '';
      this.#host.close();
    }
  };

  readonly #onResize = (): void => {
    if (this.#host.sheet) this.#host.requestUpdate();
  };

  readonly #onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && this.#base && !event.defaultPrevented) {
      event.preventDefault();
      this.#host.close();
    }
  };
}
