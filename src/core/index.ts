/** The plain modules, for server code and custom UIs: no element, no tag registration. */
export * from './errors.js';
export type * from './service-types.js';
export { API_PREFIX } from './service-types.js';
export * from './service/client.js';
export { backoffDelay, parseRetryAfter } from './service/retry.js';
export { isAllowedServiceUrl, isLoopbackHost, joinApiPath } from './url.js';
export { base64url } from './base64url.js';
export { createCodeChallenge, createCodeVerifier, VERIFIER_BYTES } from './sign-in/pkce.js';
export { createState } from './random.js';
export { defaultRevocationEndpoint, validateConfig } from './session/config.js';
export { SessionManager, sessionKeyOf, type ConnectMode, type SessionChange, type SessionConfig, type SessionInfo } from './session/session-manager.js';
export { callbackMessage, type CallbackMessage } from './sign-in/callback-message.js';
export { PROXY_HEADER, PROXY_HEADER_VALUE } from './session/tokens.js';
export type { StorageKind } from './kv.js';
