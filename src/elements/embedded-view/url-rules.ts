/**
 * The rules of the service's Urls and pages, free of the DOM: which Url may be shown, when it expires, which
 * messages are the page's, and a bad setting in words. Loaded with the view's controller; unit-tested in
 * test/node/embedded-view.test.ts.
 */
import { isAllowedServiceUrl } from '@esign-elements/shared/url';
import { originOf, parseList, type SettingsFault, type ViewSettings } from './rules.js';

/** A Url this close to ExpiresAt may die on its way to the service; a new one is asked for instead. */
export const EXPIRY_MARGIN_MS = 5_000;
/**
 * Why the element's settings cannot work, in words, or undefined when they can: `fault` is what rules.ts `settingsFault`
 * found in `settings` on a page of `pageOrigin`. Never throws: bad attribute values are reported, not thrown.
 */
export function configProblem(settings: Omit<ViewSettings, 'allowedOrigins'>, fault: SettingsFault | undefined, pageOrigin?: string): string | undefined {
  switch (fault?.kind) {
    case undefined:
      return undefined;
    case 'display':
      return `display must be "inline" or "popup", not "${String(settings.display)}".`;
    case 'timeout':
      return `${fault.setting} must be a number of milliseconds, 0 or more, not "${String(fault.setting === 'load-timeout' ? settings.loadTimeout : settings.requestTimeout)}".`;
    case 'origins':
      return `allowed-origins must list http(s) origins such as https://esign.example.com; not ${fault.bad.map((b) => `"${b}"`).join(', ')}.`;
    case 'self':
      return `allowed-origins must not include this page's own origin (${pageOrigin}): a sandboxed frame of the same origin can lift its sandbox. Serve the service on another origin.`;
  }
}

/** The origins an embedded Url may have: the listed ones, or the base URL's origin when none is listed. */
export function allowedOriginsFor(allowedOrigins: string | readonly string[] | null | undefined, baseUrl: string): string[] {
  const listed = parseList(allowedOrigins);
  const origins = (listed.length ? listed : [baseUrl]).map(originOf).filter((origin): origin is string => origin !== undefined);
  return [...new Set(origins)];
}

export type UrlCheck = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * Whether the service's Url may be shown: absolute (never resolved against anything, the client does not
 * build it), https or loopback http, no credentials, from an allowed origin and not of the page's own origin
 * (`pageOrigin`, when there is a page). The reason never holds the Url.
 */
export function checkEmbeddedUrl(url: unknown, allowedOrigins: readonly string[], pageOrigin?: string): UrlCheck {
  if (typeof url !== 'string' || url === '') return { ok: false, reason: 'The service returned no Url.' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'The service returned a Url that is not an absolute URL.' };
  }
  if (!isAllowedServiceUrl(parsed, { allowLoopbackHttp: true })) {
    return { ok: false, reason: `The Url's scheme ${parsed.protocol} is not allowed: https only, or http on localhost, 127.0.0.1 or [::1].` };
  }
  if (!allowedOrigins.includes(parsed.origin)) {
    return { ok: false, reason: `The Url's origin ${parsed.origin} is not in allowed-origins (${allowedOrigins.join(' ') || 'none'}).` };
  }
  if (parsed.origin === pageOrigin) {
    return { ok: false, reason: `The Url has this page's own origin (${pageOrigin}): a sandboxed frame of the same origin can lift its sandbox.` };
  }
  return { ok: true, origin: parsed.origin };
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC3339 timestamp (any offset) as epoch milliseconds, or undefined when it is not one. */
export function parseInstant(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = RFC3339.exec(value.trim());
  if (!match) return undefined;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  // Date.parse takes milliseconds at most and an upper-case Z
  const ms = Date.parse(`${date}T${time}${fraction.slice(0, 4)}${zone.toUpperCase()}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** True when a Url expiring at `expiresAtMs` must not be used at `nowMs` any more. */
export function isExpired(expiresAtMs: number, nowMs: number, marginMs = EXPIRY_MARGIN_MS): boolean {
  return nowMs >= expiresAtMs - marginMs;
}

/** `{source: "esign", type, …}`: a message of the embedded pages (assumption, docs/architecture.md). */
export function isEsignMessage(data: unknown): data is { source: 'esign'; type: string; [key: string]: unknown } {
  return (
    typeof data === 'object' && data !== null && (data as { source?: unknown }).source === 'esign' && typeof (data as { type?: unknown }).type === 'string'
  );
}

/** The `frame_blocked` message of a page that did not report ready within `timeout` ms (no Url in it). */
export function loadTimeoutMessage(origin: string, timeout: number, inPopup: boolean): string {
  return inPopup
    ? `The e-signature page from ${origin} did not report ready within ${timeout} ms (network, or the page was closed).`
    : `The e-signature page from ${origin} did not load within ${timeout} ms. Likely causes: this page's Content-Security-Policy frame-src does not allow ${origin}; the service's frame-ancestors does not allow this page's origin; the network.`;
}
