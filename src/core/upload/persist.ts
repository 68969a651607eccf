/**
 * Completed uploads kept across reloads (FileIds and names, never file content or tokens), so a user who reloads
 * does not upload twice: one record per uploader (service, Space and persist key) in the library's key-value store
 * (core/kv.ts). Written only when the list changed.
 */
import { openStore, type KeyValueStore } from '../kv.js';
import type { UploadedFile } from '@esign-elements/shared/service-types';

/** Every kept-uploads key starts with this. */
export const UPLOADS_PREFIX = 'esign:uploads|';

/**
 * The key of an uploader's record: FileIds belong to one Space of one service, so both are part of it, with the
 * uploader's `persist-key` (or id) to tell uploaders apart.
 */
export function uploadRecordKey(baseUrl: string, spaceId: string | undefined, persistKey: string): string {
  return `${UPLOADS_PREFIX}${baseUrl.replace(/\/+$/, '')}|${spaceId ?? ''}|${persistKey}`;
}

/** The store of kept uploads (one record per uploader; see uploadRecordKey). */
export const keptUploadsStore = (): KeyValueStore => openStore('indexeddb', 'uploads');

/** What `key` kept, as files ([] when nothing, or when storage is unavailable). Saving is keep.ts's, with the list. */
export async function readKept(store: KeyValueStore, key: string): Promise<UploadedFile[]> {
  try {
    const value = await store.get<unknown>(key);
    return Array.isArray(value) ? value.filter(isUploadedFile).map((f) => ({ FileId: f.FileId, FileName: f.FileName })) : [];
  } catch {
    return []; // storage unavailable: nothing to restore
  }
}

function isUploadedFile(value: unknown): value is UploadedFile {
  const v = value as Partial<UploadedFile> | null;
  return typeof v === 'object' && v !== null && typeof v.FileId === 'string' && typeof v.FileName === 'string';
}
