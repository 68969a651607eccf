/**
 * What could not be reached: the one notion the four elements share to tell a failure as what it is. The browser
 * offline (`navigator.onLine` false), the token proxy unreachable or failing, the service unreachable or failing, or
 * the embedded page not loading. The code that made a request marks its errors with the hop it called (`failedAt`);
 * `unreachable` reads that mark (through `cause`), the error's code and status, and whether the browser is online.
 * Plain module: no DOM, so the view machine uses it too.
 */
import type { EsignError } from '@esign-elements/shared/errors';
import type { RetryPolicy } from './retry.js';

/** Which hop could not be reached: `offline` only when the browser says so. */
export type Hop = 'offline' | 'token-proxy' | 'service' | 'page';

/**
 * How an element tries a hop again while the browser is online and the element visible: full-jitter backoff from 1 s,
 * doubling, capped at 30 s, with no end (paused while hidden). Its first minute holds six tries.
 */
export const UNREACHABLE_RETRY: Readonly<RetryPolicy> = { retries: Number.POSITIVE_INFINITY, baseDelayMs: 1_000, maxDelayMs: 30_000 };

/** The `Retry-After` (seconds) `error` or an error it wraps carries, if any. */
export function retryAfterOf(error: EsignError | undefined): number | undefined {
  if (!error) return undefined;
  for (const at of chain(error)) {
    const { retryAfter } = at as Partial<EsignError>;
    if (typeof retryAfter === 'number') return retryAfter;
  }
  return undefined;
}

const marks = new WeakMap<object, Hop>();

/** Marks `error` as a failure of a request to `hop` (the caller knows which server it called); returns it. */
export function failedAt<E extends EsignError>(hop: Hop, error: E): E {
  marks.set(error, hop);
  return error;
}

/** `error` and the errors it wraps (`cause`), outermost first. */
function* chain(error: EsignError): Generator<object> {
  for (let at: unknown = error; typeof at === 'object' && at !== null; at = (at as { cause?: unknown }).cause) yield at;
}

/**
 * Whether trying the same request again may cure `error`: no connection, a timeout, a 429 or a 5xx, itself or wrapped
 * (an upload that failed because the token proxy could not be reached), unless a final answer comes first.
 */
export function transient(error: EsignError): boolean {
  for (const at of chain(error)) {
    const { code, status = 0 } = at as Partial<EsignError>;
    // answers that end the session: trying again cannot cure them, whatever their status
    if (code === 'session_expired' || code === 'refresh_interrupted') return false;
    if (code === 'network_error' || code === 'timeout' || code === 'rate_limited' || status >= 500) return true;
  }
  return false;
}

/**
 * Which hop `error` could not reach, given whether the browser says it is `online`; undefined for a failure that is
 * not one of reaching (a setting, a refusal, an expired session).
 */
export function unreachable(error: EsignError, online: boolean): Hop | undefined {
  // the page that never said ready: offline, that is why; online, the page (slow, blocked or a wrong Url)
  if (error.code === 'frame_blocked') return online ? 'page' : 'offline';
  if (!transient(error)) return undefined;
  if (!online) return 'offline';
  for (const at of chain(error)) {
    const hop = marks.get(at);
    if (hop) return hop;
  }
  return 'service';
}

/** Whether the browser says it is online (true where there is no navigator: a server). */
export const browserOnline = (): boolean => typeof navigator === 'undefined' || navigator.onLine !== false;
