/**
 * What <esign-uploader> tells a screen reader, as data the element puts in words: progress in the polite live region
 * (at most every few seconds, or screen readers fall behind), files done, sent, waiting for the connection and
 * resuming; a file's error in the assertive one.
 */
import type { ReactiveControllerHost } from 'lit';
import type { EsignError } from '@esign-elements/shared/errors';
import type { UploadItem } from '../../core/upload/queue.js';

/** Something to tell the user in a live region; the element puts it in words. */
export type Announcement =
  | { say: 'progress'; done: number; count: number; percent: number }
  | { say: 'done' | 'sent' | 'offline' | 'online'; count: number }
  | { say: 'file-error'; name: string; error: EsignError };

/** Live-region progress is announced at most this often; screen readers fall behind otherwise. */
const LIVE_PROGRESS_INTERVAL_MS = 4000;

export class Announcer {
  readonly #host: ReactiveControllerHost;
  #live: Announcement | undefined;
  #alert: Announcement | undefined;
  #lastProgress = 0;
  /** Files waiting for the connection, as last said. */
  #waiting = 0;

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
  }

  /** The polite live region's news. */
  get live(): Announcement | undefined {
    return this.#live;
  }

  /** The assertive live region's news (a file's error). */
  get alert(): Announcement | undefined {
    return this.#alert;
  }

  /** News for the polite live region (it replaces the last error's). */
  say(news: Announcement): void {
    this.#live = news;
    this.#alert = undefined;
    this.#host.requestUpdate();
  }

  /** A file was refused or failed. */
  fileError(item: UploadItem, error: EsignError): void {
    this.#alert = { say: 'file-error', name: item.FileName, error };
    this.#host.requestUpdate();
  }

  /** Says how far the uploads are ("Uploading: 1 of 3 files done, 40%"); `throttled`: only if not said lately. */
  progress(items: readonly UploadItem[], overall: { loaded: number; total: number }, active: (item: UploadItem) => boolean, throttled = false): void {
    if (throttled && Date.now() - this.#lastProgress < LIVE_PROGRESS_INTERVAL_MS) return;
    const counted = items.filter((i) => active(i) || (i.status === 'done' && !i.restored));
    const done = counted.filter((i) => i.status === 'done').length;
    const percent = overall.total > 0 ? Math.floor((overall.loaded / overall.total) * 100) : 0;
    this.#lastProgress = Date.now();
    this.say({ say: 'progress', done, count: counted.length, percent });
  }

  /** Says when files start waiting for the connection and when they resume (`resumed`: online, uploads on their way). */
  connectivity(items: readonly UploadItem[], resumed: boolean): void {
    const waiting = items.filter((i) => i.status === 'offline').length;
    const before = this.#waiting;
    this.#waiting = waiting;
    // files in flight are parked a moment after the queued ones: the count only grows while offline
    if (waiting > before) this.say({ say: 'offline', count: waiting });
    else if (waiting === 0 && before > 0 && resumed) this.say({ say: 'online', count: before });
  }

  /** Forgets what was said (the list was emptied). */
  clear(): void {
    this.#live = this.#alert = undefined;
  }
}
