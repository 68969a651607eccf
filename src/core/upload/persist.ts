/**
 * Completed uploads kept across reloads (FileIds and names, never file content or tokens), so a user
 * who reloads does not upload twice. IndexedDB through idb-keyval in its own database; memory where
 * IndexedDB is missing.
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { UploadedFile } from '../service-types.js';

export interface UploadRecordStore {
  load(key: string): Promise<UploadedFile[]>;
  save(key: string, files: readonly UploadedFile[]): Promise<void>;
  clear(key: string): Promise<void>;
}

/** Its own database: idb-keyval creates one object store per database, so the session's cannot be shared. */
export const UPLOAD_DB = 'esign-elements-uploads';
const UPLOAD_STORE = 'completed';

let idb: UseStore | undefined;
const memory = new Map<string, UploadedFile[]>();

/**
 * The key of an uploader's records: FileIds belong to one Space of one service, so both are part of it,
 * with the uploader's `persist-key` (or id) to tell uploaders apart.
 */
export function uploadRecordKey(baseUrl: string, spaceId: string | undefined, persistKey: string): string {
  return `${baseUrl.replace(/\/+$/, '')}|${spaceId ?? ''}|${persistKey}`;
}

export function openUploadRecords(): UploadRecordStore {
  if (typeof indexedDB === 'undefined') {
    return {
      load: async (key) => structuredClone(memory.get(key) ?? []),
      save: async (key, files) => void memory.set(key, structuredClone([...files])),
      clear: async (key) => void memory.delete(key),
    };
  }
  idb ??= createStore(UPLOAD_DB, UPLOAD_STORE);
  const store = idb;
  return {
    async load(key) {
      const value = await get<unknown>(key, store);
      return Array.isArray(value) ? value.filter(isUploadedFile).map((f) => ({ FileId: f.FileId, FileName: f.FileName })) : [];
    },
    save: (key, files) => set(key, files.map((f) => ({ FileId: f.FileId, FileName: f.FileName })), store),
    clear: (key) => del(key, store),
  };
}

function isUploadedFile(value: unknown): value is UploadedFile {
  const v = value as Partial<UploadedFile> | null;
  return typeof v === 'object' && v !== null && typeof v.FileId === 'string' && typeof v.FileName === 'string';
}
