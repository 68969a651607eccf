/**
 * Keeping a keyboard or screen-reader user's place when an element re-renders, and telling them what changed.
 *
 * `FocusKeeper`: before each update it notes whether the focus is inside the element's shadow root, and in which
 * focus scope (an element with `data-focus-scope="<key>"`: a file row, a state card); after the update, when the
 * focused control is gone (or disabled), focus goes to the declared successor instead of falling to `<body>`:
 *   1. the first control of the same scope, when it is still there (Retry → the row's Cancel);
 *   2. else the scope that took its place among its siblings, the next one or else the one before (Remove → next row);
 *   3. else the element's own successor (`fallback`), e.g. the control that replaced it (Connect → Connecting… →
 *      Disconnect) or a state's heading (`data-focus-target`, tabindex="-1").
 * Nothing moves when the focus was outside the element, or is still on a control that stayed.
 *
 * `liveRegions`: one polite and one assertive region per element, in the DOM from the first render, so a change of
 * their text is announced (a region inserted already holding its text often is not).
 */
import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';

const FOCUSABLE = 'button, [href], input:not([type="hidden"]), select, textarea, iframe, [tabindex]';

/** The controls of `root` that can take the focus, in order (disabled and hidden ones left out). */
export function focusables(root: ParentNode): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => canFocus(el) && el.tabIndex >= 0);
}

function canFocus(el: HTMLElement): boolean {
  if (!el.isConnected || (el as HTMLButtonElement).disabled || el.hidden || el.inert || el.closest('[inert]')) return false;
  // not displayed (display: none, or inside such): no boxes
  return el.getClientRects().length > 0;
}

interface Place {
  element: HTMLElement;
  /** The key of the focus scope that held it, and that scope's position among its siblings. */
  scope: string | undefined;
  index: number;
  /** The scopes' container, to find the sibling that took its place. */
  container: Element | null;
}

export class FocusKeeper implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #fallback: () => HTMLElement | null | undefined;
  #place: Place | undefined;

  /** `fallback`: where the focus goes when neither its control nor its scope is left (the element's main control). */
  constructor(host: ReactiveControllerHost & HTMLElement, fallback: () => HTMLElement | null | undefined) {
    this.#host = host;
    this.#fallback = fallback;
    host.addController(this);
  }

  hostUpdate(): void {
    const active = this.#host.shadowRoot?.activeElement as HTMLElement | null | undefined;
    if (!active) {
      this.#place = undefined;
      return;
    }
    const scope = active.closest<HTMLElement>('[data-focus-scope]');
    const container = scope?.parentElement ?? null;
    const siblings = container ? Array.from(container.children).filter((child) => child.hasAttribute('data-focus-scope')) : [];
    this.#place = { element: active, scope: scope?.dataset['focusScope'], index: scope ? siblings.indexOf(scope) : -1, container };
  }

  hostUpdated(): void {
    const place = this.#place;
    this.#place = undefined;
    if (!place || canFocus(place.element)) return;
    const root = this.#host.shadowRoot;
    // the focus went elsewhere on its own (the person moved on): leave it there
    if (!root || (root.activeElement && root.activeElement !== place.element)) return;
    const target = this.#successor(root, place);
    target?.focus({ preventScroll: false });
  }

  #successor(root: ShadowRoot, place: Place): HTMLElement | undefined {
    if (place.scope !== undefined) {
      const scopes = Array.from(root.querySelectorAll<HTMLElement>('[data-focus-scope]'));
      const same = scopes.find((scope) => scope.dataset['focusScope'] === place.scope);
      const inSame = same && firstIn(same);
      if (inSame) return inSame;
      const siblings = place.container?.isConnected
        ? Array.from(place.container.children).filter((c): c is HTMLElement => c.hasAttribute('data-focus-scope'))
        : [];
      const next = siblings[Math.min(place.index, siblings.length - 1)];
      const inNext = next && firstIn(next);
      if (inNext) return inNext;
    }
    const fallback = this.#fallback();
    if (fallback && (canFocus(fallback) || fallback.tabIndex === -1)) return fallback;
    return root.querySelector<HTMLElement>('[data-focus-target]') ?? focusables(root)[0];
  }
}

/** The scope's own target (`data-focus-target`), else its first control, else the scope itself when it takes the focus. */
function firstIn(scope: HTMLElement): HTMLElement | undefined {
  const target = scope.querySelector<HTMLElement>('[data-focus-target]');
  if (target) return target;
  return focusables(scope)[0] ?? (scope.hasAttribute('tabindex') ? scope : undefined);
}

/**
 * The element's two live regions (with `visuallyHiddenStyles`): `polite` for progress and outcomes, `assertive` for
 * errors. Render them in every state, at the same place, so only their text changes.
 */
export function liveRegions(polite: string, assertive: string): TemplateResult {
  return html`<div class="visually-hidden" data-live="polite" role="status" aria-live="polite" aria-atomic="true">${polite}</div><div
      class="visually-hidden"
      data-live="assertive"
      aria-live="assertive"
      aria-atomic="true"
    >${assertive}</div>`;
}
