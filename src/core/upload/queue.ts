/**
 * The uploader's work list: one request per file (so one bad file never fails the others and
 * progress is per file), a few at a time, each cancellable and retryable. Plain module: the element
 * renders it and turns its hooks into DOM events. It hands out frozen snapshots of its files (`items`, the hooks'
 * `item`): only the queue changes where a file is.
 */
import type { TokenSource } from '../service/service-client.js';
import { EsignError } from '@esign-elements/shared/errors';
import type { UploadedFile } from '@esign-elements/shared/service-types';
import { DEFAULT_CHUNK_BYTES } from './base64.js';
import { buildUploadBody, uploadBodySize } from './body.js';
import { sendWithProgress, uploadBody, type RawResponse, type SendOptions } from './transport.js';

/** `offline`: on its way, waiting for the browser to be online again (then it starts or restarts by itself). */
export type UploadStatus = 'queued' | 'encoding' | 'uploading' | 'retrying' | 'offline' | 'done' | 'failed' | 'cancelled' | 'rejected';

/** One file the uploader knows, with where it is: a snapshot, taken when it was handed out. */
export interface UploadItem {
  /** Stable id of this file in this uploader (not the service's FileId). */
  readonly key: string;
  /** The service's FileName once uploaded; the file's name before. */
  readonly FileName: string;
  readonly size: number;
  readonly type: string;
  readonly status: UploadStatus;
  /** Request-body bytes sent and their total (the JSON with Base64, about 4/3 of the file). */
  readonly loaded: number;
  readonly total: number;
  readonly FileId?: string | undefined;
  readonly error?: EsignError | undefined;
  /** Restored from storage after a reload (no file content is held). */
  readonly restored: boolean;
}

/** The queue's own record of a file, which only the queue changes. */
type FileRecord = { -readonly [K in keyof UploadItem]: UploadItem[K] };

export interface UploadSession {
  baseUrl: string;
  tokens: TokenSource;
  operatorUserId?: string | undefined;
  /** Ms an upload may go with neither progress nor an answer, per try (transport.ts `stallTimeoutMs`). */
  timeoutMs?: number | undefined;
}

export interface UploadQueueHooks {
  /** The session to upload with; throws `no_session` when there is none. */
  session(): UploadSession;
  onChange(): void;
  onProgress(item: UploadItem, overall: { loaded: number; total: number }): void;
  onError(item: UploadItem, error: EsignError): void;
  /** Every file of a run settled and at least one of them was uploaded. */
  onComplete(): void;
}

export interface UploadQueueOptions {
  concurrency?: number;
  chunkBytes?: number;
  /** Replaces XMLHttpRequest (tests). */
  send?: (options: SendOptions) => Promise<RawResponse>;
  /** Whether the browser is online at the start. Default `navigator.onLine` (true where there is no navigator). */
  online?: boolean;
}

interface Entry {
  item: FileRecord;
  file: Blob | undefined;
  body: Blob | undefined;
  controller: AbortController | undefined;
  /** Set when the current attempt was stopped because the browser went offline (not cancelled). */
  offline: boolean;
  waiters: Array<() => void>;
}

const ACTIVE: ReadonlySet<UploadStatus> = new Set(['queued', 'encoding', 'uploading', 'retrying', 'offline']);
let counter = 0;

export class UploadQueue {
  readonly #hooks: UploadQueueHooks;
  readonly #concurrency: number;
  readonly #chunkBytes: number;
  readonly #send: UploadQueueOptions['send'];
  #entries: Entry[] = [];
  /** Keys of the files of the current run (since the queue was last idle), for overall progress. */
  #run = new Set<string>();
  #running = 0;
  #online: boolean;

  constructor(hooks: UploadQueueHooks, options: UploadQueueOptions = {}) {
    this.#hooks = hooks;
    this.#concurrency = Math.max(1, options.concurrency ?? 2);
    this.#chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.#send = options.send;
    this.#online = options.online ?? browserOnline();
  }

  get online(): boolean {
    return this.#online;
  }

  /**
   * The browser went offline or came back (`offline`/`online` events). Offline: files on their way stop
   * their request (keeping the built body) and wait with status `offline`, queued ones too. Online: they
   * start again. A file already uploaded is never sent again.
   */
  setOnline(online: boolean): void {
    // no early return on an unchanged state: a failed request may have parked a file without an event
    this.#online = online;
    if (!online) {
      for (const e of this.#entries) {
        if (!ACTIVE.has(e.item.status) || e.item.status === 'offline') continue;
        if (e.controller) {
          e.offline = true;
          e.controller.abort();
        } else {
          this.#wait(e);
        }
      }
      this.#hooks.onChange();
      return;
    }
    for (const e of this.#entries) {
      if (e.item.status !== 'offline') continue;
      e.item.status = 'queued';
      e.item.error = undefined;
    }
    this.#hooks.onChange();
    this.#pump();
  }

  get items(): readonly UploadItem[] {
    return this.#entries.map((e) => snapshot(e.item));
  }

  get busy(): boolean {
    return this.#entries.some((e) => ACTIVE.has(e.item.status));
  }

  /** Files uploaded (or restored), in order, in the service's names. */
  get completed(): UploadedFile[] {
    return this.#entries.filter((e) => e.item.status === 'done' && e.item.FileId).map((e) => ({ FileId: e.item.FileId!, FileName: e.item.FileName }));
  }

  /** Files that count against max-files: uploaded or on their way. */
  get held(): number {
    return this.#entries.filter((e) => e.item.status === 'done' || ACTIVE.has(e.item.status)).length;
  }

  overall(): { loaded: number; total: number } {
    let loaded = 0;
    let total = 0;
    for (const { item } of this.#entries) {
      if (!this.#run.has(item.key) || !(item.status === 'done' || ACTIVE.has(item.status))) continue;
      total += item.total;
      loaded += item.status === 'done' ? item.total : item.loaded;
    }
    return { loaded, total };
  }

  /** Lists a file refused before upload (shown with its reason). */
  reject(file: File, error: EsignError): UploadItem {
    const item = this.#newItem(file, 'rejected');
    item.error = error;
    this.#entries.push({ item, file: undefined, body: undefined, controller: undefined, offline: false, waiters: [] });
    this.#hooks.onChange();
    return snapshot(item);
  }

  /** Lists files uploaded before a reload. */
  restore(files: readonly UploadedFile[]): void {
    const known = new Set(this.completed.map((f) => f.FileId));
    for (const f of files) {
      if (known.has(f.FileId)) continue;
      const item: FileRecord = {
        key: nextKey(),
        FileName: f.FileName,
        size: 0,
        type: '',
        status: 'done',
        loaded: 0,
        total: 0,
        FileId: f.FileId,
        restored: true,
      };
      this.#entries.push({ item, file: undefined, body: undefined, controller: undefined, offline: false, waiters: [] });
    }
    this.#hooks.onChange();
  }

  /** Queues accepted files; resolves when each has settled (uploaded, failed or cancelled). */
  add(files: readonly File[]): { items: UploadItem[]; settled: Promise<void> } {
    const entries = files.map((file) => {
      const item = this.#newItem(file, 'queued');
      item.total = uploadBodySize([{ name: file.name, size: file.size }]);
      return { item, file, body: undefined, controller: undefined, offline: false, waiters: [] } satisfies Entry as Entry;
    });
    this.#entries.push(...entries);
    const settled = Promise.all(entries.map((e) => this.#settled(e))).then(() => undefined);
    for (const e of entries) this.#run.add(e.item.key);
    this.#hooks.onChange();
    this.#pump();
    return { items: entries.map((e) => snapshot(e.item)), settled };
  }

  /** Queues a failed or cancelled file (or all of them) again; resolves when they settle. */
  retry(key?: string): Promise<void> {
    const entries = this.#entries.filter(
      (e) => (key === undefined || e.item.key === key) && e.file && (e.item.status === 'failed' || e.item.status === 'cancelled'),
    );
    for (const e of entries) {
      e.item.status = this.#online ? 'queued' : 'offline';
      e.item.error = undefined;
      e.item.loaded = 0;
      this.#run.add(e.item.key);
    }
    const settled = Promise.all(entries.map((e) => this.#settled(e))).then(() => undefined);
    this.#hooks.onChange();
    this.#pump();
    return settled;
  }

  /** Cancels one file (or every file on its way): aborts its request or its wait. */
  cancel(key?: string): void {
    for (const e of this.#entries) {
      if ((key !== undefined && e.item.key !== key) || !ACTIVE.has(e.item.status)) continue;
      // a cancel wins over going offline in the same turn
      e.offline = false;
      if (e.controller) e.controller.abort();
      else this.#settle(e, 'cancelled', new EsignError('aborted', `The upload of ${e.item.FileName} was cancelled.`));
    }
    this.#checkIdle();
  }

  /** Forgets a file (cancelling it first). The service keeps an uploaded file; only this list forgets it. */
  remove(key: string): void {
    this.cancel(key);
    this.#entries = this.#entries.filter((e) => e.item.key !== key);
    this.#run.delete(key);
    this.#hooks.onChange();
  }

  /** Cancels everything and empties the list. */
  clear(): void {
    const entries = this.#entries;
    this.#entries = [];
    this.#run.clear();
    for (const e of entries) {
      e.controller?.abort();
      e.waiters.splice(0).forEach((w) => w());
    }
    this.#hooks.onChange();
  }

  #newItem(file: File, status: UploadStatus): FileRecord {
    return { key: nextKey(), FileName: file.name, size: file.size, type: file.type, status, loaded: 0, total: 0, restored: false };
  }

  #settled(entry: Entry): Promise<void> {
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  /** Parks a file until the browser is online again. */
  #wait(entry: Entry): void {
    entry.item.status = 'offline';
    entry.item.loaded = 0;
  }

  #pump(): void {
    if (!this.#online) {
      for (const e of this.#entries) if (e.item.status === 'queued') this.#wait(e);
      this.#hooks.onChange();
      return;
    }
    while (this.#running < this.#concurrency) {
      const next = this.#entries.find((e) => e.item.status === 'queued');
      if (!next) break;
      this.#running += 1;
      next.item.status = 'encoding';
      void this.#upload(next).finally(() => {
        this.#running -= 1;
        this.#pump();
        this.#checkIdle();
      });
    }
  }

  async #upload(entry: Entry): Promise<void> {
    const { item } = entry;
    const controller = new AbortController();
    entry.controller = controller;
    entry.offline = false;
    const { signal } = controller;
    const send = this.#send ?? sendWithProgress;
    this.#hooks.onChange();
    try {
      const session = this.#hooks.session();
      // encoded once: a retry re-sends the same Blob
      entry.body ??= await buildUploadBody([{ name: item.FileName, blob: entry.file! }], { signal, chunkBytes: this.#chunkBytes });
      item.total = entry.body.size;
      item.status = 'uploading';
      this.#hooks.onChange();
      const result = await uploadBody({
        baseUrl: session.baseUrl,
        tokens: session.tokens,
        operatorUserId: session.operatorUserId,
        stallTimeoutMs: session.timeoutMs,
        body: entry.body,
        signal,
        send: (options) =>
          send(options).catch((error: unknown) => {
            // a request that fails while the browser says it is offline waits for the connection instead of failing
            if (EsignError.from(error, 'network_error').code === 'network_error' && !browserOnline()) this.setOnline(false);
            throw error;
          }),
        onProgress: (loaded, total) => {
          if (signal.aborted) return;
          item.status = 'uploading';
          item.total = total;
          // a lower count within one attempt is never reported (progress is monotonic per attempt)
          item.loaded = Math.max(item.loaded, Math.min(loaded, total));
          this.#hooks.onProgress(snapshot(item), this.overall());
        },
        onRetry: () => {
          item.status = 'retrying';
          item.loaded = 0;
          this.#hooks.onChange();
        },
      });
      const uploaded = result.files[0];
      if (!uploaded) throw new EsignError('bad_response', 'files/upload answered without a file.', { requestId: result.requestId });
      if (item.loaded < item.total) {
        item.loaded = item.total;
        this.#hooks.onProgress(snapshot(item), this.overall());
      }
      item.FileId = uploaded.FileId;
      item.FileName = uploaded.FileName;
      entry.body = undefined;
      entry.file = undefined;
      this.#settle(entry, 'done');
    } catch (caught) {
      if (entry.offline && this.#entries.includes(entry)) {
        // not settled: the file waits with its body and resumes on setOnline(true)
        this.#wait(entry);
        this.#hooks.onChange();
        return;
      }
      const error = EsignError.from(caught, 'upload_failed');
      const cancelled = error.code === 'aborted';
      this.#settle(
        entry,
        cancelled ? 'cancelled' : 'failed',
        cancelled ? new EsignError('aborted', `The upload of ${item.FileName} was cancelled.`, { cause: caught }) : error,
      );
    } finally {
      entry.controller = undefined;
      entry.offline = false;
    }
  }

  #settle(entry: Entry, status: UploadStatus, error?: EsignError): void {
    // an entry removed or cleared meanwhile is no longer ours to report
    if (!this.#entries.includes(entry)) return;
    entry.item.status = status;
    entry.item.error = error;
    if (status !== 'done') entry.item.loaded = 0;
    this.#hooks.onChange();
    if (error) this.#hooks.onError(snapshot(entry.item), error);
    entry.waiters.splice(0).forEach((w) => w());
  }

  #checkIdle(): void {
    if (this.busy || this.#run.size === 0) return;
    const completedInRun = this.#entries.some((e) => this.#run.has(e.item.key) && e.item.status === 'done');
    this.#run.clear();
    if (completedInRun) this.#hooks.onComplete();
  }
}

function snapshot(item: FileRecord): UploadItem {
  return Object.freeze({ ...item });
}

function browserOnline(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine !== false;
}

function nextKey(): string {
  counter += 1;
  return `f${counter}-${Math.random().toString(36).slice(2, 8)}`;
}
