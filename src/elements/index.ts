/** The element classes; importing this module registers nothing. */
export { EsignConnect, type ConnectStatus } from './esign-connect.js';
export { EsignSigningFrame, type ViewDisplay, type ViewStatus } from './esign-signing-frame.js';
export { EsignContractList } from './esign-contract-list.js';
export { EsignUploader, type UploadItem, type UploadStatus } from './esign-uploader.js';
export { SessionController } from './session-controller.js';
export { sessionContext, type SessionProvider } from './session-context.js';
export * from './events.js';
export { registerLocale, type Language, type LocaleTables } from './localize.js';
