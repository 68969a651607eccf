/** esign-elements: registers every tag and exports the classes and the core. */
import './esign-connect.js';
import './esign-uploader.js';
import './esign-signing-frame.js';
import './esign-contract-list.js';

export * from './elements/index.js';
export { EsignError, type EsignErrorCode, type SerializedEsignError } from './core/errors.js';
export type * from './core/service-types.js';
export { createClient, EsignClient, type ClientOptions, type ServiceResult, type TokenSource } from './core/client.js';
export { SessionManager, type SessionInfo, type SessionConfig, type ConnectMode } from './core/session/session-manager.js';
export { createCodeVerifier, createCodeChallenge, createState } from './core/pkce.js';
