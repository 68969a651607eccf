/**
 * Retry helpers of the API client: Retry-After parsing, full-jitter backoff, abortable waits.
 * Plain module: runs in browsers and Node.
 */

import { EsignError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff ceiling; doubles each attempt. */
  baseDelayMs: number;
  /** Ceiling of any wait, Retry-After included: a longer Retry-After ends the retries (see client docs). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({ retries: 3, baseDelayMs: 300, maxDelayMs: 10_000 });

/**
 * Seconds to wait from a `Retry-After` header value: delta-seconds or an HTTP date (RFC 9110 section 10.2.3).
 * Returns undefined for a missing or malformed value; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  // Only accept something that looks like a date, so "1.5" or "-3" are not read as years by Date.parse.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Full-jitter backoff (AWS architecture blog): uniform in [0, min(max, base * 2^attempt)]. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with an `aborted` EsignError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(signal?: AbortSignal): EsignError {
  return new EsignError('aborted', 'The operation was aborted.', { cause: signal?.reason });
}
