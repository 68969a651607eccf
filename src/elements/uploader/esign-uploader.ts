import { html, nothing, svg, type PropertyDeclarations, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { EsignError } from '../../core/errors.js';
import type { UploadedFile } from '../../core/service-types.js';
import type { UploadItem } from '../../core/upload/queue.js';
import { DEFAULT_ACCEPT, DEFAULT_MAX_FILE_BYTES } from '../../core/upload/validate.js';
import { emit, type EsignUploadCompleteDetail } from '../shared/events.js';
import { uploaderMessages, type UploaderTerms } from './esign-uploader.messages.js';
import { CountingLocalizeController } from './localize-counts.js';
import { alertIcon, checkIcon, icon } from '../shared/icons.js';
import { DropZone } from './drop-zone.js';
import { UploaderFormControl } from './form-control.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { listStyles, progressStyles, uploaderStyles } from './esign-uploader.styles.js';
import { FocusKeeper, liveRegions } from '../shared/a11y.js';
import { isActive, UploadController, type Announcement, type UploaderStatus } from './upload-controller.js';

export type { UploadItem, UploadStatus } from '../../core/upload/queue.js';
export type { UploaderStatus } from './upload-controller.js';

const fileIcon = svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5M9 13h6M9 17h4"/>`;
const offlineIcon = svg`<path d="M3 3l18 18"/><path d="M8.5 16.5a5 5 0 0 1 7 0M5 12.9a10 10 0 0 1 4.2-2.4M19 12.9a10 10 0 0 0-3-2M2 8.8a15 15 0 0 1 4.3-2.6M22 8.8A15 15 0 0 0 11 5"/><path d="M12 20h.01"/>`;

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
export class EsignUploader extends UploaderFormControl {
  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
      connect: { reflect: true },
      accept: {},
      maxSize: { attribute: 'max-size', converter: optionalNumber },
      maxFiles: { attribute: 'max-files', converter: optionalNumber },
      multiple: { type: Boolean, reflect: true },
      disabled: { type: Boolean, reflect: true },
      persistKey: { attribute: 'persist-key' },
    };
  }

  static override styles = [buttonStyles, visuallyHiddenStyles, uploaderStyles, progressStyles, listStyles];

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

  /** The files, their uploads and what to announce. */
  readonly #uploads = new UploadController(this, { changed: () => this.#syncForm() });
  readonly #t = new CountingLocalizeController<UploaderTerms>(this, uploaderMessages);
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
    return this.#uploads.items.map((item) => ({ ...item }));
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
    if (!this.#uploads.checkSettings() && (this.disabled || this.formDisabled)) {
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
  override reset(): void {
    this.#uploads.reset();
  }

  /** Opens the file picker. Browsers allow it only from a user gesture (a click or key press). */
  showPicker(): void {
    this.#zone.pick();
  }

  protected override restoreState(state: string): void {
    this.#uploads.restoreState(state);
  }

  protected override updated(): void {
    this.#syncForm();
  }

  #syncForm(): void {
    const busy = this.#uploads.busy ? this.#t.term('busyValidity') : undefined;
    this.syncForm(
      this.uploadedFiles,
      busy,
      () => this.#t.term('requiredValidity'),
      this.renderRoot?.querySelector<HTMLElement>('[part~="drop-zone"]') ?? undefined,
    );
  }

  #canTakeFiles(): boolean {
    return !this.disabled && !this.formDisabled && !this.#uploads.configError && !!this.#uploads.connected;
  }

  // ---- rendering ----

  protected override render() {
    const configError = this.#uploads.configError;
    const off = this.disabled || this.formDisabled;
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
        <div class="files">${items.length > 0 ? this.#renderFiles(items) : html`<p part="empty"><span>${t.term('noFiles')}</span></p>`}</div>
        ${liveRegions(this.#say(this.#uploads.live), configError ? this.#misconfigured(configError) : this.#say(this.#uploads.alert))}
      </div>
    `;
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
        return t.term('liveFileError', { name: news.name, reason: this.#reason(news.error) });
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

  /** The offline note, the overall row and the files. */
  #renderFiles(items: readonly UploadItem[]): TemplateResult {
    const t = this.#t;
    return html`${
      !this.#uploads.online && items.some((i) => i.status === 'offline')
        ? html`<p part="offline">${icon(offlineIcon)}<span>${t.term('offlineNote')}</span></p>`
        : nothing
    }
      ${this.#renderSummary(items)}
      <ul part="list" aria-label=${t.term('filesLabel')}>
        ${repeat(
          items,
          (item) => item.key,
          (item) => this.#renderItem(item),
        )}
      </ul>`;
  }

  #renderSummary(items: readonly UploadItem[]) {
    const active = items.filter(isActive);
    const failed = items.filter((i) => i.status === 'failed' || i.status === 'cancelled');
    // one file's row has its own progress: a summary that came and went with it would move the page below
    if (active.length + failed.length < 2 && items.length < 2) return nothing;
    if (active.length === 0 && failed.length === 0) return nothing;
    const t = this.#t;
    const overall = this.#uploads.overall();
    const done = items.filter((i) => i.status === 'done' && !i.restored).length;
    return html`<div part="summary">
      ${
        active.length > 0
          ? html`<progress part="progress overall" aria-label=${t.term('overallLabel')} max=${Math.max(overall.total, 1)} .value=${overall.loaded}></progress>`
          : html`<span></span>`
      }
      <span class="actions">
        ${active.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => this.cancel()}>${t.term('cancelAll')}</button>` : nothing}
        ${failed.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => void this.retry()}>${t.term('retryAll')}</button>` : nothing}
      </span>
      ${active.length > 0 ? html`<span class="meta">${t.term('overallText', { done, count: done + active.length })}</span>` : nothing}
    </div>`;
  }

  #renderItem(item: UploadItem) {
    const t = this.#t;
    const name = item.FileName;
    const active = isActive(item);
    const sent = this.#uploads.isSent(item);
    const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
    const retryable = (item.status === 'failed' || item.status === 'cancelled') && !item.restored;
    const bad = item.status === 'failed' || item.status === 'rejected';
    // a row without a bar keeps its place: the row does not change height when its upload ends (the page below stays)
    const progress =
      !active || item.status === 'offline'
        ? html`<span class="no-progress"></span>`
        : item.status === 'uploading' || item.status === 'queued'
          ? html`<progress part="progress" aria-label=${t.term('progressOf', { name })} max=${Math.max(item.total, 1)} .value=${item.loaded}></progress>`
          : html`<progress part="progress" aria-label=${t.term('progressOf', { name })}></progress>`;
    return html`<li part="file file-${sent ? 'sent' : item.status}" data-key=${item.key} data-focus-scope=${item.key}>
      <span part="file-icon" class="file-icon" aria-hidden="true">${icon(bad ? alertIcon : item.status === 'done' ? checkIcon : fileIcon)}</span>
      <span class="body">
        <span part="file-name">${name}${item.size > 0 ? html` <span class="meta">(${t.bytes(item.size)})</span>` : nothing}</span>
        ${progress}
        <span part="file-status">${sent ? t.term('sent') : this.#statusText(item, percent)}</span>
      </span>
      <span class="actions">
        ${
          active
            ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('cancelFile', { name })} @click=${() => this.cancel(item.key)}>
              ${t.term('cancel')}
            </button>`
            : nothing
        }
        ${
          retryable
            ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('retryFile', { name })} @click=${() => void this.retry(item.key)}>
              ${t.term('retry')}
            </button>`
            : nothing
        }
        ${
          !active
            ? html`<button part="button" class="quiet small" type="button" aria-label=${t.term('removeFile', { name })} @click=${() => this.removeFile(item.key)}>
              ${t.term('remove')}
            </button>`
            : nothing
        }
      </span>
    </li>`;
  }

  #statusText(item: UploadItem, percent: number) {
    const t = this.#t;
    switch (item.status) {
      case 'uploading':
        return t.term('uploading', { percent });
      case 'done':
        return t.term(item.restored ? 'restored' : 'done');
      case 'rejected':
        return t.term('rejected', { reason: item.error ? this.#reason(item.error) : '' });
      case 'failed':
        return html`${t.term('failed', { reason: item.error ? this.#reason(item.error) : t.term('upload_failed') })}${
          item.error?.requestId ? html` <span class="meta">${t.term('requestId', { id: item.error.requestId })}</span>` : nothing
        }`;
      default:
        return t.term(item.status);
    }
  }

  /** The user's words for why a file was refused or failed. */
  #reason(error: EsignError): string {
    const t = this.#t;
    const limits = this.#uploads.limits;
    switch (error.code) {
      case 'file_too_large':
        // the service's own limit may differ from ours: its message says which
        // ours comes from the checks against the limits (there are none with a bad setting: no file goes then)
        return error.status === 413 || !limits ? error.message : t.term('file_too_large', { size: t.bytes(limits.maxSize) });
      case 'too_many_files':
        return t.plural('too_many_files', limits?.maxFiles ?? 0);
      case 'invalid_argument':
        return error.status === undefined ? t.term('empty') : this.#serviceReason(error);
      case 'file_type_not_accepted':
      case 'rate_limited':
      case 'no_session':
      case 'aborted':
      case 'network_error':
      case 'csp_blocked':
        return t.term(error.code);
      default:
        return this.#serviceReason(error);
    }
  }

  /** A failure the service explained: its message when it sent one, else what its HTTP status means. */
  #serviceReason(error: EsignError): string {
    const t = this.#t;
    if (error.status !== undefined && error.status >= 500) return t.term('server_error', { status: error.status });
    if (error.serviceCode && error.message) return error.message;
    if (error.status !== undefined) return t.term('http_error', { status: error.status });
    return error.message || t.term('upload_failed');
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-uploader': EsignUploader;
  }
}
