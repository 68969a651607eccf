/**
 * <esign-uploader>'s form value and validity, as a controller the element composes (the shape of Shoelace's
 * `FormControlController`): after each update it writes the FileIds under the element's `name`, with the state the
 * browser gives back on a restored form (FileIds and names, never content), and the validity: invalid while uploads
 * are on their way, or when required and empty. It also holds whether a disabled fieldset or form holds the element.
 * The element keeps the native control API (`form`, `validity`, `checkValidity()`, …) and the form callbacks;
 * `filesOfState` reads back the state a restored form gives it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { UploadedFile } from '@esign-elements/shared/service-types';

/** What the form value is made of, read from the element at each update. */
export interface FormValueSource {
  /** The name the FileIds are submitted under ('' submits nothing). */
  name(): string;
  /** The form is invalid until a file is uploaded. */
  required(): boolean;
  /** The files uploaded so far: the value. */
  files(): readonly UploadedFile[];
  /** While uploads are on their way, the message that keeps the form from submitting; undefined when none are. */
  busy(): string | undefined;
  /** The message when required and empty, in the user's language. */
  missing(): string;
  /** Where the browser shows the message. */
  anchor(): HTMLElement | undefined;
}

export class FormValueController implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #internals: ElementInternals | undefined;
  readonly #source: FormValueSource;
  #disabled = false;

  constructor(host: ReactiveControllerHost, internals: ElementInternals | undefined, source: FormValueSource) {
    (this.#host = host).addController(this);
    this.#internals = internals;
    this.#source = source;
  }

  /** A disabled fieldset or form holds the element (`formDisabledCallback`). */
  get disabled(): boolean {
    return this.#disabled;
  }

  set disabled(disabled: boolean) {
    this.#disabled = disabled;
    this.#host.requestUpdate();
  }

  hostUpdated(): void {
    this.sync();
  }

  /** Writes the value and validity now (the files changed between updates). */
  sync(): void {
    const internals = this.#internals;
    if (!internals || typeof internals.setFormValue !== 'function') return;
    const { name, required, files, busy, missing, anchor } = this.#source;
    const value = files();
    if (name() && value.length > 0) {
      const data = new FormData();
      for (const f of value) data.append(name(), f.FileId);
      // the state the browser gives back to formStateRestoreCallback
      internals.setFormValue(data, JSON.stringify(value.map((f) => ({ FileId: f.FileId, FileName: f.FileName }))));
    } else {
      internals.setFormValue(null);
    }
    const message = busy();
    if (message !== undefined) internals.setValidity({ customError: true }, message, anchor());
    else if (required() && value.length === 0) internals.setValidity({ valueMissing: true }, missing(), anchor());
    else internals.setValidity({});
  }
}

/** The files of a form state the browser gave back (the JSON `sync` saved); none from a state it cannot read. */
export function filesOfState(state: string): UploadedFile[] {
  try {
    const parsed: unknown = JSON.parse(state);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (f: Partial<Record<keyof UploadedFile, unknown>> | null): f is UploadedFile => typeof f?.FileId === 'string' && typeof f?.FileName === 'string',
    );
  } catch {
    return []; // not a state this element saved
  }
}
