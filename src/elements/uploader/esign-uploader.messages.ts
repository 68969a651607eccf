import type { Messages } from '../shared/messages.js';

/** What <esign-uploader> says to the user. */
/** The drop zone's words (the first state). */
export interface UploaderTerms extends Record<string, string> {
  groupLabel: string;
  chooseMany: string;
  chooseOne: string;
  dropHere: string;
  hintDefault: string;
  hintCustom: string;
  connectFirst: string;
  disabled: string;
  misconfigured: string;
  busyValidity: string;
  requiredValidity: string;
  noFiles: string;
}

/** The words of the file list, loaded with it (esign-uploader-list.messages.ts). */
export interface UploadListTerms extends Record<string, string> {
  filesLabel: string;
  queued: string;
  encoding: string;
  uploading: string;
  retrying: string;
  offline: string;
  done: string;
  restored: string;
  cancelled: string;
  rejected: string;
  failed: string;
  requestId: string;
  progressOf: string;
  overallLabel: string;
  overallText: string;
  cancel: string;
  cancelFile: string;
  cancelAll: string;
  retry: string;
  retryFile: string;
  retryAll: string;
  remove: string;
  removeFile: string;
  liveProgress: string;
  liveDone_one: string;
  liveDone_other: string;
  liveSent_one: string;
  liveSent_other: string;
  liveFileError: string;
  liveOffline_one: string;
  liveOffline_other: string;
  liveOnline_one: string;
  liveOnline_other: string;
  offlineNote: string;
  file_too_large: string;
  file_type_not_accepted: string;
  too_many_files_one: string;
  too_many_files_other: string;
  empty: string;
  rate_limited: string;
  upload_failed: string;
  network_error: string;
  csp_blocked: string;
  server_error: string;
  http_error: string;
  sent: string;
  no_session: string;
  aborted: string;
}

export const uploaderMessages: Messages<UploaderTerms> = {
  id: 'uploader',
  en: {
    groupLabel: 'Upload files for e-signature',
    chooseMany: 'Drop files here or choose files',
    chooseOne: 'Drop a file here or choose a file',
    dropHere: 'Release to upload',
    hintDefault: 'PDF, Word, Excel, PowerPoint or images, up to {size} each',
    hintCustom: 'Accepted: {types}; up to {size} each',
    connectFirst: 'Connect your e-signature account first',
    disabled: 'Uploading is turned off',
    misconfigured: 'This uploader is not set up correctly: {message}',
    busyValidity: 'Wait until the uploads finish.',
    requiredValidity: 'Upload at least one file.',
    noFiles: 'No files yet',
  },
};
