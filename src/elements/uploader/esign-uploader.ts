import { html, nothing, svg, type PropertyValues, type PropertyDeclarations } from 'lit';
import { EsignError } from '../../core/errors.js';
import type { UploadedFile } from '../../core/service-types.js';
import { KeptUploads, uploadRecordKey } from '../../core/upload/persist.js';
import type { UploadItem } from '../../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES, parseLimits, type UploaderLimits } from '../../core/upload/validate.js';
import { emit, type EsignEnvelopeSentDetail } from '../shared/events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { CountingLocalizeController } from './localize-counts.js';
import { alertIcon, icon } from '../shared/icons.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { SessionController } from '../shared/session-controller.js';
import type { UploadList } from './list.js';
import { OnlineController } from '../shared/online.js';
import { LazyPart } from '../shared/lazy.js';
import { uploaderStyles } from './esign-uploader.styles.js';
import { EsignElement } from '../shared/element.js';
import { RootListener } from '../shared/root-listener.js';


const uploadIcon = svg`<path d="M12 16V4m0 0-4.5 4.5M12 4l4.5 4.5"/><path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"/>`;

export type { UploadItem, UploadStatus } from '../../core/upload/queue.js';

/** Where an `<esign-uploader>` is: no files, files on their way (or waiting for the connection), a file failed or was refused, every file uploaded. */
export type UploaderStatus = 'idle' | 'uploading' | 'error' | 'done';


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
 * When an `<esign-signing-frame>` on the same page sends an envelope (`esign-envelope-sent`), the files of that
 * envelope are marked "sent": they stay in the list with that status, leave `fileIds` and the form value, and are
 * not restored (so not offered again) after a reload.
 *
 * @summary Upload files and get FileIds, with progress, cancel and retry.
 *
 * @fires esign-upload-start - Files passed the checks and are on their way. `detail: {files}`.
 * @fires esign-upload-progress - Bytes of a request body went out. `detail: {file, loaded, total, overall: {loaded, total}}` (bytes of the JSON body, about 4/3 of the file).
 * @fires esign-upload-complete - Every file of a run settled and at least one was uploaded; also after restoring earlier uploads. `detail: {files: [{FileId, FileName}], fileIds}` (every file uploaded so far).
 * @fires esign-error - A file was refused or failed, or the setup is wrong. `detail: {error, file?}`; codes `file_too_large`, `file_type_not_accepted`, `too_many_files`, `invalid_argument` (empty file), `upload_failed`, `csp_blocked` (the page's Content-Security-Policy connect-src blocks the service), `aborted`, `rate_limited`, `no_session`, `invalid_config`.
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
 *
 * @cssstate idle - No files yet (`status` idle; the same for each state below).
 * @cssstate uploading - Files on their way, or waiting for the connection.
 * @cssstate error - A file failed or was refused, or a setting is wrong.
 * @cssstate done - The files are uploaded.
 *
 */
export class EsignUploader extends EsignElement {
  static override properties: PropertyDeclarations = {
    connect: { reflect: true },
    accept: {},
    maxSize: { attribute: 'max-size', converter: optionalNumber },
    maxFiles: { attribute: 'max-files', converter: optionalNumber },
    multiple: { type: Boolean, reflect: true },
    disabled: { type: Boolean, reflect: true },
    required: { type: Boolean, reflect: true },
    name: { reflect: true },
    persistKey: { attribute: 'persist-key' },
    _dragging: { state: true, attribute: false },
    _live: { state: true, attribute: false },
    _formDisabled: { state: true, attribute: false },
  };

  static formAssociated = true;

  static override styles = [
    buttonStyles,
    visuallyHiddenStyles,
    uploaderStyles,
  ];

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

  /** In a form: the form is invalid until a file is uploaded. */
  required = false;

  /** In a form: the FileIds are submitted under this name, one entry each. */
  name = '';

  /** Keeps completed uploads under this key across reloads (with the service and Space). Default: the element's id, else one key per page origin. */
  persistKey = '';

  /** @internal A file is dragged over the drop zone (reactive state). */
  private _dragging = false;
  /** @internal The live region's text (reactive state). */
  private _live = '';
  /** @internal A disabled fieldset or form holds the element (reactive state). */
  private _formDisabled = false;

  private get _dropZone(): HTMLButtonElement | null {
    return this.renderRoot?.querySelector('[part~="drop-zone"]') ?? null;
  }
  private get _input(): HTMLInputElement | null {
    return this.renderRoot?.querySelector('input[type="file"]') ?? null;
  }

  readonly #session = new SessionController(this);
  readonly #t = new CountingLocalizeController<UploaderTerms>(this, uploaderMessages);
  /** Completed FileIds kept across reloads, under this uploader's record. */
  readonly #kept = new KeptUploads();
  /** Uploads on their way wait while the browser is offline, and go on by themselves when it is back. */
  readonly #network = new OnlineController(this, (online) => this.#list?.queue.setOnline(online));
  #limits: UploaderLimits | undefined;
  #configError: EsignError | undefined;
  #reportedConfigError = '';
  /** The files' queue and list: loaded by the first file (or a pointer, the focus, a drag), or kept FileIds to restore. */
  readonly #listPart = new LazyPart(
    this,
    () => import('./list.js'),
    ({ UploadList, uploadListMessages }) => {
      const list = new UploadList({
        host: this,
        t: new CountingLocalizeController(this, uploadListMessages),
        session: () => {
          const provider = this.#session.provider;
          if (!provider?.session) throw noSession();
          return { baseUrl: provider.baseUrl, tokens: provider, operatorUserId: provider.operatorUserId };
        },
        limits: () => this.#limits,
        announce: (text) => (this._live = text),
        changed: () => this.#syncForm(),
        kept: this.#kept,
      });
      list.queue.setOnline(this.#network.online);
      return list;
    },
  );
  get #list(): UploadList | undefined {
    return this.#listPart.value;
  }
  constructor() {
    super();
    // a signing frame anywhere in this tree reports a sent envelope: its files are done with
    new RootListener(this, 'esign-envelope-sent', (event) => {
      const ids = (event as CustomEvent<Partial<EsignEnvelopeSentDetail>>).detail?.fileIds;
      if (Array.isArray(ids)) this.#list?.envelopeSent(ids);
    });
  }

  /** Where the uploader is: `idle` (no files), `uploading` (files on their way, or waiting for the connection), `error` (a file failed or was refused, or a setting is wrong), `done` (the files are uploaded). */
  get status(): UploaderStatus {
    const files = this.#list?.queue.items ?? [];
    if (this.#list?.queue.busy) return 'uploading';
    if (this.#configError || files.some((f) => f.status === 'failed' || f.status === 'rejected')) return 'error';
    return files.some((f) => f.status === 'done') ? 'done' : 'idle';
  }

  /**
   * The files this uploader knows, with their status (`queued`, `encoding`, `uploading`, `retrying`,
   * `offline` (waiting for the connection), `done`, `failed`, `cancelled`, `rejected`), bytes sent, FileId or error. Setting it uploads the
   * given files (as `upload()`, errors reported as events).
   */
  get files(): readonly UploadItem[] {
    return this.#list?.queue.items.map((item) => ({ ...item })) ?? [];
  }

  set files(value: Iterable<File> | ArrayLike<File> | null | undefined) {
    if (!value) return;
    this.upload(value).catch(() => undefined);
  }

  /** The FileIds uploaded so far (restored ones included) and not yet sent in an envelope, in order. */
  get fileIds(): readonly string[] {
    return this.uploadedFiles.map((f) => f.FileId);
  }

  /** The files uploaded so far and not yet sent in an envelope, in the service's names. */
  get uploadedFiles(): UploadedFile[] {
    return this.#list?.uploaded ?? [];
  }

  /** The form this element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.internals?.form ?? null;
  }

  /**
   * Checks and uploads files, one request each. Resolves with the files of this call that were
   * uploaded (refused or failed ones are reported with `esign-error` and shown); rejects with
   * `invalid_config`, `invalid_argument` (disabled) or, when some file passed the checks, `no_session`.
   */
  async upload(files: Iterable<File> | ArrayLike<File>): Promise<UploadedFile[]> {
    const list = Array.from(files as ArrayLike<File>).filter((f): f is File => typeof Blob !== 'undefined' && f instanceof Blob);
    this.#checkConfig();
    if (this.#configError) throw this.#fail(this.#configError);
    if (this.disabled || this._formDisabled) throw this.#fail(new EsignError('invalid_argument', 'The uploader is disabled.'));
    if (list.length === 0) return [];
    return (await this.#listPart.load()).upload(list, (error) => this.#fail(error));
  }

  /** Cancels one file's upload by its `key`, or every upload on its way. */
  cancel(key?: string): void {
    this.#list?.queue.cancel(key);
  }

  /** Uploads a failed or cancelled file again (or all of them); resolves when they settle. */
  retry(key?: string): Promise<void> {
    return this.#list?.queue.retry(key) ?? Promise.resolve();
  }

  /** Takes one file off the list, cancelling it if it is on its way. The service keeps an uploaded file. */
  removeFile(key: string): void {
    this.#list?.queue.remove(key);
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  reset(): void {
    this.#list?.queue.clear();
    this._live = '';
    void this.#kept.clear();
  }

  /** Opens the file picker. Browsers allow it only from a user gesture (a click or key press). */
  showPicker(): void {
    if (!this.#canTakeFiles()) return;
    this._input?.click();
  }

  // ---- form-associated: the validity API of native controls, and the form callbacks ----

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
    this._formDisabled = disabled;
  }

  /**
   * The browser gives back the form's state (back/forward navigation, autofill restore): the uploaded files come back
   * as done, from the state saved with the form value (FileIds and names, never content).
   */
  formStateRestoreCallback(state: unknown): void {
    let files: UploadedFile[] = [];
    try {
      const parsed: unknown = typeof state === 'string' ? JSON.parse(state) : [];
      if (Array.isArray(parsed)) files = parsed.filter((f: Partial<Record<keyof UploadedFile, unknown>> | null): f is UploadedFile => typeof f?.FileId === 'string' && typeof f?.FileName === 'string');
    } catch {
      return; // not a state this element saved
    }
    if (files.length > 0) void this.#listPart.load().then((list) => list.restore(files), () => undefined);
  }

  // ---- lifecycle ----

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('accept') || changed.has('maxSize') || changed.has('maxFiles') || changed.has('multiple') || !this.#limits) {
      this.#checkConfig();
    }
  }

  protected override updated(): void {
    this.#syncForm();
    void this.#restore();
  }

  #checkConfig(): void {
    try {
      this.#limits = parseLimits({
        accept: this.accept,
        maxSize: Number.isNaN(this.maxSize) ? this.getAttribute('max-size') : this.maxSize,
        maxFiles: Number.isNaN(this.maxFiles) ? this.getAttribute('max-files') : this.maxFiles,
        multiple: this.multiple,
      });
      this.#configError = undefined;
      this.#reportedConfigError = '';
    } catch (error) {
      this.#limits = undefined;
      this.#configError = EsignError.from(error, 'invalid_config');
      // once per distinct problem, not on every render
      if (this.#reportedConfigError !== this.#configError.message) {
        this.#reportedConfigError = this.#configError.message;
        const reported = this.#configError;
        queueMicrotask(() => emit(this, 'esign-error', { error: reported }));
      }
    }
  }

  /** Reads the FileIds kept for this session and key, once per key, and shows them (loading the list if there are any). */
  async #restore(): Promise<void> {
    const provider = this.#session.provider;
    if (!provider?.session || !provider.baseUrl) return;
    const key = uploadRecordKey(provider.baseUrl, provider.session.spaceId, this.persistKey || this.id || 'default');
    if (key === this.#kept.key) return;
    const files = await this.#kept.open(key);
    if (key !== this.#kept.key || files.length === 0) return;
    const list = await this.#listPart.load().catch(() => undefined);
    if (key === this.#kept.key) list?.restore(files);
  }

  #syncForm(): void {
    const internals = this.internals;
    if (!internals || typeof internals.setFormValue !== 'function') return;
    const files = this.uploadedFiles;
    const ids = files.map((f) => f.FileId);
    if (this.name && ids.length > 0) {
      const data = new FormData();
      for (const id of ids) data.append(this.name, id);
      // the state the browser gives back to formStateRestoreCallback
      internals.setFormValue(data, JSON.stringify(files.map((f) => ({ FileId: f.FileId, FileName: f.FileName }))));
    } else {
      internals.setFormValue(null);
    }
    const anchor = this._dropZone ?? undefined;
    if (this.#list?.queue.busy) internals.setValidity({ customError: true }, this.#t.term('busyValidity'), anchor);
    else if (this.required && ids.length === 0) internals.setValidity({ valueMissing: true }, this.#t.term('requiredValidity'), anchor);
    else internals.setValidity({});
  }

  #fail(error: EsignError): EsignError {
    emit(this, 'esign-error', { error });
    return error;
  }

  #canTakeFiles(): boolean {
    return !this.disabled && !this._formDisabled && !this.#configError && !!this.#session.provider?.session;
  }

  // ---- rendering ----

  protected override render() {
    const connected = !!this.#session.provider?.session;
    const off = this.disabled || this._formDisabled;
    const label = this.#configError
      ? this.#t.term(this.multiple ? 'chooseMany' : 'chooseOne')
      : off
        ? this.#t.term('disabled')
        : !connected
          ? this.#t.term('connectFirst')
          : this._dragging
            ? this.#t.term('dropHere')
            : this.#t.term(this.multiple ? 'chooseMany' : 'chooseOne');
    return html`
      <div part="base" role="group" aria-label=${this.#t.term('groupLabel')}>
        <button
          part="drop-zone"
          type="button"
          class=${this._dragging ? 'dragging' : ''}
          ?disabled=${off}
          aria-disabled=${this.#canTakeFiles() ? 'false' : 'true'}
          aria-describedby="hint"
          @click=${this.#onClick}
          @pointerenter=${this.#onIntent}
          @focus=${this.#onIntent}
          @dragenter=${this.#onDragOver}
          @dragover=${this.#onDragOver}
          @dragleave=${this.#onDragLeave}
          @drop=${this.#onDrop}
        >
          <span class="badge" aria-hidden="true">${icon(uploadIcon)}</span>
          <span part="label"><slot name="label">${label}</slot></span>
          <span part="hint" id="hint"><slot name="hint">${this.#hint()}</slot></span>
        </button>
        <input
          type="file"
          hidden
          tabindex="-1"
          accept=${this.accept}
          ?multiple=${this.multiple}
          @change=${this.#onPicked}
        />
        ${this.#configError
          ? html`<p part="error" role="alert">${icon(alertIcon)}<span>${this.#t.term('misconfigured', { message: this.#configError.message })}</span></p>`
          : nothing}
        ${this.#list ? this.#list.render() : nothing}
        <div class="visually-hidden" role="status" aria-live="polite">${this._live}</div>
      </div>
    `;
  }

  #hint(): string {
    // a bad max-size leaves no limits: the hint then shows the service's
    const size = this.#t.bytes(this.#limits?.maxSize ?? DEFAULT_MAX_FILE_BYTES);
    if (!this.#limits || this.accept === DEFAULT_ACCEPT) return this.#t.term('hintDefault', { size });
    const types = this.#limits.accept.filter((t) => t.startsWith('.') || t.endsWith('/*'));
    return this.#t.term('hintCustom', { size, types: (types.length > 0 ? types : this.#limits.accept).join(', ') || '*' });
  }

  // ---- handlers ----

  readonly #onClick = (): void => {
    this.showPicker();
  };

  readonly #onPicked = (event: Event): void => {
    const input = event.target as HTMLInputElement;
    const picked = Array.from(input.files ?? []);
    // the same file picked again must fire change again
    input.value = '';
    if (picked.length > 0) this.upload(picked).catch(() => undefined);
  };

  /** A pointer or the focus on the drop zone, or a file dragged over it: files may come, so their code starts loading. */
  readonly #onIntent = (): void => {
    if (!this.#list && this.#canTakeFiles()) void this.#listPart.load().catch(() => undefined);
  };

  readonly #onDragOver = (event: DragEvent): void => {
    // always claim the drop here, so a file dropped on a disabled zone is not opened by the browser
    event.preventDefault();
    this.#onIntent();
    if (event.dataTransfer) event.dataTransfer.dropEffect = this.#canTakeFiles() ? 'copy' : 'none';
    this._dragging = this.#canTakeFiles();
  };

  readonly #onDragLeave = (): void => {
    this._dragging = false;
  };

  readonly #onDrop = (event: DragEvent): void => {
    event.preventDefault();
    this._dragging = false;
    const dropped = Array.from(event.dataTransfer?.files ?? []);
    if (dropped.length > 0) this.upload(dropped).catch(() => undefined);
  };
}

function noSession(): EsignError {
  return new EsignError('no_session', 'Not connected: connect an e-signature account first.');
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-uploader': EsignUploader;
  }
}
