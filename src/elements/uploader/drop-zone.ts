/**
 * <esign-uploader>'s file intake: the drop zone (a button that opens the file picker, and a drop target) and the
 * hidden file input. Files dropped or picked go to the element's `upload`; a pointer, the focus or a drag on the zone
 * tells the element files may come (`intent`), so it can start loading what uploads them.
 */
import { html, svg, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { icon } from '../shared/icons.js';

const uploadIcon = svg`<path d="M12 16V4m0 0-4.5 4.5M12 4l4.5 4.5"/><path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"/>`;

/** What the drop zone needs from its element. */
export interface DropZoneHost extends ReactiveControllerHost, HTMLElement {
  readonly renderRoot: HTMLElement | DocumentFragment;
  /** The `accept` and `multiple` of the file input. */
  readonly accept: string;
  readonly multiple: boolean;
  /** Checks and uploads files (errors are the element's to report). */
  upload(files: File[]): Promise<unknown>;
}

export class DropZone {
  /** A file is dragged over the zone (and may be dropped there). */
  dragging = false;
  readonly #host: DropZoneHost;
  readonly #canTake: () => boolean;
  readonly #intent: () => void;

  constructor(host: DropZoneHost, canTake: () => boolean, intent: () => void) {
    this.#host = host;
    this.#canTake = canTake;
    this.#intent = intent;
  }

  /** Opens the file picker (a user gesture only), when the element takes files. */
  pick(): void {
    if (this.#canTake()) this.#host.renderRoot?.querySelector<HTMLInputElement>('input[type="file"]')?.click();
  }

  /** The zone, showing `label` (replaceable by the `label` slot) and `hint`; `off` when disabled. */
  render(label: string, hint: string, off: boolean): TemplateResult {
    const host = this.#host;
    return html`<button
        part="drop-zone"
        type="button"
        class=${this.dragging ? 'dragging' : ''}
        ?disabled=${off}
        aria-disabled=${this.#canTake() ? 'false' : 'true'}
        aria-describedby="hint"
        @click=${() => this.pick()}
        @pointerenter=${this.#intent}
        @focus=${this.#intent}
        @dragenter=${(event: DragEvent) => this.#over(event)}
        @dragover=${(event: DragEvent) => this.#over(event)}
        @dragleave=${() => this.#drag(false)}
        @drop=${(event: DragEvent) => this.#drop(event)}
      >
        <span class="badge" aria-hidden="true">${icon(uploadIcon)}</span>
        <span part="label"><slot name="label">${label}</slot></span>
        <span part="hint" id="hint"><slot name="hint">${hint}</slot></span>
      </button>
      <input type="file" hidden tabindex="-1" accept=${host.accept} ?multiple=${host.multiple} @change=${(event: Event) => this.#picked(event)} />`;
  }

  #picked(event: Event): void {
    const input = event.target as HTMLInputElement;
    const picked = Array.from(input.files ?? []);
    // the same file picked again must fire change again
    input.value = '';
    this.#take(picked);
  }

  #over(event: DragEvent): void {
    // always claim the drop here, so a file dropped on a disabled zone is not opened by the browser
    event.preventDefault();
    this.#intent();
    const can = this.#canTake();
    if (event.dataTransfer) event.dataTransfer.dropEffect = can ? 'copy' : 'none';
    this.#drag(can);
  }

  #drop(event: DragEvent): void {
    event.preventDefault();
    this.#drag(false);
    this.#take(Array.from(event.dataTransfer?.files ?? []));
  }

  #drag(dragging: boolean): void {
    if (dragging === this.dragging) return;
    this.dragging = dragging;
    this.#host.requestUpdate();
  }

  #take(files: File[]): void {
    if (files.length > 0) this.#host.upload(files).catch(() => undefined);
  }
}
