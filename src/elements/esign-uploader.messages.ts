import type { Translations } from './localize.js';

/** What <esign-uploader> says to the user. */
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
  liveDone: string;
  liveFileError: string;
  liveOffline: string;
  liveOnline: string;
  offlineNote: string;
  busyValidity: string;
  requiredValidity: string;
  file_too_large: string;
  file_type_not_accepted: string;
  too_many_files: string;
  empty: string;
  rate_limited: string;
  upload_failed: string;
  no_session: string;
  aborted: string;
}

export const uploaderMessages: Translations<UploaderTerms> = {
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
    filesLabel: 'Files',
    queued: 'Waiting',
    encoding: 'Preparing…',
    uploading: 'Uploading… {percent}%',
    retrying: 'Trying again shortly…',
    offline: 'Waiting for connection',
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
    liveProgress: 'Uploading, {percent}% done',
    liveDone: '{count} file(s) uploaded',
    liveFileError: '{name}: {reason}',
    liveOffline: 'You are offline: {count} upload(s) waiting for connection',
    liveOnline: 'Back online: resuming {count} upload(s)',
    offlineNote: 'You are offline. Uploads resume by themselves when the connection is back.',
    busyValidity: 'Wait until the uploads finish.',
    requiredValidity: 'Upload at least one file.',
    file_too_large: 'larger than {size}',
    file_type_not_accepted: 'this type of file is not accepted',
    too_many_files: 'at most {count} file(s) here',
    empty: 'the file is empty',
    rate_limited: 'too many uploads right now, try again in a minute',
    upload_failed: 'the upload did not go through',
    no_session: 'connect your e-signature account first',
    aborted: 'cancelled',
  },
  'zh-CN': {
    groupLabel: '上传待签署文件',
    chooseMany: '将文件拖到此处，或选择文件',
    chooseOne: '将文件拖到此处，或选择一个文件',
    dropHere: '松开即可上传',
    hintDefault: 'PDF、Word、Excel、PowerPoint 或图片，每个不超过 {size}',
    hintCustom: '可接受：{types}；每个不超过 {size}',
    connectFirst: '请先连接您的电子签账户',
    disabled: '上传已停用',
    misconfigured: '上传组件配置有误：{message}',
    filesLabel: '文件',
    queued: '等待中',
    encoding: '准备中…',
    uploading: '上传中… {percent}%',
    retrying: '稍后重试…',
    offline: '等待网络连接',
    done: '已上传',
    restored: '之前已上传',
    cancelled: '已取消',
    rejected: '未添加：{reason}',
    failed: '失败：{reason}',
    requestId: '请求 ID {id}',
    progressOf: '{name} 的上传进度',
    overallLabel: '全部上传',
    overallText: '已上传 {done}/{count}',
    cancel: '取消',
    cancelFile: '取消 {name}',
    cancelAll: '全部取消',
    retry: '重试',
    retryFile: '重试 {name}',
    retryAll: '重试失败项',
    remove: '移除',
    removeFile: '移除 {name}',
    liveProgress: '上传中，已完成 {percent}%',
    liveDone: '已上传 {count} 个文件',
    liveFileError: '{name}：{reason}',
    liveOffline: '您已离线：{count} 个上传正在等待网络连接',
    liveOnline: '已恢复联网：继续上传 {count} 个文件',
    offlineNote: '您已离线。网络恢复后将自动继续上传。',
    busyValidity: '请等待上传完成。',
    requiredValidity: '请至少上传一个文件。',
    file_too_large: '超过 {size}',
    file_type_not_accepted: '不接受此类文件',
    too_many_files: '此处最多 {count} 个文件',
    empty: '文件为空',
    rate_limited: '当前上传过于频繁，请一分钟后再试',
    upload_failed: '上传未成功',
    no_session: '请先连接您的电子签账户',
    aborted: '已取消',
  },
  ms: {
    groupLabel: 'Muat naik fail untuk tandatangan elektronik',
    chooseMany: 'Lepaskan fail di sini atau pilih fail',
    chooseOne: 'Lepaskan fail di sini atau pilih satu fail',
    dropHere: 'Lepaskan untuk memuat naik',
    hintDefault: 'PDF, Word, Excel, PowerPoint atau imej, sehingga {size} setiap satu',
    hintCustom: 'Diterima: {types}; sehingga {size} setiap satu',
    connectFirst: 'Sambungkan akaun tandatangan elektronik anda dahulu',
    disabled: 'Muat naik dimatikan',
    misconfigured: 'Pemuat naik ini tidak ditetapkan dengan betul: {message}',
    filesLabel: 'Fail',
    queued: 'Menunggu',
    encoding: 'Menyediakan…',
    uploading: 'Memuat naik… {percent}%',
    retrying: 'Mencuba semula sebentar lagi…',
    offline: 'Menunggu sambungan',
    done: 'Dimuat naik',
    restored: 'Dimuat naik sebelum ini',
    cancelled: 'Dibatalkan',
    rejected: 'Tidak ditambah: {reason}',
    failed: 'Gagal: {reason}',
    requestId: 'ID permintaan {id}',
    progressOf: 'Muat naik {name}',
    overallLabel: 'Semua muat naik',
    overallText: '{done} daripada {count} dimuat naik',
    cancel: 'Batal',
    cancelFile: 'Batalkan {name}',
    cancelAll: 'Batalkan semua',
    retry: 'Cuba semula',
    retryFile: 'Cuba semula {name}',
    retryAll: 'Cuba semula yang gagal',
    remove: 'Buang',
    removeFile: 'Buang {name}',
    liveProgress: 'Memuat naik, {percent}% selesai',
    liveDone: '{count} fail dimuat naik',
    liveFileError: '{name}: {reason}',
    liveOffline: 'Anda di luar talian: {count} muat naik menunggu sambungan',
    liveOnline: 'Kembali dalam talian: menyambung semula {count} muat naik',
    offlineNote: 'Anda di luar talian. Muat naik akan bersambung semula sendiri apabila sambungan pulih.',
    busyValidity: 'Tunggu sehingga muat naik selesai.',
    requiredValidity: 'Muat naik sekurang-kurangnya satu fail.',
    file_too_large: 'melebihi {size}',
    file_type_not_accepted: 'jenis fail ini tidak diterima',
    too_many_files: 'paling banyak {count} fail di sini',
    empty: 'fail ini kosong',
    rate_limited: 'terlalu banyak muat naik sekarang, cuba lagi dalam seminit',
    upload_failed: 'muat naik tidak berjaya',
    no_session: 'sambungkan akaun tandatangan elektronik anda dahulu',
    aborted: 'dibatalkan',
  },
};
