/** The DOM events of esign-elements: prefixed, bubbling, composed, with a typed `detail`. */
import type { EsignError } from '@esign-elements/shared/errors';
import type { SessionInfo } from '../../core/session/session-manager.js';
import type { Hop } from '../../core/service/unreachable.js';

export interface EsignConnectedDetail {
  session: SessionInfo;
  /** True when the session was restored from storage (or from another tab) rather than just authorized. */
  restored: boolean;
}

export interface EsignDisconnectedDetail {
  /** Why: the user disconnected, the session expired or was revoked, or another tab disconnected. */
  reason: 'user' | 'expired' | 'revoked' | 'other-tab';
}

export interface EsignSessionRefreshedDetail {
  session: SessionInfo;
  /** True when another tab refreshed and this one adopted its session. */
  byOtherTab: boolean;
}

export interface EsignErrorDetail {
  error: EsignError;
  /**
   * What could not be reached, when that is the failure: `offline` (the browser says it is offline), `token-proxy`
   * (your token proxy refused the connection, timed out or answered 5xx), `service` (the e-signature service did),
   * `page` (the embedded page did not say it was ready within `load-timeout`). Undefined for any other failure (a
   * setting, a refusal, an expired session): then the field is absent. Every element sets it (error-detail.ts), so your
   * logs can tell a server down from a bug.
   */
  hop?: Hop;
  /** For per-file upload errors: which file. */
  file?: UploadFileRef;
}

export type { Hop } from '../../core/service/unreachable.js';

/** A file the uploader knows, in the service's names where the service has them. */
export interface UploadFileRef {
  /** Stable id of this file in this uploader (not the service's FileId). */
  key: string;
  FileName: string;
  size: number;
  type: string;
}

export interface EsignUploadStartDetail {
  files: UploadFileRef[];
}

export interface EsignUploadProgressDetail {
  /** The file whose bytes moved. */
  file: UploadFileRef;
  /** Bytes of this file's request body sent so far, and its total (the Base64 body, not the raw file). */
  loaded: number;
  total: number;
  /** Across every file of this upload. */
  overall: { loaded: number; total: number };
}

export interface EsignUploadCompleteDetail {
  /** Every file uploaded so far, in the service's names. */
  files: Array<{ FileId: string; FileName: string }>;
  /** The FileIds alone, in the same order. */
  fileIds: string[];
}

export interface EsignViewReadyDetail {
  /** The origin of the embedded Url; the Url itself (it carries a token) is never in an event. */
  origin: string;
  /** RFC3339, as the service sent it. */
  expiresAt: string;
  operateType: 'request_signatures' | 'signature_status';
}

export interface EsignViewLoadedDetail {
  origin: string;
}

export interface EsignViewExpiredDetail {
  /** RFC3339 expiry of the Url that is no longer usable. */
  expiresAt: string;
  /** True when the element is asking for a new Url by itself. */
  renewing: boolean;
}

export interface EsignViewMessageDetail {
  /** The message the embedded page posted, unchanged. */
  data: unknown;
  origin: string;
}

export interface EsignEnvelopeSentDetail {
  /** The service's id of the new envelope. */
  envelopeId: string;
  /** The FileIds the envelope was started with. */
  fileIds: string[];
  /** The envelope's status as the page reported it (e.g. `sent`). */
  status: string;
  /**
   * True when the envelope was sent in another tab of this origin (same service and Space): the event is then fired at
   * this tab's document, not by a signing frame.
   */
  byOtherTab?: boolean;
}

export interface EsignActivityDetail {
  /** What was seen: focus entering the page's frame, or a message from the page that a person caused (`activity`, `envelope-sent`, …; not `ready`, `resize` or `error`). */
  source: 'focus' | 'message';
  /** When (Date.now(), milliseconds since the epoch). */
  at: number;
}

/** Every event name and its detail type. */
export interface EsignEventDetailMap {
  'esign-connected': EsignConnectedDetail;
  'esign-disconnected': EsignDisconnectedDetail;
  'esign-session-refreshed': EsignSessionRefreshedDetail;
  'esign-error': EsignErrorDetail;
  'esign-upload-start': EsignUploadStartDetail;
  'esign-upload-progress': EsignUploadProgressDetail;
  'esign-upload-complete': EsignUploadCompleteDetail;
  'esign-view-ready': EsignViewReadyDetail;
  'esign-view-loaded': EsignViewLoadedDetail;
  'esign-view-expired': EsignViewExpiredDetail;
  'esign-view-message': EsignViewMessageDetail;
  'esign-envelope-sent': EsignEnvelopeSentDetail;
  'esign-activity': EsignActivityDetail;
}

export type EsignEventName = keyof EsignEventDetailMap;

export type EsignEventMap = { [K in EsignEventName]: CustomEvent<EsignEventDetailMap[K]> };

/** Dispatches a bubbling, composed CustomEvent from `target`. */
export function emit<K extends EsignEventName>(target: EventTarget, name: K, detail: EsignEventDetailMap[K]): boolean {
  return target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: false }));
}

declare global {
  interface HTMLElementEventMap extends EsignEventMap {}
  interface DocumentEventMap extends EsignEventMap {}
  interface WindowEventMap extends EsignEventMap {}
}
