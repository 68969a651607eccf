/**
 * `esign-elements/headless`: the behaviour of the elements without their look, for a Lit element of your own (bring
 * your own UI; docs/guides/headless.md). Registers no tag. A controller owns its state and fires the elements' events
 * on its host; the host renders what it reads.
 *
 * - `SessionHost`: <esign-connect>'s session (sign-in, restore, tokens, disconnect) on a host with its settings
 *   (`ConnectHost`: `clientId`, `baseUrl`, `tokenEndpoint`, the others optional).
 * - `SessionController`: finds the session of a host inside an <esign-connect> (or naming one with `connect`).
 * - `UploadController`: <esign-uploader>'s files, uploads and status on a host with the uploader's settings
 *   (`UploadHost`, all optional); it finds its session as `SessionController` does.
 * - The view machine of <esign-signing-frame> and <esign-contract-list>: `transition(state, event)` returns the next
 *   state and its effects, as data (no DOM, no timers), and `activities(state)` what runs while a state lasts:
 *   `initialViewState`, `transition`, `activities`, `MAX_AUTO_RENEWALS`.
 * - The view controller that performs them: `new EmbeddedViewController(host, {operateType, fileIds})` in your
 *   element's constructor; your template renders `connect(view.state, facts, actions)` (the elements' own
 *   `connect()`: status, error, which card, the frame's key and props) and the frame.
 */
export { SessionHost, type ConnectState, type ConnectStatus, type ConnectNotice } from './elements/connect/session-host.js';
export type { ConnectHost } from './elements/connect/connect-settings.js';
export { SessionController, type SessionUserHost } from './elements/shared/session-controller.js';
export { sessionContext, type SessionProvider } from './elements/shared/session-context.js';
export { UploadController, type UploadHost, type UploaderStatus, type Announcement } from './elements/uploader/upload-controller.js';
export type { UploadItem, UploadStatus } from './core/upload/queue.js';
export { transition, activities, MAX_AUTO_RENEWALS } from './elements/embedded-view/machine.js';
export type { ViewEvent, ViewEffect, ViewActivity, Transition } from './elements/embedded-view/machine-types.js';
export { initialViewState, type ViewState } from './elements/embedded-view/view-state.js';
export { connect, NO_FRAME, type ViewApi, type ViewActions, type ViewFacts, type ViewCard, type FrameFacts } from './elements/embedded-view/connect.js';
export { EmbeddedViewController, isShown, type EmbeddedViewHost, type EmbeddedViewOptions } from './elements/embedded-view/controller.js';
export { FRAME_ALLOW, FRAME_SANDBOX_BLANK, type OperateType, type ViewDisplay, type ViewResult, type ViewStatus } from './elements/embedded-view/rules.js';
