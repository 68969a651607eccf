/** The element classes; importing this module registers nothing. */
export { EsignConnect, type ConnectStatus } from './esign-connect.js';
export { SessionController } from './session-controller.js';
export { sessionContext, type SessionProvider } from './session-context.js';
export * from './events.js';
