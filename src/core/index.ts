/** The plain modules, for server code and custom UIs: no element, no tag registration. */
export * from '@esign-elements/shared/errors';
export type * from '@esign-elements/shared/service-types';
export { API_PREFIX } from '@esign-elements/shared/service-types';
export * from './service/client.js';
export { backoffDelay, parseRetryAfter } from './service/retry.js';
export { isAllowedServiceUrl, isLoopbackHost, joinApiPath } from '@esign-elements/shared/url';
export { base64url } from '@esign-elements/shared/base64url';
export { createCodeChallenge, createCodeVerifier, VERIFIER_BYTES } from './sign-in/pkce.js';
export { createState } from './random.js';
export { defaultRevocationEndpoint, validateConfig } from './session/config.js';
export { SessionManager, sessionKeyOf, type ConnectMode, type SessionChange, type SessionConfig, type SessionInfo } from './session/session-manager.js';
export { callbackMessage, type CallbackMessage } from './sign-in/callback-message.js';
export { PROXY_HEADER, PROXY_HEADER_VALUE } from './session/tokens.js';
export type { StorageKind } from './kv.js';
