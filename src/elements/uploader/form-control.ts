/**
 * <esign-uploader> as a form control: its form value (the FileIds under its `name`, with the state the browser gives
 * back on a restored form), its validity, and the validity API and form callbacks of a native control. The element
 * extends it and supplies what the form needs to know (`reset()`, `restoreState()`, and calls `syncForm()` when its
 * files change).
 */
import type { PropertyDeclarations } from 'lit';
import type { UploadedFile } from '../../core/service-types.js';
import { EsignElement } from '../shared/element.js';

export abstract class UploaderFormControl extends EsignElement {
  static formAssociated = true;

  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
      required: { type: Boolean, reflect: true },
      name: { reflect: true },
    };
  }

  /** In a form: the form is invalid until a file is uploaded. */
  required = false;

  /** In a form: the FileIds are submitted under this name, one entry each. */
  name = '';

  #formDisabled = false;

  /** A disabled fieldset or form holds the element. */
  protected get formDisabled(): boolean {
    return this.#formDisabled;
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  abstract reset(): void;

  /** Shows the files of a form state the browser gave back (the JSON `syncForm` saved: FileIds and names). */
  protected abstract restoreState(state: string): void;

  /** The form this element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.internals?.form ?? null;
  }

  /** The validity states, as a native control's: `valueMissing` (required, no file uploaded), `customError` (uploads on their way). */
  get validity(): ValidityState | undefined {
    return this.internals?.validity;
  }

  /** Why the element is invalid, in the user's language ('' when valid). */
  get validationMessage(): string {
    return this.internals?.validationMessage ?? '';
  }

  /** Whether a form checks this element when it is submitted (false when disabled or without a form). */
  get willValidate(): boolean {
    return this.internals?.willValidate ?? false;
  }

  /** True when valid; otherwise fires `invalid` on the element and returns false, as a native control. */
  checkValidity(): boolean {
    return this.internals?.checkValidity() ?? true;
  }

  /** As `checkValidity()`, and the browser shows the message at the drop zone. */
  reportValidity(): boolean {
    return this.internals?.reportValidity() ?? true;
  }

  /** The form was reset: the list empties and the kept FileIds are forgotten. */
  formResetCallback(): void {
    this.reset();
  }

  formDisabledCallback(disabled: boolean): void {
    this.#formDisabled = disabled;
    this.requestUpdate();
  }

  /**
   * The browser gives back the form's state (back/forward navigation, autofill restore): the uploaded files come back
   * as done, from the state saved with the form value (FileIds and names, never content).
   */
  formStateRestoreCallback(state: unknown): void {
    if (typeof state === 'string') this.restoreState(state);
  }

  /**
   * The form value and validity for these uploaded files: invalid (`busy`, the message to show) while uploads are on
   * their way, or (`missing`) when required and empty; the message shows at `anchor`.
   */
  protected syncForm(files: readonly UploadedFile[], busy: string | undefined, missing: () => string, anchor: HTMLElement | undefined): void {
    const internals = this.internals;
    if (!internals || typeof internals.setFormValue !== 'function') return;
    if (this.name && files.length > 0) {
      const data = new FormData();
      for (const f of files) data.append(this.name, f.FileId);
      // the state the browser gives back to formStateRestoreCallback
      internals.setFormValue(data, JSON.stringify(files.map((f) => ({ FileId: f.FileId, FileName: f.FileName }))));
    } else {
      internals.setFormValue(null);
    }
    if (busy !== undefined) internals.setValidity({ customError: true }, busy, anchor);
    else if (this.required && files.length === 0) internals.setValidity({ valueMissing: true }, missing(), anchor);
    else internals.setValidity({});
  }
}
