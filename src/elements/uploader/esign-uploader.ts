import { html, nothing, type PropertyValues, type PropertyDeclarations } from 'lit';
import { EsignError } from '../../core/errors.js';
import type { UploadedFile } from '../../core/service-types.js';
import type { UploadItem } from '../../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES, parseLimits, type UploaderLimits } from '../../core/upload/validate.js';
import { emit, type EsignUploadCompleteDetail } from '../shared/events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { CountingLocalizeController } from './localize-counts.js';
import { alertIcon, icon } from '../shared/icons.js';
import { DropZone } from './drop-zone.js';
import { UploaderFormControl } from './form-control.js';
import { KeptRecord } from './kept.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { SessionController } from '../shared/session-controller.js';
import type { UploadList } from './list.js';
import { OnlineController } from '../shared/online.js';
import { LazyPart } from '../shared/lazy.js';
import { uploaderStyles } from './esign-uploader.styles.js';
import { FocusKeeper, liveRegions } from '../shared/a11y.js';

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
export class EsignUploader extends UploaderFormControl {
  static override properties: PropertyDeclarations = {
    connect: { reflect: true },
    accept: {},
    maxSize: { attribute: 'max-size', converter: optionalNumber },
    maxFiles: { attribute: 'max-files', converter: optionalNumber },
    multiple: { type: Boolean, reflect: true },
    disabled: { type: Boolean, reflect: true },
    persistKey: { attribute: 'persist-key' },
    _live: { state: true, attribute: false },
    _alert: { state: true, attribute: false },
  };

  static override styles = [buttonStyles, visuallyHiddenStyles, uploaderStyles];

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

  /** Keeps completed uploads under this key across reloads (with the service and Space). Default: the element's id, else one key per page origin. */
  persistKey = '';

  /** @internal The polite live region's text (reactive state). */
  private _live = '';
  /** @internal The assertive live region's text: the last error (reactive state). */
  private _alert = '';

  readonly #session = new SessionController(this);
  readonly #t = new CountingLocalizeController<UploaderTerms>(this, uploaderMessages);
  /** The drop zone and the file picker. */
  readonly #zone = new DropZone(
    this,
    () => this.#canTakeFiles(),
    () => {
      // a pointer or the focus on the drop zone, or a file dragged over it: files may come, so their code starts loading
      if (!this.#list && this.#canTakeFiles()) void this.#listPart.load().catch(() => undefined);
    },
  );
  /** Completed FileIds kept across reloads, under this uploader's record. */
  readonly #kept = new KeptRecord();
  /** Uploads on their way wait while the browser is offline, and go on by themselves when it is back. */
  readonly #network = new OnlineController(this, (online) => this.#list?.queue.setOnline(online));
  #limits: UploaderLimits | undefined;
  #configError: EsignError | undefined;
  #reportedConfigError = '';
  /** The files' queue and list: loaded by the first file (or a pointer, the focus, a drag), or kept FileIds to restore. */
  readonly #listPart = new LazyPart(
    this,
    () => import('./list.js'),
    ({ UploadList }) => {
      const list = new UploadList({
        host: this,
        session: () => {
          const provider = this.#session.provider;
          if (!provider?.session) throw noSession();
          return { baseUrl: provider.baseUrl, tokens: provider, operatorUserId: provider.operatorUserId };
        },
        limits: () => this.#limits,
        announce: (text, error) => {
          if (error) this._alert = text;
          else [this._live, this._alert] = [text, ''];
        },
        changed: () => this.#syncForm(),
        kept: this.#kept,
      });
      list.queue.setOnline(this.#network.online);
      return list;
    },
  );
  constructor() {
    super();
    // a file row's button that goes takes the focus to the row's next control, the next row, else the drop zone
    new FocusKeeper(this, () => this.renderRoot.querySelector<HTMLElement>('[part~="drop-zone"]'));
  }

  get #list(): UploadList | undefined {
    return this.#listPart.value;
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

  /**
   * What the last `esign-upload-complete` said (`{files, fileIds}`), for code that listens after it fired (a framework
   * that attaches listeners after the first render); undefined before one, and after `reset()`.
   */
  get lastResult(): EsignUploadCompleteDetail | undefined {
    return this.#list?.lastResult;
  }

  /** The FileIds uploaded so far (restored ones included) and not yet sent in an envelope, in order. */
  get fileIds(): readonly string[] {
    return this.uploadedFiles.map((f) => f.FileId);
  }

  /** The files uploaded so far and not yet sent in an envelope, in the service's names. */
  get uploadedFiles(): UploadedFile[] {
    return this.#list?.uploaded ?? [];
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
  override reset(): void {
    this.#list?.reset();
    this._live = '';
    this._alert = '';
  }

  /** Opens the file picker. Browsers allow it only from a user gesture (a click or key press). */
  showPicker(): void {
    this.#zone.pick();
  }

  protected override restoreState(state: string): void {
    // read by the list's module: a page needs it only when the browser gives a form back
    void this.#listPart.load().then(
      (list) => list.restoreState(state),
      () => undefined,
    );
  }

  // ---- lifecycle ----

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('accept') || changed.has('maxSize') || changed.has('maxFiles') || changed.has('multiple') || !this.#limits) {
      this.#checkConfig();
    }
  }

  protected override updated(): void {
    this.#syncForm();
    void this.#kept.restore(this.#session.provider, this.persistKey || this.id || 'default', () => this.#listPart.load());
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

  #syncForm(): void {
    const busy = this.#list?.queue.busy ? this.#t.term('busyValidity') : undefined;
    this.syncForm(
      this.uploadedFiles,
      busy,
      () => this.#t.term('requiredValidity'),
      this.renderRoot?.querySelector<HTMLElement>('[part~="drop-zone"]') ?? undefined,
    );
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
          : this.#zone.dragging
            ? this.#t.term('dropHere')
            : this.#t.term(this.multiple ? 'chooseMany' : 'chooseOne');
    return html`
      <div part="base" role="group" aria-label=${this.#t.term('groupLabel')}>
        ${this.#zone.render(label, this.#hint(), off)}
        ${this.#configError ? html`<p part="error">${icon(alertIcon)}<span>${this.#misconfigured(this.#configError)}</span></p>` : nothing}
        <div class="files">
          ${this.#list && this.#list.queue.items.length > 0 ? this.#list.render() : html`<p part="empty"><span>${this.#t.term('noFiles')}</span></p>`}
        </div>
        ${liveRegions(this._live, this.#configError ? this.#misconfigured(this.#configError) : this._alert)}
      </div>
    `;
  }

  #misconfigured(error: EsignError): string {
    return this.#t.term('misconfigured', { message: error.message });
  }

  #hint(): string {
    // a bad max-size leaves no limits: the hint then shows the service's
    const size = this.#t.bytes(this.#limits?.maxSize ?? DEFAULT_MAX_FILE_BYTES);
    if (!this.#limits || this.accept === DEFAULT_ACCEPT) return this.#t.term('hintDefault', { size });
    const types = this.#limits.accept.filter((t) => t.startsWith('.') || t.endsWith('/*'));
    return this.#t.term('hintCustom', { size, types: (types.length > 0 ? types : this.#limits.accept).join(', ') || '*' });
  }
}

function noSession(): EsignError {
  return new EsignError('no_session', 'Not connected: connect an e-signature account first.');
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-uploader': EsignUploader;
  }
}
