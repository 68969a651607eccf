/**
 * esign-elements: registers every tag and exports the element classes, their events and the error type.
 *
 * The programmatic API (EsignClient, SessionManager, PKCE helpers) is in `esign-elements/core`: re-exported here it
 * would be part of this entry, and so of every page's first render, even where the elements only need it after a user acts.
 */
import './esign-connect.js';
import './esign-uploader.js';
import './esign-signing-frame.js';
import './esign-contract-list.js';

export * from './elements/index.js';
export { EsignError, type EsignErrorCode, type SerializedEsignError } from '@esign-elements/shared/errors';
export type * from '@esign-elements/shared/service-types';
export type { ClientOptions, ServiceResult, TokenSource } from './core/service/service-client.js';
export type { SessionInfo, SessionConfig, ConnectMode } from './core/session/session-manager.js';
