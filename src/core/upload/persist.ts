/**
 * Completed uploads kept across reloads (FileIds and names, never file content or tokens), so a user who reloads
 * does not upload twice: one record per uploader (service, Space and persist key) in the library's key-value store
 * (core/kv.ts). Written only when the list changed.
 */
import { openStore, type KeyValueStore } from '../kv.js';
import type { UploadedFile } from '../service-types.js';

/** Every kept-uploads key starts with this. */
export const UPLOADS_PREFIX = 'esign:uploads|';

/**
 * The key of an uploader's record: FileIds belong to one Space of one service, so both are part of it, with the
 * uploader's `persist-key` (or id) to tell uploaders apart.
 */
export function uploadRecordKey(baseUrl: string, spaceId: string | undefined, persistKey: string): string {
  return `${UPLOADS_PREFIX}${baseUrl.replace(/\/+$/, '')}|${spaceId ?? ''}|${persistKey}`;
}

/** One uploader's kept FileIds. Storage that fails (private mode, quota) loses nothing but the keeping. */
export class KeptUploads {
  readonly #store: KeyValueStore;
  #key = '';
  /** What the store holds for the key, as FileIds: a save of the same list is skipped. */
  #saved = '';

  constructor(store: KeyValueStore = openStore('indexeddb', 'uploads')) {
    this.#store = store;
  }

  /** The record in use ('' before `open`). */
  get key(): string {
    return this.#key;
  }

  /** Switches to `key` and reads what it kept ([] when nothing, or when storage is unavailable). */
  async open(key: string): Promise<UploadedFile[]> {
    this.#key = key;
    this.#saved = '';
    let files: UploadedFile[] = [];
    try {
      const value = await this.#store.get<unknown>(key);
      files = Array.isArray(value) ? value.filter(isUploadedFile).map((f) => ({ FileId: f.FileId, FileName: f.FileName })) : [];
    } catch {
      // storage unavailable: nothing to restore
    }
    if (key === this.#key) this.#saved = signature(files);
    return files;
  }

  /** Keeps `files` under the current key, unless that is what it holds already. */
  async save(files: readonly UploadedFile[]): Promise<void> {
    if (!this.#key) return;
    const sig = signature(files);
    if (sig === this.#saved) return;
    this.#saved = sig;
    try {
      if (files.length > 0) await this.#store.set(this.#key, files.map((f) => ({ FileId: f.FileId, FileName: f.FileName })));
      else await this.#store.delete(this.#key);
    } catch {
      // storage full or unavailable: uploads still work, they just will not survive a reload
    }
  }

  /** Forgets what the current key kept. */
  async clear(): Promise<void> {
    this.#saved = '';
    if (!this.#key) return;
    try {
      await this.#store.delete(this.#key);
    } catch {
      // unavailable: nothing was kept
    }
  }
}

function signature(files: readonly UploadedFile[]): string {
  return files.map((f) => f.FileId).join('\n');
}

function isUploadedFile(value: unknown): value is UploadedFile {
  const v = value as Partial<UploadedFile> | null;
  return typeof v === 'object' && v !== null && typeof v.FileId === 'string' && typeof v.FileName === 'string';
}
