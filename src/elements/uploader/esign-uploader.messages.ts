import type { Messages } from '../shared/messages.js';

/** What <esign-uploader> says to the user: the drop zone's words, and the file list's. */
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
  timeout: string;
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
    filesLabel: 'Files',
    queued: 'Waiting',
    encoding: 'Preparing…',
    uploading: 'Uploading… {percent}%',
    retrying: 'Trying again shortly…',
    offline: 'Waiting for the connection',
    done: 'Uploaded',
    restored: 'Uploaded earlier',
    cancelled: 'Cancelled',
    rejected: 'Not added: {reason}',
    failed: 'Failed: {reason}',
    requestId: 'Request ID {id}',
    progressOf: 'Upload of {name}',
    overallLabel: 'All uploads',
    overallText: '{done} of {count} uploaded',
    cancel: 'Cancel',
    cancelFile: 'Cancel {name}',
    cancelAll: 'Cancel all',
    retry: 'Retry',
    retryFile: 'Retry {name}',
    retryAll: 'Retry failed',
    remove: 'Remove',
    removeFile: 'Remove {name}',
    liveProgress: 'Uploading: {done} of {count} files done, {percent}%',
    liveDone_one: '{count} file uploaded',
    liveDone_other: '{count} files uploaded',
    liveSent_one: '{count} file sent for signing',
    liveSent_other: '{count} files sent for signing',
    liveFileError: '{name}: {reason}',
    liveOffline_one: 'You are offline: {count} upload waiting for the connection',
    liveOffline_other: 'You are offline: {count} uploads waiting for the connection',
    liveOnline_one: 'Back online: resuming {count} upload',
    liveOnline_other: 'Back online: resuming {count} uploads',
    offlineNote: 'You are offline. Uploads resume by themselves when the connection is back.',
    file_too_large: 'larger than {size}',
    file_type_not_accepted: 'this type of file is not accepted',
    too_many_files_one: 'only {count} file fits here',
    too_many_files_other: 'at most {count} files fit here',
    empty: 'the file is empty',
    rate_limited: 'too many uploads right now, try again in a minute',
    upload_failed: 'the service did not accept the upload',
    network_error: 'the connection to the service was lost',
    timeout: 'the e-signature service did not answer',
    csp_blocked: "this page's Content-Security-Policy (connect-src) blocks the e-signature service",
    server_error: 'the service had a problem (HTTP {status}); try again',
    http_error: 'the service refused the upload (HTTP {status})',
    sent: 'Sent for signing',
    no_session: 'connect your e-signature account first',
    aborted: 'cancelled',
  },
};
