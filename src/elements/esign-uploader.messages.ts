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
  busyValidity: string;
  requiredValidity: string;
  file_too_large: string;
  file_type_not_accepted: string;
  too_many_files_one: string;
  too_many_files_other: string;
  empty: string;
  rate_limited: string;
  upload_failed: string;
  network_error: string;
  server_error: string;
  http_error: string;
  sent: string;
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
    liveProgress: 'Uploading, {percent}% done',
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
    busyValidity: 'Wait until the uploads finish.',
    requiredValidity: 'Upload at least one file.',
    file_too_large: 'larger than {size}',
    file_type_not_accepted: 'this type of file is not accepted',
    too_many_files_one: 'only {count} file fits here',
    too_many_files_other: 'at most {count} files fit here',
    empty: 'the file is empty',
    rate_limited: 'too many uploads right now, try again in a minute',
    upload_failed: 'the service did not accept the upload',
    network_error: 'the connection to the service was lost',
    server_error: 'the service had a problem (HTTP {status}); try again',
    http_error: 'the service refused the upload (HTTP {status})',
    sent: 'Sent for signing',
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
    connectFirst: '请先连接您的电子签名账户',
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
    liveDone_other: '已上传 {count} 个文件',
    liveSent_other: '已发送 {count} 个文件供签署',
    liveFileError: '{name}：{reason}',
    liveOffline_other: '您已离线：{count} 个上传正在等待网络连接',
    liveOnline_other: '已恢复网络连接：继续上传 {count} 个文件',
    offlineNote: '您已离线。网络恢复后将自动继续上传。',
    busyValidity: '请等待上传完成。',
    requiredValidity: '请至少上传一个文件。',
    file_too_large: '超过 {size}',
    file_type_not_accepted: '不接受此类文件',
    too_many_files_other: '此处最多 {count} 个文件',
    empty: '文件为空',
    rate_limited: '当前上传过于频繁，请一分钟后再试',
    upload_failed: '服务未接受此上传',
    network_error: '与服务的网络连接已中断',
    server_error: '服务出现问题（HTTP {status}），请重试',
    http_error: '服务拒绝了此上传（HTTP {status}）',
    sent: '已发送签署',
    no_session: '请先连接您的电子签名账户',
    aborted: '已取消',
  },
  ms: {
    groupLabel: 'Muat naik fail untuk e-tandatangan',
    chooseMany: 'Lepaskan fail di sini atau pilih fail',
    chooseOne: 'Lepaskan fail di sini atau pilih satu fail',
    dropHere: 'Lepaskan untuk memuat naik',
    hintDefault: 'PDF, Word, Excel, PowerPoint atau imej, sehingga {size} setiap satu',
    hintCustom: 'Diterima: {types}; sehingga {size} setiap satu',
    connectFirst: 'Sambungkan akaun e-tandatangan anda dahulu',
    disabled: 'Muat naik dimatikan',
    misconfigured: 'Pemuat naik ini tidak ditetapkan dengan betul: {message}',
    filesLabel: 'Fail',
    queued: 'Menunggu',
    encoding: 'Menyediakan…',
    uploading: 'Memuat naik… {percent}%',
    retrying: 'Mencuba lagi sebentar lagi…',
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
    retry: 'Cuba lagi',
    retryFile: 'Cuba lagi {name}',
    retryAll: 'Cuba lagi yang gagal',
    remove: 'Buang',
    removeFile: 'Buang {name}',
    liveProgress: 'Memuat naik, {percent}% selesai',
    liveDone_other: '{count} fail dimuat naik',
    liveSent_other: '{count} fail dihantar untuk ditandatangani',
    liveFileError: '{name}: {reason}',
    liveOffline_other: 'Anda di luar talian: {count} muat naik menunggu sambungan',
    liveOnline_other: 'Kembali dalam talian: menyambung semula {count} muat naik',
    offlineNote: 'Anda di luar talian. Muat naik akan bersambung semula sendiri apabila sambungan pulih.',
    busyValidity: 'Tunggu sehingga muat naik selesai.',
    requiredValidity: 'Muat naik sekurang-kurangnya satu fail.',
    file_too_large: 'melebihi {size}',
    file_type_not_accepted: 'jenis fail ini tidak diterima',
    too_many_files_other: 'paling banyak {count} fail di sini',
    empty: 'fail ini kosong',
    rate_limited: 'terlalu banyak muat naik sekarang, cuba lagi dalam seminit',
    upload_failed: 'perkhidmatan tidak menerima muat naik ini',
    network_error: 'sambungan ke perkhidmatan terputus',
    server_error: 'perkhidmatan menghadapi masalah (HTTP {status}); cuba lagi',
    http_error: 'perkhidmatan menolak muat naik ini (HTTP {status})',
    sent: 'Dihantar untuk ditandatangani',
    no_session: 'sambungkan akaun e-tandatangan anda dahulu',
    aborted: 'dibatalkan',
  },
};
