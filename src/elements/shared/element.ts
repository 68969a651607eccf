import { LitElement } from 'lit';

/**
 * What every esign element shares: the theme, `esign-error`, and one way to show where it is: a read-only `status`,
 * also the `status` attribute and a custom state, so `esign-connect:state(connected)` and
 * `esign-connect[status='connected']` both style it (custom states where the browser has them).
 *
 * @fires esign-error - Something failed; `detail.error` is an `EsignError` with a stable `code`. `detail.hop` says what could not be reached (`offline`, `token-proxy`, `service`, `page`; absent otherwise: docs/guides/when-something-is-down.md).
 *
 * @cssprop [--esign-accent=light-dark(#2557d6, #8cb0ff)] - Primary colour: buttons, progress, focus rings, links.
 * @cssprop [--esign-accent-contrast=light-dark(#ffffff, #0b1530)] - Text on the primary colour.
 * @cssprop [--esign-text=CanvasText] - Text on the elements' surfaces.
 * @cssprop [--esign-surface=Canvas] - Background of secondary buttons, the drop zone, file rows, state cards and behind the frame.
 * @cssprop [--esign-danger=light-dark(#b3261e, #ffb4ab)] - Errors.
 * @cssprop [--esign-success=light-dark(#1b6e3a, #8fdca6)] - Success (connected, uploaded, sent).
 * @cssprop [--esign-font=system-ui, sans-serif] - Font family.
 * @cssprop [--esign-radius=8px] - Corner radius.
 * @cssprop [--esign-spacing=0.5rem] - Spacing unit; gaps and paddings are multiples of it.
 */
export abstract class EsignElement extends LitElement {
  /** Where the element is. Also the `status` attribute and the custom state `:state(<status>)`; set by the element (read-only for you). */
  abstract readonly status: string;

  /** The element's internals (custom states; the uploader's form value and validity), where the browser has them. */
  protected readonly internals: ElementInternals | undefined = typeof this.attachInternals === 'function' ? this.attachInternals() : undefined;

  #shown = '';

  constructor() {
    super();
    // after every update: the status as an attribute and as a custom state
    this.addController({
      hostUpdated: () => {
        const status = this.status;
        if (status === this.#shown) return;
        this.setAttribute('status', status);
        const states = this.internals?.states;
        states?.delete(this.#shown);
        try {
          states?.add(status);
        } catch {
          // Chromium before 125 takes only `--name` states: there the attribute alone shows the status
        }
        this.#shown = status;
      },
    });
  }
}
