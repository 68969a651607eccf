/**
 * What <esign-uploader> loads once files may come (the first file, a pointer, the focus or a drag on the drop zone,
 * kept FileIds to restore): behaviour only. The upload queue (Base64 body builder, transport, retries, offline
 * waits), the checks of a file against the limits, the writing half of the kept FileIds, and the channel that hears
 * envelopes sent in other tabs. The element's styles, template and words are in its own module.
 */
export { UploadQueue } from '../../core/upload/queue.js';
export { KeptUploads } from '../../core/upload/keep.js';
export { validateFiles } from '../../core/upload/check-files.js';
export { TabChannel } from '../shared/tab-channel.js';
