/**
 * <esign-uploader>'s kept uploads, as the first render needs them: which record is this uploader's (service, Space,
 * persist key), and reading it after a reload to show its files as done. Writing is the list's (core/upload/keep.ts).
 */
import { keptUploadsStore, readKept, uploadRecordKey } from '../../core/upload/persist.js';
import type { UploadedFile } from '@esign-elements/shared/service-types';
import type { SessionProvider } from '../shared/session-context.js';

export class KeptRecord {
  readonly store = keptUploadsStore();
  /** The record in use ('' before there is a session). */
  key = '';

  /**
   * Reads the FileIds kept for the provider's session and `persistKey`, once per record, and shows them in the list
   * (`load` loads it) when there are any and the record is still the one in use.
   */
  async restore(provider: SessionProvider | undefined, persistKey: string, load: () => Promise<{ restore(files: UploadedFile[]): void }>): Promise<void> {
    if (!provider?.session || !provider.baseUrl) return;
    const key = uploadRecordKey(provider.baseUrl, provider.session.spaceId, persistKey);
    if (key === this.key) return;
    this.key = key;
    const files = await readKept(this.store, key);
    if (key !== this.key || files.length === 0) return;
    const list = await load().catch(() => undefined);
    if (key === this.key) list?.restore(files);
  }
}
