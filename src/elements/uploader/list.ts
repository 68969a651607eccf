/**
 * What <esign-uploader> does once files arrive: the upload queue (Base64 body builder, transport, retries,
 * offline waits), the list of files with their progress and reasons, the announcements, and keeping the completed
 * FileIds (KeptUploads). Loaded by the element with the first file (or when there are kept FileIds to restore), so
 * a page that only shows the drop zone never loads it.
 */
import { repeat } from 'lit/directives/repeat.js';
import { html, nothing, svg, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { EsignError } from '../../core/errors.js';
import type { UploadedFile } from '../../core/service-types.js';
import { KeptUploads } from '../../core/upload/keep.js';
import type { KeyValueStore } from '../../core/kv.js';
import { UploadQueue, type UploadItem, type UploadSession } from '../../core/upload/queue.js';
import { validateFiles } from '../../core/upload/check-files.js';
import type { UploaderLimits } from '../../core/upload/validate.js';
import { adoptStyles } from '../shared/adopt-styles.js';
import type { UploadListTerms } from './esign-uploader.messages.js';
import { uploadListMessages } from './list.messages.js';
import { emit, type EsignUploadCompleteDetail, type UploadFileRef } from '../shared/events.js';
import { TabChannel } from '../shared/tab-channel.js';
import type { SessionProvider } from '../shared/session-context.js';
import { alertIcon, checkIcon, icon } from '../shared/icons.js';
import { CountingLocalizeController } from './localize-counts.js';
import { listStyles, progressStyles } from './list.styles.js';

const fileIcon = svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5M9 13h6M9 17h4"/>`;
const offlineIcon = svg`<path d="M3 3l18 18"/><path d="M8.5 16.5a5 5 0 0 1 7 0M5 12.9a10 10 0 0 1 4.2-2.4M19 12.9a10 10 0 0 0-3-2M2 8.8a15 15 0 0 1 4.3-2.6M22 8.8A15 15 0 0 0 11 5"/><path d="M12 20h.01"/>`;

/** Live-region progress is announced at most this often; screen readers fall behind otherwise. */
const LIVE_PROGRESS_INTERVAL_MS = 4000;
const ACTIVE = new Set(['queued', 'encoding', 'uploading', 'retrying', 'offline']);

/** What the list needs from its element. */
export interface UploadListOptions {
  host: ReactiveControllerHost & HTMLElement;
  /** The session to upload with (its provider as the token source); throws `no_session` without one. */
  session(): UploadSession & { tokens: SessionProvider };
  /** The element's checked limits. */
  limits(): UploaderLimits | undefined;
  /** Says something in the element's live region (`error`: the assertive one). */
  announce(text: string, error?: boolean): void;
  /** The list changed (form value and validity follow it). */
  changed(): void;
  /** The uploader's record of kept uploads: its store, and its key ('' before a session). */
  kept: { readonly store: KeyValueStore; readonly key: string };
}

export class UploadList {
  readonly #o: UploadListOptions;
  /** FileIds an envelope was sent with: shown as sent, no longer offered, not kept for a reload. */
  readonly #sent = new Set<string>();
  #lastLiveProgress = 0;
  /** Files waiting for the connection at the last change: announcements go with changes of it. */
  #waiting = 0;
  readonly queue: UploadQueue;
  /** The detail of the last `esign-upload-complete`, for those who listen late. */
  lastResult: EsignUploadCompleteDetail | undefined;
  /** Keeps the completed FileIds under the uploader's record as the list changes. */
  readonly #kept: KeptUploads;
  /** The list's words (loaded with it), in the element's language: a controller of the host, so it follows its `lang`. */
  readonly #t: CountingLocalizeController<UploadListTerms>;

  constructor(options: UploadListOptions) {
    this.#o = options;
    const { host } = options;
    const t = (this.#t = new CountingLocalizeController<UploadListTerms>(host, uploadListMessages));
    adoptStyles(host.shadowRoot, progressStyles, listStyles);
    const kept = (this.#kept = new KeptUploads(options.kept.store, () => options.kept.key));
    this.queue = new UploadQueue({
      session: options.session,
      onChange: () => {
        host.requestUpdate();
        options.changed();
        void kept.save(this.uploaded);
        this.#announceConnectivity();
      },
      onProgress: (item, overall) => {
        host.requestUpdate();
        emit(host, 'esign-upload-progress', { file: ref(item), loaded: item.loaded, total: item.total, overall });
        if (Date.now() - this.#lastLiveProgress >= LIVE_PROGRESS_INTERVAL_MS) this.#announceProgress();
      },
      onError: (item, error) => this.#fileError(item, error),
      onComplete: () => {
        options.announce(t.plural('liveDone', this.uploaded.length));
        this.#complete();
      },
    });
    // an envelope sent with some of these files, in this page or another tab of the same service and Space
    new TabChannel(
      host,
      () => {
        try {
          return options.session().tokens;
        } catch {
          return undefined; // no session: no channel
        }
      },
      (detail) => this.envelopeSent(detail.fileIds),
    );
  }

  /** The files uploaded so far and not yet sent in an envelope. */
  get uploaded(): UploadedFile[] {
    return this.queue.completed.filter((f) => !this.#sent.has(f.FileId));
  }

  /**
   * Checks and uploads files (refused ones are shown and reported, even without a session); resolves with those of
   * this call that were uploaded. Throws `no_session` (after reporting it) when some file passed the checks and there
   * is no session.
   */
  async upload(files: File[], fail: (error: EsignError) => EsignError): Promise<UploadedFile[]> {
    const { host } = this.#o;
    const { accepted, rejected } = validateFiles(files, this.#o.limits()!, this.queue.held);
    for (const { file, error } of rejected) this.#fileError(this.queue.reject(file, error), error);
    if (accepted.length === 0) return [];
    try {
      this.#o.session();
    } catch (error) {
      // the session hook throws the element's no_session
      throw fail(EsignError.from(error, 'no_session'));
    }
    const { items, settled } = this.queue.add(accepted);
    emit(host, 'esign-upload-start', { files: items.map(ref) });
    this.#announceProgress();
    await settled;
    const keys = new Set(items.map((i) => i.key));
    return this.queue.items.filter((i) => keys.has(i.key) && i.status === 'done' && i.FileId).map((i) => ({ FileId: i.FileId!, FileName: i.FileName }));
  }

  /** Shows kept FileIds as done; says so (`esign-upload-complete`) when that added any. */
  restore(files: UploadedFile[]): void {
    const before = this.uploaded.length;
    this.queue.restore(files);
    const all = this.uploaded;
    void this.#kept.save(all);
    if (all.length > before) this.#complete();
  }

  /** Says every file uploaded so far (`esign-upload-complete`), and keeps what it said as `lastResult`. */
  #complete(): void {
    const files = this.uploaded;
    this.lastResult = { files, fileIds: files.map((f) => f.FileId) };
    emit(this.#o.host, 'esign-upload-complete', { files: [...files], fileIds: [...this.lastResult.fileIds] });
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  reset(): void {
    this.lastResult = undefined;
    this.queue.clear();
    void this.#kept.clear();
  }

  /** Shows the files of a form state the browser gave back (see UploaderFormControl); ignores a state it cannot read. */
  restoreState(state: string): void {
    let files: UploadedFile[] = [];
    try {
      const parsed: unknown = JSON.parse(state);
      if (Array.isArray(parsed))
        files = parsed.filter(
          (f: Partial<Record<keyof UploadedFile, unknown>> | null): f is UploadedFile => typeof f?.FileId === 'string' && typeof f?.FileName === 'string',
        );
    } catch {
      return; // not a state this element saved
    }
    if (files.length > 0) this.restore(files);
  }

  /** An envelope was sent with these FileIds: the ones of this list are marked sent. */
  envelopeSent(ids: unknown[]): void {
    const mine = new Set(this.queue.completed.map((f) => f.FileId));
    const sent = ids.filter((id): id is string => typeof id === 'string' && mine.has(id) && !this.#sent.has(id));
    if (sent.length === 0) return;
    for (const id of sent) this.#sent.add(id);
    this.#o.announce(this.#t.plural('liveSent', sent.length));
    this.#o.changed();
    void this.#kept.save(this.uploaded);
    this.#o.host.requestUpdate();
  }

  /** The offline note, the overall row and the files. */
  render(): TemplateResult {
    const items = this.queue.items;
    const t = this.#t;
    return html`${
      !this.queue.online && items.some((i) => i.status === 'offline')
        ? html`<p part="offline">${icon(offlineIcon)}<span>${t.term('offlineNote')}</span></p>`
        : nothing
    }
      ${this.#renderSummary(items)}
      ${
        items.length > 0
          ? html`<ul part="list" aria-label=${t.term('filesLabel')}>
            ${repeat(
              items,
              (item) => item.key,
              (item) => this.#renderItem(item),
            )}
          </ul>`
          : nothing
      }`;
  }

  #renderSummary(items: readonly UploadItem[]) {
    const active = items.filter((i) => ACTIVE.has(i.status));
    const failed = items.filter((i) => i.status === 'failed' || i.status === 'cancelled');
    // one file's row has its own progress: a summary that came and went with it would move the page below
    if (active.length + failed.length < 2 && items.length < 2) return nothing;
    if (active.length === 0 && failed.length === 0) return nothing;
    const t = this.#t;
    const overall = this.queue.overall();
    const done = items.filter((i) => i.status === 'done' && !i.restored).length;
    return html`<div part="summary">
      ${
        active.length > 0
          ? html`<progress part="progress overall" aria-label=${t.term('overallLabel')} max=${Math.max(overall.total, 1)} .value=${overall.loaded}></progress>`
          : html`<span></span>`
      }
      <span class="actions">
        ${active.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => this.queue.cancel()}>${t.term('cancelAll')}</button>` : nothing}
        ${failed.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => void this.queue.retry()}>${t.term('retryAll')}</button>` : nothing}
      </span>
      ${active.length > 0 ? html`<span class="meta">${t.term('overallText', { done, count: done + active.length })}</span>` : nothing}
    </div>`;
  }

  #renderItem(item: UploadItem) {
    const t = this.#t;
    const name = item.FileName;
    const active = ACTIVE.has(item.status);
    const sent = item.status === 'done' && item.FileId !== undefined && this.#sent.has(item.FileId);
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
            ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('cancelFile', { name })} @click=${() => this.queue.cancel(item.key)}>
              ${t.term('cancel')}
            </button>`
            : nothing
        }
        ${
          retryable
            ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('retryFile', { name })} @click=${() => void this.queue.retry(item.key)}>
              ${t.term('retry')}
            </button>`
            : nothing
        }
        ${
          !active
            ? html`<button part="button" class="quiet small" type="button" aria-label=${t.term('removeFile', { name })} @click=${() => this.queue.remove(item.key)}>
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

  /** A file was refused or failed: said in the live region, and reported (`esign-error` with the file). */
  #fileError(item: UploadItem, error: EsignError): void {
    this.#o.announce(this.#t.term('liveFileError', { name: item.FileName, reason: this.#reason(error) }), true);
    emit(this.#o.host, 'esign-error', { error, file: ref(item) });
  }

  /** The user's words for why a file was refused or failed. */
  #reason(error: EsignError): string {
    const t = this.#t;
    const limits = this.#o.limits();
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
        return t.term(error.code);
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

  /** Says how far the uploads are: "Uploading: 1 of 3 files done, 40%". */
  #announceProgress(): void {
    const overall = this.queue.overall();
    const items = this.queue.items.filter((i) => ACTIVE.has(i.status) || (i.status === 'done' && !i.restored));
    const done = items.filter((i) => i.status === 'done').length;
    const percent = overall.total > 0 ? Math.floor((overall.loaded / overall.total) * 100) : 0;
    this.#lastLiveProgress = Date.now();
    this.#o.announce(this.#t.term('liveProgress', { done, count: items.length, percent }));
  }

  /** Says in the live region when files start waiting for the connection and when they resume. */
  #announceConnectivity(): void {
    const waiting = this.queue.items.filter((i) => i.status === 'offline').length;
    const before = this.#waiting;
    this.#waiting = waiting;
    const t = this.#t;
    // files in flight are parked a moment after the queued ones: the count only grows while offline
    if (waiting > before) this.#o.announce(t.plural('liveOffline', waiting));
    else if (waiting === 0 && before > 0 && this.queue.online && this.queue.busy) this.#o.announce(t.plural('liveOnline', before));
  }
}

function ref(item: UploadItem): UploadFileRef {
  return { key: item.key, FileName: item.FileName, size: item.size, type: item.type };
}
