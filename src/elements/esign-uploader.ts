import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { EsignError } from '../core/errors.js';
import type { UploadedFile } from '../core/service-types.js';
import { openUploadRecords, uploadRecordKey } from '../core/upload/persist.js';
import { UploadQueue, type UploadItem } from '../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES, parseLimits, validateFiles, type UploaderLimits } from '../core/upload/validate.js';
import { emit, type EsignEnvelopeSentDetail, type UploadFileRef } from './events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { LocalizeController } from './localize.js';
import { icon } from './icons.js';
import { buttonStyles, progressStyles, visuallyHiddenStyles } from './shared-styles.js';
import { SessionController } from './session-controller.js';

export type { UploadItem, UploadStatus } from '../core/upload/queue.js';

/** Live-region progress is announced at most this often; screen readers fall behind otherwise. */
const LIVE_PROGRESS_INTERVAL_MS = 4000;
const ACTIVE = new Set(['queued', 'encoding', 'uploading', 'retrying', 'offline']);

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
 * @fires esign-error - A file was refused or failed, or the setup is wrong. `detail: {error, file?}`; codes `file_too_large`, `file_type_not_accepted`, `too_many_files`, `invalid_argument` (empty file), `upload_failed`, `aborted`, `rate_limited`, `no_session`, `invalid_config`.
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
 * @cssprop [--esign-accent=light-dark(#2557d6, #8cb0ff)] - Primary colour: progress, focus rings, the drop zone when dragging over.
 * @cssprop [--esign-accent-contrast=light-dark(#ffffff, #0b1530)] - Text on the primary colour.
 * @cssprop [--esign-text=CanvasText] - Text colour.
 * @cssprop [--esign-surface=Canvas] - Background of the drop zone and the file rows.
 * @cssprop [--esign-danger=light-dark(#b3261e, #ffb4ab)] - Errors and refused files.
 * @cssprop [--esign-success=light-dark(#1b6e3a, #8fdca6)] - Uploaded and sent files.
 * @cssprop [--esign-font=system-ui, sans-serif] - Font family.
 * @cssprop [--esign-radius=8px] - Corner radius.
 * @cssprop [--esign-spacing=0.5rem] - Spacing unit; gaps and paddings are multiples of it.
 */
export class EsignUploader extends LitElement {
  static formAssociated = true;

  static override styles = [
    buttonStyles,
    progressStyles,
    visuallyHiddenStyles,
    css`
      :host {
        display: block;
        color: var(--_text);
      }
      [part~='base'] {
        display: grid;
        gap: calc(var(--_space) * 1.5);
      }
      [part~='drop-zone'] {
        font: inherit;
        color: var(--_text);
        display: grid;
        gap: calc(var(--_space) / 2);
        justify-items: center;
        width: 100%;
        padding: calc(var(--_space) * 3) calc(var(--_space) * 2);
        background: var(--_tint);
        border: 1.5px dashed var(--_border-strong);
        border-radius: var(--_radius);
        cursor: pointer;
        text-align: center;
        transition:
          border-color var(--_duration) ease,
          background-color var(--_duration) ease;
      }
      [part~='drop-zone'] .badge {
        display: grid;
        place-items: center;
        width: 2.5rem;
        height: 2.5rem;
        margin-bottom: calc(var(--_space) / 2);
        border-radius: 50%;
        background: var(--_accent-tint);
        color: var(--_accent);
      }
      [part~='drop-zone'] .badge svg {
        width: 1.25rem;
        height: 1.25rem;
      }
      [part~='drop-zone']:hover:not([aria-disabled='true']),
      [part~='drop-zone'].dragging {
        border-color: var(--_accent);
        border-style: solid;
        background: var(--_accent-tint);
      }
      [part~='drop-zone']:focus-visible {
        outline: 2px solid var(--_accent);
        outline-offset: 2px;
      }
      [part~='drop-zone'][aria-disabled='true'] {
        cursor: not-allowed;
      }
      [part~='drop-zone'][aria-disabled='true'] .badge {
        background: var(--_tint);
        color: var(--_muted);
      }
      [part~='label'] {
        font-weight: 600;
      }
      [part~='hint'],
      [part~='file-status'],
      .meta {
        color: var(--_muted);
        font-size: 0.875em;
        font-weight: 400;
      }
      [part~='list'] {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: var(--_space);
      }
      [part~='file'] {
        display: grid;
        grid-template-columns: auto minmax(0, 1fr) auto;
        align-items: center;
        gap: calc(var(--_space) / 2) calc(var(--_space) * 1.5);
        padding: var(--_space) calc(var(--_space) * 1.5);
        background: var(--_surface);
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
      }
      .file-icon {
        display: grid;
        place-items: center;
        width: 2rem;
        height: 2rem;
        border-radius: calc(var(--_radius) * 0.75);
        background: var(--_tint);
        color: var(--_muted);
      }
      .file-icon svg {
        width: 1.125rem;
        height: 1.125rem;
      }
      .body {
        display: grid;
        gap: calc(var(--_space) / 2);
        min-width: 0;
      }
      [part~='file-name'] {
        font-weight: 550;
        overflow-wrap: anywhere;
      }
      [part~='file-done'] .file-icon,
      [part~='file-sent'] .file-icon {
        background: var(--_success-tint);
        color: var(--_success);
      }
      [part~='file-done'] [part~='file-status'],
      [part~='file-sent'] [part~='file-status'] {
        color: var(--_success);
      }
      [part~='file-failed'] .file-icon,
      [part~='file-rejected'] .file-icon {
        background: var(--_danger-tint);
        color: var(--_danger);
      }
      [part~='file-failed'] [part~='file-status'],
      [part~='file-rejected'] [part~='file-status'] {
        color: var(--_danger);
      }
      [part~='file-failed'],
      [part~='file-rejected'] {
        border-color: color-mix(in srgb, var(--_danger) 45%, var(--_surface));
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        justify-content: flex-end;
        gap: calc(var(--_space) / 2);
      }
      [part~='summary'] {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        align-items: center;
        gap: calc(var(--_space) / 2) calc(var(--_space) * 1.5);
      }
      [part~='error'],
      [part~='offline'] {
        display: flex;
        align-items: flex-start;
        gap: var(--_space);
        margin: 0;
        padding: var(--_space) calc(var(--_space) * 1.5);
        border-radius: var(--_radius);
      }
      [part~='error'] {
        color: var(--_danger);
        background: var(--_danger-tint);
      }
      [part~='offline'] {
        background: var(--_tint);
        font-weight: 550;
      }
      @media (max-width: 30rem) {
        [part~='file'] {
          grid-template-columns: auto minmax(0, 1fr);
        }
        [part~='file'] .actions {
          grid-column: 2;
          justify-content: flex-start;
        }
      }
    `,
  ];

  /**
   * The id of the `<esign-connect>` whose session to use. Default: the nearest one around this element.
   * @default the nearest <esign-connect>
   */
  @property({ reflect: true }) connect: string | undefined = undefined;

  /**
   * Accepted types, as for `<input type="file">`: `.ext`, `type/*` or `type/subtype`, comma-separated. Empty: any type. Default: PDF, office documents and images.
   * @default PDF, Word, Excel, PowerPoint and images (.pdf, .doc(x), .xls(x), .ppt(x), .png, .jpg, …)
   */
  @property() accept: string = DEFAULT_ACCEPT;

  /**
   * Largest file in bytes. Default: the service limit, 20 MiB (assumption).
   * @default 20971520 (20 MiB, the service limit)
   */
  @property({ attribute: 'max-size', converter: optionalNumber }) maxSize: number | undefined = undefined;

  /**
   * Most files this uploader holds at once (uploaded or on their way). Default: no limit; 1 without `multiple`.
   * @default no limit (1 without multiple)
   */
  @property({ attribute: 'max-files', converter: optionalNumber }) maxFiles: number | undefined = undefined;

  /** Takes several files. Without it the uploader holds one file. */
  @property({ type: Boolean, reflect: true }) multiple = false;

  /** Takes no new files (uploads on their way go on). */
  @property({ type: Boolean, reflect: true }) disabled = false;

  /** In a form: the form is invalid until a file is uploaded. */
  @property({ type: Boolean, reflect: true }) required = false;

  /** In a form: the FileIds are submitted under this name, one entry each. */
  @property({ reflect: true }) name = '';

  /** Keeps completed uploads under this key across reloads (with the service and Space). Default: the element's id, else one key per page origin. */
  @property({ attribute: 'persist-key' }) persistKey = '';

  @state() private _dragging = false;
  @state() private _live = '';
  @state() private _formDisabled = false;

  @query('[part~="drop-zone"]') private _dropZone!: HTMLButtonElement | null;
  @query('input[type="file"]') private _input!: HTMLInputElement | null;

  readonly #session = new SessionController(this);
  readonly #t = new LocalizeController<UploaderTerms>(this, uploaderMessages);
  readonly #internals: ElementInternals | undefined;
  readonly #records = openUploadRecords();
  #limits: UploaderLimits | undefined;
  #configError: EsignError | undefined;
  #reportedConfigError = '';
  #recordKey = '';
  #savedSignature = '';
  #lastLiveProgress = 0;
  /** FileIds an envelope was sent with: shown as sent, no longer offered, not kept for a reload. */
  readonly #sent = new Set<string>();
  #eventRoot: Document | ShadowRoot | undefined;
  /** Files waiting for the connection at the last change: announcements go with changes of it. */
  #waiting = 0;

  readonly #queue = new UploadQueue({
    session: () => {
      const provider = this.#session.provider;
      if (!provider?.session) throw noSession();
      return { baseUrl: provider.baseUrl, tokens: provider, operatorUserId: provider.operatorUserId };
    },
    onChange: () => {
      this.requestUpdate();
      this.#syncForm();
      void this.#persist();
      this.#announceConnectivity();
    },
    onProgress: (item, overall) => {
      this.requestUpdate();
      emit(this, 'esign-upload-progress', { file: ref(item), loaded: item.loaded, total: item.total, overall });
      const now = Date.now();
      if (now - this.#lastLiveProgress >= LIVE_PROGRESS_INTERVAL_MS && overall.total > 0) {
        this.#lastLiveProgress = now;
        this._live = this.#t.term('liveProgress', { percent: Math.floor((overall.loaded / overall.total) * 100) });
      }
    },
    onError: (item, error) => {
      this._live = this.#t.term('liveFileError', { name: item.FileName, reason: this.#reason(error) });
      emit(this, 'esign-error', { error, file: ref(item) });
    },
    onComplete: () => {
      const files = this.uploadedFiles;
      this._live = this.#t.plural('liveDone', files.length);
      emit(this, 'esign-upload-complete', { files, fileIds: files.map((f) => f.FileId) });
    },
  });

  constructor() {
    super();
    // attachInternals is missing in old browsers and server-side DOM shims: the form value is then simply not set
    this.#internals = typeof this.attachInternals === 'function' ? this.attachInternals() : undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('online', this.#onConnectivity);
    window.addEventListener('offline', this.#onConnectivity);
    // the state may have changed while detached
    this.#queue.setOnline(navigator.onLine !== false);
    // a signing frame anywhere in this tree reports a sent envelope: its files are done with
    this.#eventRoot = this.getRootNode() as Document | ShadowRoot;
    this.#eventRoot.addEventListener('esign-envelope-sent', this.#onEnvelopeSent);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('online', this.#onConnectivity);
    window.removeEventListener('offline', this.#onConnectivity);
    this.#eventRoot?.removeEventListener('esign-envelope-sent', this.#onEnvelopeSent);
    this.#eventRoot = undefined;
  }

  /**
   * The files this uploader knows, with their status (`queued`, `encoding`, `uploading`, `retrying`,
   * `offline` (waiting for the connection), `done`, `failed`, `cancelled`, `rejected`), bytes sent, FileId or error. Setting it uploads the
   * given files (as `upload()`, errors reported as events).
   */
  get files(): readonly UploadItem[] {
    return this.#queue.items.map((item) => ({ ...item }));
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
    return this.#queue.completed.filter((f) => !this.#sent.has(f.FileId));
  }

  /** The form this element belongs to, if any. */
  get form(): HTMLFormElement | null {
    return this.#internals?.form ?? null;
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
    // refused files are shown with their reason even before a session exists
    const { accepted, rejected } = validateFiles(list, this.#limits!, this.#queue.held);
    for (const { file, error } of rejected) {
      const item = this.#queue.reject(file, error);
      this._live = this.#t.term('liveFileError', { name: item.FileName, reason: this.#reason(error) });
      emit(this, 'esign-error', { error, file: ref(item) });
    }
    if (accepted.length === 0) return [];
    if (!this.#session.provider?.session) throw this.#fail(noSession());
    const { items, settled } = this.#queue.add(accepted);
    emit(this, 'esign-upload-start', { files: items.map(ref) });
    await settled;
    const keys = new Set(items.map((i) => i.key));
    return this.#queue.items.filter((i) => keys.has(i.key) && i.status === 'done' && i.FileId).map((i) => ({ FileId: i.FileId!, FileName: i.FileName }));
  }

  /** Cancels one file's upload by its `key`, or every upload on its way. */
  cancel(key?: string): void {
    this.#queue.cancel(key);
  }

  /** Uploads a failed or cancelled file again (or all of them); resolves when they settle. */
  retry(key?: string): Promise<void> {
    return this.#queue.retry(key);
  }

  /** Takes one file off the list, cancelling it if it is on its way. The service keeps an uploaded file. */
  removeFile(key: string): void {
    this.#queue.remove(key);
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  reset(): void {
    this.#queue.clear();
    this._live = '';
    this.#savedSignature = '';
    if (this.#recordKey) void this.#records.clear(this.#recordKey).catch(() => undefined);
  }

  /** Opens the file picker. Browsers allow it only from a user gesture (a click or key press). */
  showPicker(): void {
    if (!this.#canTakeFiles()) return;
    this._input?.click();
  }

  // ---- form-associated callbacks ----

  formResetCallback(): void {
    this.reset();
  }

  formDisabledCallback(disabled: boolean): void {
    this._formDisabled = disabled;
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

  /** Lists the FileIds kept for this session and key, once per key. */
  async #restore(): Promise<void> {
    const provider = this.#session.provider;
    if (!provider?.session || !provider.baseUrl) return;
    const key = uploadRecordKey(provider.baseUrl, provider.session.spaceId, this.persistKey || this.id || 'default');
    if (key === this.#recordKey) return;
    this.#recordKey = key;
    let files: UploadedFile[];
    try {
      files = await this.#records.load(key);
    } catch {
      return; // storage unavailable (private mode): nothing to restore
    }
    if (key !== this.#recordKey) return;
    const before = this.uploadedFiles.length;
    this.#queue.restore(files);
    const all = this.uploadedFiles;
    this.#savedSignature = signature(all);
    if (all.length > before) emit(this, 'esign-upload-complete', { files: all, fileIds: all.map((f) => f.FileId) });
  }

  async #persist(): Promise<void> {
    if (!this.#recordKey) return;
    const files = this.uploadedFiles;
    const sig = signature(files);
    if (sig === this.#savedSignature) return;
    this.#savedSignature = sig;
    try {
      await (files.length > 0 ? this.#records.save(this.#recordKey, files) : this.#records.clear(this.#recordKey));
    } catch {
      // storage full or unavailable: uploads still work, they just will not survive a reload
    }
  }

  #syncForm(): void {
    const internals = this.#internals;
    if (!internals || typeof internals.setFormValue !== 'function') return;
    const ids = this.fileIds;
    if (this.name && ids.length > 0) {
      const data = new FormData();
      for (const id of ids) data.append(this.name, id);
      internals.setFormValue(data);
    } else {
      internals.setFormValue(null);
    }
    const anchor = this._dropZone ?? undefined;
    if (this.#queue.busy) internals.setValidity({ customError: true }, this.#t.term('busyValidity'), anchor);
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
    const items = this.#queue.items;
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
          @dragenter=${this.#onDragOver}
          @dragover=${this.#onDragOver}
          @dragleave=${this.#onDragLeave}
          @drop=${this.#onDrop}
        >
          <span class="badge" aria-hidden="true">${icon('upload')}</span>
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
          ? html`<p part="error" role="alert">${icon('alert')}<span>${this.#t.term('misconfigured', { message: this.#configError.message })}</span></p>`
          : nothing}
        ${!this.#queue.online && items.some((i) => i.status === 'offline')
          ? html`<p part="offline">${icon('offline')}<span>${this.#t.term('offlineNote')}</span></p>`
          : nothing}
        ${this.#renderSummary(items)}
        ${items.length > 0
          ? html`<ul part="list" aria-label=${this.#t.term('filesLabel')}>
              ${items.map((item) => this.#renderItem(item))}
            </ul>`
          : nothing}
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

  #renderSummary(items: readonly UploadItem[]) {
    const active = items.filter((i) => ACTIVE.has(i.status));
    const failed = items.filter((i) => i.status === 'failed' || i.status === 'cancelled');
    if (active.length === 0 && failed.length === 0) return nothing;
    const overall = this.#queue.overall();
    const done = items.filter((i) => i.status === 'done' && !i.restored).length;
    return html`<div part="summary">
      ${active.length > 0
        ? html`<progress part="progress overall" aria-label=${this.#t.term('overallLabel')} max=${Math.max(overall.total, 1)} .value=${overall.loaded}></progress>`
        : html`<span></span>`}
      <span class="actions">
        ${active.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => this.cancel()}>${this.#t.term('cancelAll')}</button>` : nothing}
        ${failed.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => void this.retry()}>${this.#t.term('retryAll')}</button>` : nothing}
      </span>
      ${active.length > 0 ? html`<span class="meta">${this.#t.term('overallText', { done, count: done + active.length })}</span>` : nothing}
    </div>`;
  }

  #renderItem(item: UploadItem) {
    const name = item.FileName;
    const active = ACTIVE.has(item.status);
    const sent = item.status === 'done' && item.FileId !== undefined && this.#sent.has(item.FileId);
    const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
    const retryable = (item.status === 'failed' || item.status === 'cancelled') && !item.restored;
    const bad = item.status === 'failed' || item.status === 'rejected';
    const progress =
      !active || item.status === 'offline'
        ? nothing
        : item.status === 'uploading' || item.status === 'queued'
          ? html`<progress part="progress" aria-label=${this.#t.term('progressOf', { name })} max=${Math.max(item.total, 1)} .value=${item.loaded}></progress>`
          : html`<progress part="progress" aria-label=${this.#t.term('progressOf', { name })}></progress>`;
    return html`<li part="file file-${sent ? 'sent' : item.status}" data-key=${item.key}>
      <span part="file-icon" class="file-icon" aria-hidden="true">${icon(bad ? 'alert' : item.status === 'done' ? 'check' : 'file')}</span>
      <span class="body">
        <span part="file-name">${name}${item.size > 0 ? html` <span class="meta">(${this.#t.bytes(item.size)})</span>` : nothing}</span>
        ${progress}
        <span part="file-status">${sent ? this.#t.term('sent') : this.#statusText(item, percent)}</span>
      </span>
      <span class="actions">
        ${active
          ? html`<button part="button" class="secondary small" type="button" aria-label=${this.#t.term('cancelFile', { name })} @click=${() => this.cancel(item.key)}>
              ${this.#t.term('cancel')}
            </button>`
          : nothing}
        ${retryable
          ? html`<button part="button" class="secondary small" type="button" aria-label=${this.#t.term('retryFile', { name })} @click=${() => void this.retry(item.key)}>
              ${this.#t.term('retry')}
            </button>`
          : nothing}
        ${!active
          ? html`<button part="button" class="quiet small" type="button" aria-label=${this.#t.term('removeFile', { name })} @click=${() => this.removeFile(item.key)}>
              ${this.#t.term('remove')}
            </button>`
          : nothing}
      </span>
    </li>`;
  }

  #statusText(item: UploadItem, percent: number) {
    switch (item.status) {
      case 'uploading':
        return this.#t.term('uploading', { percent });
      case 'done':
        return this.#t.term(item.restored ? 'restored' : 'done');
      case 'rejected':
        return this.#t.term('rejected', { reason: item.error ? this.#reason(item.error) : '' });
      case 'failed':
        return html`${this.#t.term('failed', { reason: item.error ? this.#reason(item.error) : this.#t.term('upload_failed') })}${item.error?.requestId
          ? html` <span class="meta">${this.#t.term('requestId', { id: item.error.requestId })}</span>`
          : nothing}`;
      default:
        return this.#t.term(item.status);
    }
  }

  /** The user's words for why a file was refused or failed. */
  #reason(error: EsignError): string {
    switch (error.code) {
      case 'file_too_large':
        // the service's own limit may differ from ours: its message says which
        return error.status === 413 ? error.message : this.#t.term('file_too_large', { size: this.#t.bytes(this.#limits?.maxSize ?? DEFAULT_MAX_FILE_BYTES) });
      case 'too_many_files':
        return this.#t.plural('too_many_files', this.#limits?.maxFiles ?? 0);
      case 'invalid_argument':
        return error.status === undefined ? this.#t.term('empty') : this.#serviceReason(error);
      case 'file_type_not_accepted':
      case 'rate_limited':
      case 'no_session':
      case 'aborted':
        return this.#t.term(error.code);
      case 'network_error':
        return this.#t.term('network_error');
      default:
        return this.#serviceReason(error);
    }
  }

  /** A failure the service explained: its message when it sent one, else what its HTTP status means. */
  #serviceReason(error: EsignError): string {
    if (error.status !== undefined && error.status >= 500) return this.#t.term('server_error', { status: error.status });
    if (error.serviceCode && error.message) return error.message;
    if (error.status !== undefined) return this.#t.term('http_error', { status: error.status });
    return error.message || this.#t.term('upload_failed');
  }

  // ---- handlers ----

  readonly #onEnvelopeSent = (event: Event): void => {
    const ids = (event as CustomEvent<Partial<EsignEnvelopeSentDetail>>).detail?.fileIds;
    if (!Array.isArray(ids)) return;
    const mine = new Set(this.#queue.completed.map((f) => f.FileId));
    const sent = ids.filter((id): id is string => typeof id === 'string' && mine.has(id) && !this.#sent.has(id));
    if (sent.length === 0) return;
    for (const id of sent) this.#sent.add(id);
    this._live = this.#t.plural('liveSent', sent.length);
    this.#syncForm();
    void this.#persist();
    this.requestUpdate();
  };

  readonly #onConnectivity = (): void => {
    this.#queue.setOnline(navigator.onLine !== false);
  };

  /** Says in the live region when files start waiting for the connection and when they resume. */
  #announceConnectivity(): void {
    const waiting = this.#queue.items.filter((i) => i.status === 'offline').length;
    const before = this.#waiting;
    this.#waiting = waiting;
    // files in flight are parked a moment after the queued ones: the count only grows while offline
    if (waiting > before) this._live = this.#t.plural('liveOffline', waiting);
    else if (waiting === 0 && before > 0 && this.#queue.online && this.#queue.busy) this._live = this.#t.plural('liveOnline', before);
  }

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

  readonly #onDragOver = (event: DragEvent): void => {
    // always claim the drop here, so a file dropped on a disabled zone is not opened by the browser
    event.preventDefault();
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

function ref(item: UploadItem): UploadFileRef {
  return { key: item.key, FileName: item.FileName, size: item.size, type: item.type };
}

function noSession(): EsignError {
  return new EsignError('no_session', 'Not connected: connect an e-signature account first.');
}

function signature(files: readonly UploadedFile[]): string {
  return files.map((f) => f.FileId).join('\n');
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-uploader': EsignUploader;
  }
}
