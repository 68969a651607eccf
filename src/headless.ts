/**
 * Bring your own UI: the controllers behind the elements, for a Lit element of your own (docs/guides/headless.md).
 * A controller owns its state and fires the elements' events on its host; the host renders what it reads.
 *
 * - `SessionHost`: <esign-connect>'s session (sign-in, restore, tokens, disconnect) on a host with its settings
 *   (`ConnectHost`: `clientId`, `baseUrl`, `tokenEndpoint`, the others optional).
 * - `SessionController`: finds the session of a host inside an <esign-connect> (or naming one with `connect`).
 * - `UploadController`: <esign-uploader>'s files, uploads and status on a host with the uploader's settings
 *   (`UploadHost`, all optional); it finds its session as `SessionController` does.
 */
export { SessionHost, type ConnectHost, type ConnectState, type ConnectStatus, type ConnectNotice } from './elements/connect/session-host.js';
export { SessionController, type SessionUserHost } from './elements/shared/session-controller.js';
export { sessionContext, type SessionProvider } from './elements/shared/session-context.js';
export { UploadController, type UploadHost, type UploaderStatus, type Announcement } from './elements/uploader/upload-controller.js';
export type { UploadItem, UploadStatus } from './core/upload/queue.js';
