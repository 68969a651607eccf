/**
 * <esign-uploader>'s state and what changes it: the files with their status, progress and reasons, the limits its
 * settings give, what the last `esign-upload-complete` said, and what it has to announce. The element renders what
 * this controller holds; a custom Lit element can host it too (see `UploadHost`).
 *
 * The upload pipeline (pipeline.ts) is its one later part: loaded by the first file, a sign that files may come
 * (`preload()`), or kept FileIds to restore.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import type { UploadedFile } from '@esign-elements/shared/service-types';
import type { KeptUploads } from '../../core/upload/keep.js';
import type { UploadItem, UploadQueue } from '../../core/upload/queue.js';
import { parseLimits, type UploaderLimits } from '../../core/upload/validate.js';
import { emit, type EsignUploadCompleteDetail, type UploadFileRef } from '../shared/events.js';
import { errorDetail } from '../shared/error-detail.js';
import { LazyPart } from '../shared/lazy.js';
import { OnlineController } from '../shared/online.js';
import { SessionController } from '../shared/session-controller.js';
import type { SessionProvider } from '../shared/session-context.js';
import { Announcer, type Announcement } from './announcer.js';
import { KeptRecord } from './kept.js';

export type { Announcement } from './announcer.js';

/** Where an uploader is: no files, files on their way (or waiting for the connection), a file failed or was refused, every file uploaded. */
export type UploaderStatus = 'idle' | 'uploading' | 'error' | 'done';

/** What the controller reads on its element: the settings of the uploads, all optional but `connect`'s default. */
export interface UploadHost extends ReactiveControllerHost, HTMLElement {
  /** The id of the `<esign-connect>` to use; none: the nearest one around the host. */
  connect?: string | null | undefined;
  /** Accepted types (`.ext`, `type/*`, `type/subtype`, comma-separated; '' any). Default: PDF, office documents and images. */
  accept?: string | undefined;
  /** Largest file in bytes. Default: the service limit. */
  maxSize?: number | undefined;
  /** Most files held at once. Default: no limit; 1 without `multiple`. */
  maxFiles?: number | undefined;
  /** Takes several files. */
  multiple?: boolean | undefined;
  /** Ms an upload may go with neither progress nor an answer (0: no end). Default 60 000. */
  requestTimeout?: number | undefined;
  /** The key completed uploads are kept under across reloads. Default: the host's id, else one per origin. */
  persistKey?: string | undefined;
}

const ACTIVE = new Set(['queued', 'encoding', 'uploading', 'retrying', 'offline']);

/** Whether a file is on its way (or waiting to be). */
export const isActive = (item: UploadItem): boolean => ACTIVE.has(item.status);

type Pipeline = typeof import('./pipeline.js');

interface Running {
  queue: UploadQueue;
  kept: KeptUploads;
  validate: Pipeline['validateFiles'];
}

export class UploadController implements ReactiveController {
  readonly #host: UploadHost;
  readonly #pipeline: LazyPart<Pipeline, Running>;
  /** Hears when the form value and validity should follow the files. */
  readonly #changed: () => void;
  /** The session of the nearest `<esign-connect>`, or the one `connect` names. */
  readonly session: SessionController;
  readonly #network: OnlineController;
  /** Completed FileIds kept across reloads, under this uploader's record. */
  readonly #kept = new KeptRecord();
  /** FileIds an envelope was sent with: shown as sent, no longer offered, not kept for a reload. */
  readonly #sent = new Set<string>();
  /** What the live regions say. */
  readonly #news: Announcer;
  #status: UploaderStatus = 'idle';
  #limits: UploaderLimits | undefined;
  #limitsKey: string | undefined;
  #configError: EsignError | undefined;
  #reportedConfigError = '';
  #lastResult: EsignUploadCompleteDetail | undefined;

  constructor(host: UploadHost, options: { changed?: () => void } = {}) {
    (this.#host = host).addController(this);
    this.#changed = options.changed ?? (() => undefined);
    this.session = new SessionController(host);
    this.#news = new Announcer(host);
    this.#network = new OnlineController(host, (online) => this.#running?.queue.setOnline(online));
    this.#pipeline = new LazyPart(
      host,
      () => import('./pipeline.js'),
      (pipeline) => this.#start(pipeline),
    );
  }

  /** The queue and the kept FileIds' writer, once the pipeline runs. */
  get #running(): Running | undefined {
    return this.#pipeline.value;
  }

  // ---- the state the element renders ----

  /** `idle` (no files), `uploading` (on their way, or waiting for the connection), `error` (a file failed or was refused, or a setting is wrong), `done`. */
  get status(): UploaderStatus {
    return this.#status;
  }

  /** The files, in order (snapshots: the queue alone changes where a file is). */
  get items(): readonly UploadItem[] {
    return this.#running?.queue.items ?? [];
  }

  /** Whether this completed file was sent in an envelope since. */
  isSent(item: UploadItem): boolean {
    return item.status === 'done' && item.FileId !== undefined && this.#sent.has(item.FileId);
  }

  /** Bytes sent and to send, over the files on their way. */
  overall(): { loaded: number; total: number } {
    return this.#running?.queue.overall() ?? { loaded: 0, total: 0 };
  }

  /** Uploads on their way (or waiting for the connection). */
  get busy(): boolean {
    return this.#running?.queue.busy ?? false;
  }

  /** False while the browser is offline (uploads wait). */
  get online(): boolean {
    return this.#network.online;
  }

  /** The files uploaded so far and not yet sent in an envelope. */
  get uploaded(): UploadedFile[] {
    return this.#running?.queue.completed.filter((f) => !this.#sent.has(f.FileId)) ?? [];
  }

  /** What the last `esign-upload-complete` said; undefined before one and after `reset()`. */
  get lastResult(): EsignUploadCompleteDetail | undefined {
    return this.#lastResult;
  }

  /** The limits the settings give; undefined while a setting is wrong. */
  get limits(): UploaderLimits | undefined {
    return this.#limits;
  }

  /** Why the settings are wrong (`invalid_config`), if they are. */
  get configError(): EsignError | undefined {
    return this.#configError;
  }

  /** The polite live region's news, and the assertive one's (a file's error). */
  get live(): Announcement | undefined {
    return this.#news.live;
  }

  get alert(): Announcement | undefined {
    return this.#news.alert;
  }

  /** The session provider in use, when it has a session. */
  get connected(): SessionProvider | undefined {
    const provider = this.session.provider;
    return provider?.session ? provider : undefined;
  }

  // ---- what changes it ----

  /** Reads the settings now (they may have changed since the last update); returns why they are wrong, if they are. */
  checkSettings(): EsignError | undefined {
    this.#checkConfig();
    return this.#configError;
  }

  /** Files may come (a pointer, the focus or a drag on the drop zone): the pipeline starts loading. */
  preload(): void {
    if (!this.#running) void this.#pipeline.load().catch(() => undefined);
  }

  /**
   * Checks and uploads files, one request each; resolves with those of this call that were uploaded. Refused files
   * are shown and reported (`esign-error` with the file) even without a session; rejects with `invalid_config`, or
   * `no_session` when some file passed the checks and there is no session (reported as `esign-error` too).
   */
  async upload(files: readonly File[]): Promise<UploadedFile[]> {
    this.#checkConfig();
    if (this.#configError) throw this.#fail(this.#configError);
    if (files.length === 0) return [];
    const { queue, validate } = await this.#pipeline.load();
    const { accepted, rejected } = validate(files, this.#limits!, queue.held);
    for (const { file, error } of rejected) this.#fileError(queue.reject(file, error), error);
    if (accepted.length === 0) return [];
    if (!this.connected) throw this.#fail(noSession());
    const { items, settled } = queue.add(accepted);
    emit(this.#host, 'esign-upload-start', { files: items.map(ref) });
    this.#news.progress(this.items, this.overall(), isActive);
    await settled;
    const keys = new Set(items.map((i) => i.key));
    return queue.items.filter((i) => keys.has(i.key) && i.status === 'done' && i.FileId).map((i) => ({ FileId: i.FileId!, FileName: i.FileName }));
  }

  /** Cancels one file's upload by its `key`, or every upload on its way. */
  cancel(key?: string): void {
    this.#running?.queue.cancel(key);
  }

  /** Uploads a failed or cancelled file again (or all of them); resolves when they settle. */
  retry(key?: string): Promise<void> {
    return this.#running?.queue.retry(key) ?? Promise.resolve();
  }

  /** Takes one file off the list, cancelling it if it is on its way. The service keeps an uploaded file. */
  remove(key: string): void {
    this.#running?.queue.remove(key);
  }

  /** Cancels every upload, empties the list and forgets the kept FileIds. */
  reset(): void {
    this.#lastResult = undefined;
    this.#news.clear();
    this.#running?.queue.clear();
    void this.#running?.kept.clear();
    this.#refresh();
  }

  /** Shows these uploaded files as done (a form state the browser gave back). */
  restore(files: readonly UploadedFile[]): void {
    if (files.length > 0)
      void this.#pipeline.load().then(
        () => this.#restore([...files]),
        () => undefined,
      );
  }

  // ---- the host's lifecycle ----

  hostUpdate(): void {
    this.#checkConfig();
  }

  hostUpdated(): void {
    const key = this.#host.persistKey || this.#host.id || 'default';
    void this.#kept.restore(this.session.provider, key, () => this.#pipeline.load().then(() => ({ restore: (files) => this.#restore(files) })));
  }

  // ---- inside ----

  /** The pipeline loaded: the queue and the kept FileIds' writer, and the channel that hears sent envelopes. */
  #start({ UploadQueue, KeptUploads, TabChannel, validateFiles }: Pipeline): Running {
    const kept = new KeptUploads(this.#kept.store, () => this.#kept.key);
    const queue = new UploadQueue({
      session: () => {
        const provider = this.connected;
        if (!provider) throw noSession();
        return { baseUrl: provider.baseUrl, tokens: provider, operatorUserId: provider.operatorUserId, timeoutMs: this.#limits?.requestTimeout };
      },
      onChange: () => {
        this.#refresh();
        void kept.save(this.uploaded);
        this.#news.connectivity(this.items, (this.#running?.queue.online ?? false) && this.busy);
      },
      onProgress: (item, overall) => {
        this.#host.requestUpdate();
        emit(this.#host, 'esign-upload-progress', { file: ref(item), loaded: item.loaded, total: item.total, overall });
        this.#news.progress(this.items, overall, isActive, true);
      },
      onError: (item, error) => this.#fileError(item, error),
      onComplete: () => {
        this.#news.say({ say: 'done', count: this.uploaded.length });
        this.#complete();
      },
    });
    queue.setOnline(this.#network.online);
    // an envelope sent with some of these files, in this page or another tab of the same service and Space
    new TabChannel(
      this.#host,
      () => this.connected,
      (detail) => this.#envelopeSent(detail.fileIds),
    );
    return { queue, kept, validate: validateFiles };
  }

  /** The status follows the files and the settings; the element renders, the form follows. */
  #refresh(): void {
    const items = this.items;
    this.#status = this.busy
      ? 'uploading'
      : this.#configError || items.some((f) => f.status === 'failed' || f.status === 'rejected')
        ? 'error'
        : items.some((f) => f.status === 'done')
          ? 'done'
          : 'idle';
    this.#host.requestUpdate();
    this.#changed();
  }

  /** Reads the limits from the settings when they changed; a wrong one is reported once per distinct problem. */
  #checkConfig(): void {
    const host = this.#host;
    const settings = {
      accept: host.accept,
      maxSize: Number.isNaN(host.maxSize) ? host.getAttribute('max-size') : host.maxSize,
      maxFiles: Number.isNaN(host.maxFiles) ? host.getAttribute('max-files') : host.maxFiles,
      multiple: host.multiple ?? false,
      requestTimeout: Number.isNaN(host.requestTimeout) ? host.getAttribute('request-timeout') : host.requestTimeout,
    };
    const key = JSON.stringify(settings);
    if (key === this.#limitsKey) return;
    this.#limitsKey = key;
    const before = this.#configError;
    try {
      this.#limits = parseLimits(settings);
      this.#configError = undefined;
      this.#reportedConfigError = '';
    } catch (error) {
      this.#limits = undefined;
      const reported = (this.#configError = EsignError.from(error, 'invalid_config'));
      if (this.#reportedConfigError !== reported.message) {
        this.#reportedConfigError = reported.message;
        queueMicrotask(() => emit(this.#host, 'esign-error', errorDetail(reported)));
      }
    }
    if (before !== this.#configError) this.#refresh();
  }

  /** Shows kept FileIds as done; says so (`esign-upload-complete`) when that added any. */
  #restore(files: UploadedFile[]): void {
    const running = this.#running!;
    const before = this.uploaded.length;
    running.queue.restore(files);
    const all = this.uploaded;
    void running.kept.save(all);
    if (all.length > before) this.#complete();
  }

  /** Says every file uploaded so far (`esign-upload-complete`), and keeps what it said as `lastResult`. */
  #complete(): void {
    const files = this.uploaded;
    this.#lastResult = { files, fileIds: files.map((f) => f.FileId) };
    emit(this.#host, 'esign-upload-complete', { files: [...files], fileIds: [...this.#lastResult.fileIds] });
  }

  /** An envelope was sent with these FileIds: the ones of this list are marked sent. */
  #envelopeSent(ids: unknown[]): void {
    const mine = new Set(this.#running?.queue.completed.map((f) => f.FileId));
    const sent = ids.filter((id): id is string => typeof id === 'string' && mine.has(id) && !this.#sent.has(id));
    if (sent.length === 0) return;
    for (const id of sent) this.#sent.add(id);
    this.#news.say({ say: 'sent', count: sent.length });
    void this.#running?.kept.save(this.uploaded);
    this.#refresh();
  }

  /** A file was refused or failed: said in the assertive live region, and reported (`esign-error` with the file). */
  #fileError(item: UploadItem, error: EsignError): void {
    this.#news.fileError(item, error);
    emit(this.#host, 'esign-error', errorDetail(error, ref(item)));
  }

  #fail(error: EsignError): EsignError {
    emit(this.#host, 'esign-error', errorDetail(error));
    return error;
  }
}

function noSession(): EsignError {
  return new EsignError('no_session', 'Not connected: connect an e-signature account first.');
}

function ref(item: UploadItem): UploadFileRef {
  return { key: item.key, FileName: item.FileName, size: item.size, type: item.type };
}
