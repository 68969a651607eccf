import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { EsignError } from '../core/errors.js';
import type { UploadedFile } from '../core/service-types.js';
import { openUploadRecords, uploadRecordKey } from '../core/upload/persist.js';
import { UploadQueue, type UploadItem } from '../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES, parseLimits, validateFiles, type UploaderLimits } from '../core/upload/validate.js';
import { emit, type UploadFileRef } from './events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { LocalizeController } from './localize.js';
import { visuallyHiddenStyles } from './shared-styles.js';
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
 * @csspart file - One file row; also `file-<status>` (`file-uploading`, `file-offline`, `file-done`, `file-failed`, `file-rejected`, …).
 * @csspart file-name - The file's name.
 * @csspart file-status - The file's status text.
 * @csspart progress - A `<progress>` bar (per file and overall).
 * @csspart button - The cancel, retry and remove buttons.
 * @csspart summary - The overall progress row.
 * @csspart error - The setup error message.
 * @csspart offline - The note shown while the browser is offline and uploads wait.
 *
 * @cssprop [--esign-accent=#2557d6] - Progress and focus accents, the drop zone when dragging over.
 * @cssprop [--esign-radius=6px] - Corner radius.
 * @cssprop [--esign-font=inherit] - Font of the element.
 * @cssprop [--esign-danger=#b3261e] - Colour of errors and refused files.
 * @cssprop [--esign-gap=0.5rem] - Space between the parts.
 * @cssprop [--esign-focus=#8ab4ff] - Focus ring colour.
 * @cssprop [--esign-surface=#ffffff] - Background of the drop zone and the list (dark: #1e1f22).
 * @cssprop [--esign-border=#8a8f98] - Border of the drop zone and rows.
 * @cssprop [--esign-muted=#5f6368] - Secondary text (dark: #b0b4ba).
 */
export class EsignUploader extends LitElement {
  static formAssociated = true;

  static override styles = [
    visuallyHiddenStyles,
    css`
    :host {
      display: block;
      font: var(--esign-font, inherit);
      color: inherit;
      --_surface: var(--esign-surface, #ffffff);
      --_border: var(--esign-border, #8a8f98);
      --_muted: var(--esign-muted, #5f6368);
      --_danger: var(--esign-danger, #b3261e);
      --_accent: var(--esign-accent, #2557d6);
    }
    @media (prefers-color-scheme: dark) {
      :host {
        --_surface: var(--esign-surface, #1e1f22);
        --_border: var(--esign-border, #80868b);
        --_muted: var(--esign-muted, #b0b4ba);
        --_danger: var(--esign-danger, #ffb4ab);
        --_accent: var(--esign-accent, #8ab4ff);
      }
    }
    :host([hidden]) {
      display: none;
    }
    [part~='base'] {
      display: grid;
      gap: var(--esign-gap, 0.5rem);
    }
    [part~='drop-zone'] {
      font: inherit;
      color: inherit;
      display: grid;
      gap: 0.25em;
      justify-items: center;
      width: 100%;
      padding: 1.5em 1em;
      background: var(--_surface);
      border: 2px dashed var(--_border);
      border-radius: var(--esign-radius, 6px);
      cursor: pointer;
      text-align: center;
    }
    [part~='drop-zone']:hover:not([aria-disabled='true']),
    [part~='drop-zone'].dragging {
      border-color: var(--_accent);
      border-style: solid;
    }
    [part~='drop-zone'][aria-disabled='true'] {
      cursor: not-allowed;
      opacity: 0.75;
    }
    [part~='label'] {
      font-weight: 600;
    }
    [part~='hint'],
    [part~='file-status'],
    .meta {
      color: var(--_muted);
      font-size: 0.875em;
    }
    button:focus-visible {
      outline: 3px solid var(--esign-focus, #8ab4ff);
      outline-offset: 2px;
    }
    [part~='list'] {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: calc(var(--esign-gap, 0.5rem) / 2);
    }
    [part~='file'] {
      display: grid;
      grid-template-columns: minmax(0, 1fr) auto;
      align-items: center;
      gap: 0.25em 0.75em;
      padding: 0.5em 0.75em;
      background: var(--_surface);
      border: 1px solid var(--_border);
      border-radius: var(--esign-radius, 6px);
    }
    [part~='file-name'] {
      overflow-wrap: anywhere;
    }
    [part~='file-failed'] [part~='file-status'],
    [part~='file-rejected'] [part~='file-status'] {
      color: var(--_danger);
    }
    [part~='file-failed'],
    [part~='file-rejected'] {
      border-color: var(--_danger);
    }
    .actions {
      display: flex;
      gap: 0.25em;
      grid-row: span 2;
    }
    [part~='button'] {
      font: inherit;
      font-size: 0.875em;
      cursor: pointer;
      color: inherit;
      background: transparent;
      border: 1px solid currentColor;
      border-radius: var(--esign-radius, 6px);
      padding: 0.25em 0.75em;
    }
    progress {
      width: 100%;
      height: 0.5em;
      accent-color: var(--_accent);
    }
    [part~='summary'] {
      display: grid;
      grid-template-columns: minmax(0, 1fr) auto;
      align-items: center;
      gap: 0.25em 0.75em;
    }
    [part~='error'] {
      color: var(--_danger);
      margin: 0;
    }
    [part~='offline'] {
      margin: 0;
      font-weight: 600;
    }
  `,
  ];

  /** The id of the `<esign-connect>` whose session to use. Default: the nearest one around this element. */
  @property({ reflect: true }) connect: string | undefined = undefined;

  /** Accepted types, as for `<input type="file">`: `.ext`, `type/*` or `type/subtype`, comma-separated. Empty: any type. Default: PDF, office documents and images. */
  @property() accept: string = DEFAULT_ACCEPT;

  /** Largest file in bytes. Default: the service limit, 20 MiB (assumption). */
  @property({ attribute: 'max-size', converter: optionalNumber }) maxSize: number | undefined = undefined;

  /** Most files this uploader holds at once (uploaded or on their way). Default: no limit; 1 without `multiple`. */
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
      this._live = this.#t.term('liveDone', { count: files.length });
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
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('online', this.#onConnectivity);
    window.removeEventListener('offline', this.#onConnectivity);
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

  /** The FileIds uploaded so far (restored ones included), in order. */
  get fileIds(): readonly string[] {
    return this.#queue.completed.map((f) => f.FileId);
  }

  /** The files uploaded so far, in the service's names. */
  get uploadedFiles(): UploadedFile[] {
    return this.#queue.completed;
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
    const before = this.#queue.completed.length;
    this.#queue.restore(files);
    const all = this.#queue.completed;
    this.#savedSignature = signature(all);
    if (all.length > before) emit(this, 'esign-upload-complete', { files: all, fileIds: all.map((f) => f.FileId) });
  }

  async #persist(): Promise<void> {
    if (!this.#recordKey) return;
    const files = this.#queue.completed;
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
          ? html`<p part="error" role="alert">${this.#t.term('misconfigured', { message: this.#configError.message })}</p>`
          : nothing}
        ${!this.#queue.online && items.some((i) => i.status === 'offline')
          ? html`<p part="offline">${this.#t.term('offlineNote')}</p>`
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
        ${active.length > 1 ? html`<button part="button" type="button" @click=${() => this.cancel()}>${this.#t.term('cancelAll')}</button>` : nothing}
        ${failed.length > 1 ? html`<button part="button" type="button" @click=${() => void this.retry()}>${this.#t.term('retryAll')}</button>` : nothing}
      </span>
      ${active.length > 0 ? html`<span class="meta">${this.#t.term('overallText', { done, count: done + active.length })}</span>` : nothing}
    </div>`;
  }

  #renderItem(item: UploadItem) {
    const name = item.FileName;
    const active = ACTIVE.has(item.status);
    const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
    const retryable = (item.status === 'failed' || item.status === 'cancelled') && !item.restored;
    return html`<li part="file file-${item.status}" data-key=${item.key}>
      <span part="file-name">${name}${item.size > 0 ? html` <span class="meta">(${this.#t.bytes(item.size)})</span>` : nothing}</span>
      <span class="actions">
        ${active
          ? html`<button part="button" type="button" aria-label=${this.#t.term('cancelFile', { name })} @click=${() => this.cancel(item.key)}>
              ${this.#t.term('cancel')}
            </button>`
          : nothing}
        ${retryable
          ? html`<button part="button" type="button" aria-label=${this.#t.term('retryFile', { name })} @click=${() => void this.retry(item.key)}>
              ${this.#t.term('retry')}
            </button>`
          : nothing}
        ${!active
          ? html`<button part="button" type="button" aria-label=${this.#t.term('removeFile', { name })} @click=${() => this.removeFile(item.key)}>
              ${this.#t.term('remove')}
            </button>`
          : nothing}
      </span>
      ${active && item.status !== 'offline'
        ? item.status === 'uploading'
          ? html`<progress part="progress" aria-label=${this.#t.term('progressOf', { name })} max=${Math.max(item.total, 1)} .value=${item.loaded}></progress>`
          : html`<progress part="progress" aria-label=${this.#t.term('progressOf', { name })}></progress>`
        : nothing}
      <span part="file-status">${this.#statusText(item, percent)}</span>
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
        return html`${this.#t.term('failed', { reason: item.error ? this.#reason(item.error) : '' })}${item.error?.requestId
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
        return this.#t.term('too_many_files', { count: this.#limits?.maxFiles ?? 0 });
      case 'invalid_argument':
        return error.status === undefined ? this.#t.term('empty') : this.#t.term('upload_failed');
      case 'file_type_not_accepted':
      case 'rate_limited':
      case 'no_session':
      case 'aborted':
        return this.#t.term(error.code);
      default:
        return this.#t.term('upload_failed');
    }
  }

  // ---- handlers ----

  readonly #onConnectivity = (): void => {
    this.#queue.setOnline(navigator.onLine !== false);
  };

  /** Says in the live region when files start waiting for the connection and when they resume. */
  #announceConnectivity(): void {
    const waiting = this.#queue.items.filter((i) => i.status === 'offline').length;
    const before = this.#waiting;
    this.#waiting = waiting;
    // files in flight are parked a moment after the queued ones: the count only grows while offline
    if (waiting > before) this._live = this.#t.term('liveOffline', { count: waiting });
    else if (waiting === 0 && before > 0 && this.#queue.online && this.#queue.busy) this._live = this.#t.term('liveOnline', { count: before });
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
