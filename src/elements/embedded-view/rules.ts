/**
 * The rules of the embedded views' settings (<esign-signing-frame>, <esign-contract-list>), free of the DOM: types,
 * the check of the settings, the attribute converters, the frame's sandbox. Part of the first render; the rules of
 * Urls and pages are in url-rules.ts. Unit-tested in test/node/embedded-view.test.ts.
 */
import type { EsignError } from '@esign-elements/shared/errors';
import type { Hop } from '../../core/service/unreachable.js';
import type { EsignEnvelopeSentDetail } from '../shared/events.js';

export type OperateType = 'request_signatures' | 'signature_status';
export type ViewDisplay = 'inline' | 'popup';
/**
 * `idle`: nothing shown yet; `requesting`: asking the service for a Url; `loading`: the Url is in a frame
 * or popup (or held until the element is shown) and the page has not said `ready`; `loaded`: the page is
 * usable; `expired`: the Url or the page expired and no new one was asked for yet; `sent`: the page reported a sent
 * envelope (signing frame only); `error`: see `error`.
 */
export type ViewStatus = 'idle' | 'requesting' | 'loading' | 'loaded' | 'expired' | 'sent' | 'error';

/**
 * The last outcome of an embedded view, as the event that told it (name and detail): `esign-envelope-sent` (signing
 * frame) or `esign-error`. Kept on the element as `lastResult`, for listeners attached after it happened.
 */
export type ViewResult = { event: 'esign-envelope-sent'; detail: EsignEnvelopeSentDetail } | { event: 'esign-error'; detail: { error: EsignError; hop?: Hop } };

/** The window of `display="popup"`. */
export const VIEW_POPUP_FEATURES = 'popup,width=1000,height=800';

/** Splits an attribute value on spaces and commas; drops empties and repeats. */
export function parseList(value: string | readonly string[] | null | undefined): string[] {
  const items = typeof value === 'string' ? value.split(/[\s,]+/) : [...(value ?? [])];
  return [...new Set(items.map((item) => String(item).trim()).filter((item) => item !== ''))];
}

export function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What is wrong with the element's settings (in words: url-rules.ts `configProblem`), or undefined. Never throws. */
export type SettingsFault =
  { kind: 'display' | 'self' } | { kind: 'timeout'; setting: 'load-timeout' | 'request-timeout' } | { kind: 'origins'; bad: string[] };

/** The views' settings that can be wrong (`requestTimeout` undefined: a host of your own without one, the default). */
export interface ViewSettings {
  display: unknown;
  allowedOrigins: unknown;
  loadTimeout: unknown;
  requestTimeout?: unknown;
}

/** Whether `value` is a number of milliseconds, 0 or more. */
const isDuration = (value: unknown): boolean => Number.isFinite(Number(value)) && Number(value) >= 0;

export function settingsFault(settings: ViewSettings, pageOrigin: string | undefined = hostPageOrigin()): SettingsFault | undefined {
  if (settings.display !== 'inline' && settings.display !== 'popup') return { kind: 'display' };
  if (!isDuration(settings.loadTimeout)) return { kind: 'timeout', setting: 'load-timeout' };
  if (settings.requestTimeout !== undefined && !isDuration(settings.requestTimeout)) return { kind: 'timeout', setting: 'request-timeout' };
  const listed = parseList(typeof settings.allowedOrigins === 'string' || Array.isArray(settings.allowedOrigins) ? settings.allowedOrigins : []);
  const bad = listed.filter((entry) => originOf(entry) === undefined);
  if (bad.length) return { kind: 'origins', bad };
  // allow-scripts + allow-same-origin on a frame of the page's own origin lets it remove its own sandbox
  if (pageOrigin !== undefined && listed.some((entry) => originOf(entry) === pageOrigin)) return { kind: 'self' };
  return undefined;
}

/** The host page's origin, or undefined where there is none (server rendering). */
export function hostPageOrigin(): string | undefined {
  const origin = globalThis.location?.origin;
  return origin && origin !== 'null' ? origin : undefined;
}

/**
 * `auto="false"` (or "off", "0"): the spelling of "off" before `auto` became an HTML boolean (on whenever present).
 * Deprecated, still read as off for now; the view warns of it when it starts (`DEPRECATED_AUTO`).
 */
export const legacyOff = (value: string | null): boolean => value !== null && /^(false|off|0)$/i.test(value.trim());

/** Lit converter for the signing frame's `auto`: an HTML boolean, save the deprecated `auto="false"` (see legacyOff). */
export const autoConverter = {
  fromAttribute: (value: string | null): boolean => value !== null && !legacyOff(value),
};

/** Lit converter for `file-ids`: space- or comma-separated FileIds. */
export const fileIdsConverter = {
  fromAttribute: (value: string | null): string[] => parseList(value),
  toAttribute: (value: string[]): string => value.join(' '),
};

/** Array properties change only when their items do. */
export function listChanged(value: readonly string[] | undefined, old: readonly string[] | undefined): boolean {
  return (value ?? []).join('\u0000') !== (old ?? []).join('\u0000');
}

/** `sandbox` of the frame: the service's pages run scripts and post forms on their own origin, and may open a document in a new window. */
export const FRAME_SANDBOX = 'allow-scripts allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox';
/**
 * `sandbox` of a frame before its Url: no scripts. A blank frame is about:blank, same-origin with this page, and
 * scripts plus same-origin there is the combination browsers warn can escape the sandbox; the full FRAME_SANDBOX is
 * set just before the frame navigates to the service's (other-origin) page, so that page alone runs with it.
 */
export const FRAME_SANDBOX_BLANK = 'allow-same-origin';
export const FRAME_ALLOW = 'clipboard-write';

/** The console warning for the deprecated `auto="false"` (`legacyOff`), given when the view starts. */
export const DEPRECATED_AUTO =
  'esign: auto="false" is deprecated and will mean on (an HTML boolean) in a later release: remove the attribute (<esign-signing-frame>) or use manual (<esign-contract-list>).';
