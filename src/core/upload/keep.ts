/**
 * Keeps an uploader's completed FileIds (and names, never content or tokens) under its record, as the list changes:
 * the writing half of persist.ts, loaded with the upload list (a page that shows only the drop zone reads, never writes).
 */
import type { KeyValueStore } from '../kv.js';
import type { UploadedFile } from '@esign-elements/shared/service-types';

/** One uploader's kept FileIds. Storage that fails (private mode, quota) loses nothing but the keeping. */
export class KeptUploads {
  readonly #store: KeyValueStore;
  readonly #key: () => string;
  /** The record last written, and what it holds as FileIds: a save of the same list is skipped. */
  #saved = '';

  /** `key` is the record in use ('' when none yet). */
  constructor(store: KeyValueStore, key: () => string) {
    this.#store = store;
    this.#key = key;
  }

  /** Keeps `files` under the current key, unless that is what it holds already. */
  async save(files: readonly UploadedFile[]): Promise<void> {
    const key = this.#key();
    if (!key) return;
    const sig = `${key}\n${files.map((f) => f.FileId).join('\n')}`;
    if (sig === this.#saved) return;
    this.#saved = sig;
    try {
      if (files.length > 0)
        await this.#store.set(
          key,
          files.map((f) => ({ FileId: f.FileId, FileName: f.FileName })),
        );
      else await this.#store.delete(key);
    } catch {
      // storage full or unavailable: uploads still work, they just will not survive a reload
    }
  }

  /** Forgets what the current key kept. */
  async clear(): Promise<void> {
    this.#saved = '';
    const key = this.#key();
    if (!key) return;
    try {
      await this.#store.delete(key);
    } catch {
      // unavailable: nothing was kept
    }
  }
}
