/** The element classes; importing this module registers nothing. */
export { EsignConnect, type ConnectStatus } from './connect/esign-connect.js';
export { EsignSigningFrame, type ViewDisplay, type ViewResult, type ViewStatus } from './embedded-view/esign-signing-frame.js';
export { EsignContractList } from './embedded-view/esign-contract-list.js';
export { EsignUploader, type UploadItem, type UploadStatus } from './uploader/esign-uploader.js';
export { SessionController } from './shared/session-controller.js';
export { sessionContext, type SessionProvider } from './shared/session-context.js';
export * from './shared/events.js';
export { registerLocale, type Language, type LocaleTables } from './shared/localize.js';
