import { html, nothing, type PropertyDeclarations } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import type { UploadedFile } from '@esign-elements/shared/service-types';
import type { UploadItem } from '../../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES } from '../../core/upload/validate.js';
import { emit, type EsignUploadCompleteDetail } from '../shared/events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { CountingLocalizeController } from './localize-counts.js';
import { alertIcon, icon } from '../shared/icons.js';
import { DropZone } from './drop-zone.js';
import { EsignElement } from '../shared/element.js';
import { filesOfState, FormValueController } from './form-value.js';
import { reasonText, renderFileList } from './file-list.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { listStyles, progressStyles, uploaderStyles } from './esign-uploader.styles.js';
import { FocusKeeper, liveRegions } from '../shared/a11y.js';
import { UploadController, type Announcement, type UploaderStatus } from './upload-controller.js';

export type { UploadItem, UploadStatus } from '../../core/upload/queue.js';
export type { UploaderStatus } from './upload-controller.js';

const optionalNumber = {
  fromAttribute: (value: string | null): number | undefined => (value === null || value.trim() === '' ? undefined : Number(value)),
  toAttribute: (value: number | undefined): string | null => (value === undefined ? null : String(value)),
};

/**
 * Uploads files for e-signing and yields their FileIds. Files come from a drop zone (also a button
 * that opens the file picker) or from `upload(files)`. Each file is checked before it is read, then
 * Base64-encoded a chunk at a time straight into the request body (never one big string), and sent in
 * its own request with real progress. Completed uploads survive a reload until `reset()`. When the
 * browser goes offline, files on their way wait (status `offline`, shown and announced) and start again
 * by themselves when it is back online.
 *
 * Put it inside an `<esign-connect>` or name one with `connect="ID"`. Inside a `<form>` it submits
 * its FileIds under its `name`.
 *
 * When an `<esign-signing-frame>` on the same page, or in another tab of this origin following the same service and
 * Space, sends an envelope (`esign-envelope-sent`), the files of that envelope are marked "sent": they stay in the list
 * with that status, leave `fileIds` and the form value, and are not restored (so not offered again) after a reload.
 *
 * Every outcome is also state, for code that listens late: `status`, `files` and `lastResult` (what the last
 * `esign-upload-complete` said).
 *
 * @summary Upload files and get FileIds, with progress, cancel and retry.
 *
 * @fires esign-upload-start - Files passed the checks and are on their way. `detail: {files}`.
 * @fires esign-upload-progress - Bytes of a request body went out. `detail: {file, loaded, total, overall: {loaded, total}}` (bytes of the JSON body, about 4/3 of the file).
 * @fires esign-upload-complete - Every file of a run settled and at least one was uploaded; also after restoring earlier uploads. `detail: {files: [{FileId, FileName}], fileIds}` (every file uploaded so far).
 * @fires esign-error - A file was refused or failed, or the setup is wrong. `detail: {error, file?}`; codes `file_too_large`, `file_type_not_accepted`, `too_many_files`, `invalid_argument` (empty file), `upload_failed`, `csp_blocked` (the page's Content-Security-Policy connect-src blocks the service), `aborted`, `rate_limited`, `no_session`, `invalid_config`. `detail.hop` says what could not be reached (`offline`, `token-proxy`, `service`, `page`; absent otherwise: docs/guides/when-something-is-down.md).
 *
 * @slot label - Replaces the drop zone's main text.
 * @slot hint - Replaces the line under it (accepted types and size).
 *
 * @csspart base - The wrapper of everything.
 * @csspart drop-zone - The drop target, a button that opens the file picker.
 * @csspart label - The main text of the drop zone.
 * @csspart hint - The accepted types and size line.
 * @csspart list - The list of files.
 * @csspart file - One file row; also `file-<status>` (`file-uploading`, `file-offline`, `file-done`, `file-sent`, `file-failed`, `file-rejected`, …).
 * @csspart file-name - The file's name.
 * @csspart file-status - The file's status text.
 * @csspart progress - A `<progress>` bar (per file and overall).
 * @csspart file-icon - The icon at the start of a file row.
 * @csspart button - The cancel, retry and remove buttons.
 * @csspart summary - The overall progress row.
 * @csspart error - The setup error message.
 * @csspart offline - The note shown while the browser is offline and uploads wait.
 * @csspart empty - The "no files yet" line that holds the list's space before the first file.
 *
 * @cssprop [--esign-uploader-list-min-height=one file row] - Space kept for the list of files from the start (under the drop zone, with the "no files yet" line in it), so the first file takes it without moving what is below. Default: the height of a file row with its progress bar (name, bar and status; at most 30rem wide, its buttons on a line below), in the element's font. `0` keeps none beyond the line.
 *
 * @cssstate idle - No files yet (`status` idle; the same for each state below).
 * @cssstate uploading - Files on their way, or waiting for the connection.
 * @cssstate error - A file failed or was refused, or a setting is wrong.
 * @cssstate done - The files are uploaded.
 *
 */
export class EsignUploader extends EsignElement {
  static formAssociated = true;

  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
      required: { type: Boolean, reflect: true },
      name: { reflect: true },
      connect: { reflect: true },
      accept: {},
      maxSize: { attribute: 'max-size', converter: optionalNumber },
      maxFiles: { attribute: 'max-files', converter: optionalNumber },
      multiple: { type: Boolean, reflect: true },
      disabled: { type: Boolean, reflect: true },
      persistKey: { attribute: 'persist-key' },
      requestTimeout: { attribute: 'request-timeout', converter: optionalNumber },
    };
  }

  static override styles = [buttonStyles, visuallyHiddenStyles, uploaderStyles, progressStyles, listStyles];

  /** In a form: the form is invalid until a file is uploaded. */
  required = false;

  /** In a form: the FileIds are submitted under this name, one entry each. */
  name = '';

  /**
   * The id of the `<esign-connect>` whose session to use. Default: the nearest one around this element.
   * @default the nearest <esign-connect>
   */
  connect: string | undefined = undefined;

  /**
   * Accepted types, as for `<input type="file">`: `.ext`, `type/*` or `type/subtype`, comma-separated. Empty: any type. Default: PDF, office documents and images.
   * @default PDF, Word, Excel, PowerPoint and images (.pdf, .doc(x), .xls(x), .ppt(x), .png, .jpg, …)
   */
  accept: string = DEFAULT_ACCEPT;

  /**
   * Largest file in bytes. Default: the service limit, 20 MiB (assumption).
   * @default 20971520 (20 MiB, the service limit)
   */
  maxSize: number | undefined = undefined;

  /**
   * Most files this uploader holds at once (uploaded or on their way). Default: no limit; 1 without `multiple`.
   * @default no limit (1 without multiple)
   */
  maxFiles: number | undefined = undefined;

  /** Takes several files. Without it the uploader holds one file. */
  multiple = false;

  /** Takes no new files (uploads on their way go on). */
  disabled = false;

  /**
   * Milliseconds an upload may go with neither progress nor an answer from the service before that try ends (code
   * `timeout`); it is tried again with backoff (four tries in all), then the row fails with "the e-signature service did
   * not answer" (`esign-error` with `hop: 'service'`) and its Retry. 0 waits with no end.
   * @default 60000
   */
  requestTimeout: number | undefined = undefined;

  /** Keeps completed uploads under this key across reloads (with the service and Space). Default: the element's id, else one key per page origin. */
  persistKey = '';

  /** The files, their uploads and what to announce. */
  readonly #uploads = new UploadController(this, { changed: () => this.#form.sync() });
  readonly #t = new CountingLocalizeController<UploaderTerms>(this, uploaderMessages);
  /** The form value (the FileIds under `name`) and validity, written after each update. */
  readonly #form = new FormValueController(this, this.internals, {
    name: () => this.name,
    required: () => this.required,
    files: () => this.uploadedFiles,
    busy: () => (this.#uploads.busy ? this.#t.term('busyValidity') : undefined),
    missing: () => this.#t.term('requiredValidity'),
    anchor: () => this.renderRoot?.querySelector<HTMLElement>('[part~="drop-zone"]') ?? undefined,
  });
  /** The drop zone and the file picker; a pointer, the focus or a drag on it loads the upload pipeline. */
  readonly #zone = new DropZone(
    this,
    () => this.#canTakeFiles(),
    () => {
      if (this.#canTakeFiles()) this.#uploads.preload();
    },
  );

  constructor() {
    super();
    // a file row's button that goes takes the focus to the row's next control, the next row, else the drop zone
    new FocusKeeper(this, () => this.renderRoot.querySelector<HTMLElement>('[part~="drop-zone"]'));
  }

  /** Where the uploader is: `idle` (no files), `uploading` (files on their way, or waiting for the connection), `error` (a file failed or was refused, or a setting is wrong), `done` (the files are uploaded). */
  get status(): UploaderStatus {
    return this.#uploads.status;
  }

  /**
   * The files this uploader knows, with their status (`queued`, `encoding`, `uploading`, `retrying`,
   * `offline` (waiting for the connection), `done`, `failed`, `cancelled`, `rejected`), bytes sent, FileId or error. Setting it uploads the
   * given files (as `upload()`, errors reported as events).
   */
  get files(): readonly UploadItem[] {
    return this.#uploads.items;
  }

  set files(value: Iterable<File> | ArrayLike<File> | null | undefined) {
    if (!value) return;
    this.upload(value).catch(() => undefined);
  }

  /**
   * What the last `esign-upload-complete` said (`{files, fileIds}`), for code that listens after it fired (a framework
   * that attaches listeners after the first render); undefined before one, and after `reset()`.
   */
  get lastResult(): EsignUploadCompleteDetail | undefined {
    return this.#uploads.lastResult;
  }

  /** The FileIds uploaded so far (restored ones included) and not yet sent in an envelope, in order. */
  get fileIds(): readonly string[] {
    return this.uploadedFiles.map((f) => f.FileId);
  }

  /** The files uploaded so far and not yet sent in an envelope, in the service's names. */
  get uploadedFiles(): UploadedFile[] {
    return this.#uploads.uploaded;
  }

  /**
   * Checks and uploads files, one request each. Resolves with the files of this call that were
   * uploaded (refused or failed ones are reported with `esign-error` and shown); rejects with
   * `invalid_config`, `invalid_argument` (disabled) or, when some file passed the checks, `no_session`.
   */
  async upload(files: Iterable<File> | ArrayLike<File>): Promise<UploadedFile[]> {
    const list = Array.from(files as ArrayLike<File>).filter((f): f is File => typeof Blob !== 'undefined' && f instanceof Blob);
    // a wrong setting is said first (by the controller)
    if (!this.#uploads.checkSettings() && (this.disabled || this.#form.disabled)) {
      const error = new EsignError('invalid_argument', 'The uploader is disabled.');
      emit(this, 'esign-error', { error });
      throw error;
    }
    return this.#uploads.upload(list);
  }

  /** Cancels one file's upload by its `key`, or every upload on its way. */
  cancel(key?: string): void {
    this.#uploads.cancel(key);
  }

  /** Uploads a failed or cancelled file again (or all of them); resolves when they settle. */
  retry(key?: string): Promise<void> {
    return this.#uploads.retry(key);
  }

  /** Takes one file off the list, cancelling it if it is on its way. The service keeps an uploaded file. */
  removeFile(key: string): void {
    this.#uploads.remove(key);
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  reset(): void {
    this.#uploads.reset();
  }

  /** Opens the file picker. Browsers allow it only from a user gesture (a click or key press). */
  showPicker(): void {
    this.#zone.pick();
  }

  // ---- as a form control ----

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
    this.#form.disabled = disabled;
  }

  /**
   * The browser gives back the form's state (back/forward navigation, autofill restore): the uploaded files come back
   * as done, from the state saved with the form value (FileIds and names, never content).
   */
  formStateRestoreCallback(state: unknown): void {
    if (typeof state === 'string') this.#uploads.restore(filesOfState(state));
  }

  #canTakeFiles(): boolean {
    return !this.disabled && !this.#form.disabled && !this.#uploads.configError && !!this.#uploads.connected;
  }

  // ---- rendering ----

  protected override render() {
    const configError = this.#uploads.configError;
    const off = this.disabled || this.#form.disabled;
    const t = this.#t;
    const label = configError
      ? t.term(this.multiple ? 'chooseMany' : 'chooseOne')
      : off
        ? t.term('disabled')
        : !this.#uploads.connected
          ? t.term('connectFirst')
          : this.#zone.dragging
            ? t.term('dropHere')
            : t.term(this.multiple ? 'chooseMany' : 'chooseOne');
    const items = this.#uploads.items;
    return html`
      <div part="base" role="group" aria-label=${t.term('groupLabel')}>
        ${this.#zone.render(label, this.#hint(), off)}
        ${configError ? html`<p part="error">${icon(alertIcon)}<span>${this.#misconfigured(configError)}</span></p>` : nothing}
        <div class="files">${items.length > 0 ? this.#fileList(items) : html`<p part="empty"><span>${t.term('noFiles')}</span></p>`}</div>
        ${liveRegions(this.#say(this.#uploads.live), configError ? this.#misconfigured(configError) : this.#say(this.#uploads.alert))}
      </div>
    `;
  }

  #fileList(items: readonly UploadItem[]) {
    const uploads = this.#uploads;
    return renderFileList({
      items,
      t: this.#t,
      online: uploads.online,
      limits: uploads.limits,
      overall: () => uploads.overall(),
      isSent: (item) => uploads.isSent(item),
      cancel: (key) => this.cancel(key),
      retry: (key) => this.retry(key),
      remove: (key) => this.removeFile(key),
    });
  }

  #misconfigured(error: EsignError): string {
    return this.#t.term('misconfigured', { message: error.message });
  }

  #hint(): string {
    // a bad max-size leaves no limits: the hint then shows the service's
    const limits = this.#uploads.limits;
    const size = this.#t.bytes(limits?.maxSize ?? DEFAULT_MAX_FILE_BYTES);
    if (!limits || this.accept === DEFAULT_ACCEPT) return this.#t.term('hintDefault', { size });
    const types = limits.accept.filter((t) => t.startsWith('.') || t.endsWith('/*'));
    return this.#t.term('hintCustom', { size, types: (types.length > 0 ? types : limits.accept).join(', ') || '*' });
  }

  /** An announcement in the user's words ('' for none). */
  #say(news: Announcement | undefined): string {
    const t = this.#t;
    switch (news?.say) {
      case undefined:
        return '';
      case 'progress':
        return t.term('liveProgress', { done: news.done, count: news.count, percent: news.percent });
      case 'file-error':
        return t.term('liveFileError', { name: news.name, reason: reasonText(t, this.#uploads.limits, news.error) });
      case 'done':
        return t.plural('liveDone', news.count);
      case 'sent':
        return t.plural('liveSent', news.count);
      case 'offline':
        return t.plural('liveOffline', news.count);
      case 'online':
        return t.plural('liveOnline', news.count);
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-uploader': EsignUploader;
  }
}
