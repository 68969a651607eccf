/** The DOM events of esign-elements: prefixed, bubbling, composed, with a typed `detail`. */
import type { EsignError } from '../core/errors.js';
import type { SessionInfo } from '../core/session/session-manager.js';

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
}

/** Every event name and its detail type. */
export interface EsignEventDetailMap {
  'esign-connected': EsignConnectedDetail;
  'esign-disconnected': EsignDisconnectedDetail;
  'esign-session-refreshed': EsignSessionRefreshedDetail;
  'esign-error': EsignErrorDetail;
}

export type EsignEventName = keyof EsignEventDetailMap;

export type EsignEventMap = { [K in EsignEventName]: CustomEvent<EsignEventDetailMap[K]> };

/** Dispatches a bubbling, composed CustomEvent from `target`. */
export function emit<K extends EsignEventName>(target: EventTarget, name: K, detail: EsignEventDetailMap[K]): boolean {
  return target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: false }));
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HTMLElementEventMap extends EsignEventMap {}
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface DocumentEventMap extends EsignEventMap {}
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface WindowEventMap extends EsignEventMap {}
}
