/**
 * Retry helpers of the API client: Retry-After parsing, full-jitter backoff, abortable waits.
 * Plain module: runs in browsers and Node.
 */

import { EsignError } from '@esign-elements/shared/errors';

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

/**
 * How long to wait before retrying a retryable error: full-jitter backoff, but never less than the service's
 * Retry-After (a shorter wait only earns another refusal). Undefined when Retry-After is longer than the policy's
 * cap: retrying then is the caller's decision, not a background wait.
 */
export function retryDelay(error: EsignError, attempt: number, policy: RetryPolicy): number | undefined {
  const jitter = backoffDelay(attempt, policy);
  if (error.retryAfter === undefined) return jitter;
  const asked = error.retryAfter * 1000;
  if (asked > policy.maxDelayMs) return undefined;
  return Math.max(asked, jitter);
}

/**
 * How long an element waits before its try number `attempt` (0 first) of a hop it could not reach: the `policy`'s
 * backoff (unreachable.ts `UNREACHABLE_RETRY`), but never less than the `Retry-After` the hop sent with its failure
 * (`retryAfterSeconds`: a sooner try only earns another refusal), however long. Unlike `retryDelay`, no cap ends the
 * tries: an element's wait is a timer, not a call someone awaits. The one wait of the views' tries.
 */
export function retryWaitMs(attempt: number, retryAfterSeconds: number | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  return Math.max((retryAfterSeconds ?? 0) * 1000, backoffDelay(attempt, policy, random));
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
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(signal?: AbortSignal): EsignError {
  return new EsignError('aborted', 'The operation was aborted.', { cause: signal?.reason });
}

export interface RetryLoop<T> {
  signal?: AbortSignal | undefined;
  /** One try; `forceRefresh` is true right after the service refused the token. */
  attempt(forceRefresh: boolean): Promise<T>;
  /** Anything thrown, as an EsignError. */
  toError(caught: unknown): EsignError;
  /** The service refused the token before processing anything (a 401): worth one refresh and one more try. */
  isRefused(error: EsignError): boolean;
  /** How long to wait before trying again, or undefined to give up with this error. */
  waitFor(error: EsignError, retriesSoFar: number): number | undefined;
  /** Errors that end the loop at once (an abort always does). */
  isFinal?(error: EsignError): boolean;
  /** The error thrown when giving up. */
  giveUp?(error: EsignError): EsignError;
  onRetry?(error: EsignError, waitMs: number): void;
}

/**
 * The loop shared by every service call: try; on a refused token refresh once and try again; on a retryable
 * failure wait (backoff, Retry-After) and try again; stop at once on abort.
 */
export async function retryWithRefresh<T>(loop: RetryLoop<T>): Promise<T> {
  const { signal } = loop;
  let refreshed = false;
  let forceRefresh = false;
  let retries = 0;
  for (;;) {
    if (signal?.aborted) throw abortedError(signal);
    let error: EsignError;
    try {
      return await loop.attempt(forceRefresh);
    } catch (caught) {
      error = loop.toError(caught);
    }
    if (error.code === 'aborted' || loop.isFinal?.(error)) throw error;
    // refused before being processed, so one refresh-and-retry is safe for any call
    if (loop.isRefused(error) && !refreshed) {
      refreshed = forceRefresh = true;
      continue;
    }
    forceRefresh = false;
    const wait = loop.waitFor(error, retries);
    if (wait === undefined) throw loop.giveUp ? loop.giveUp(error) : error;
    retries += 1;
    loop.onRetry?.(error, wait);
    await sleep(wait, signal);
  }
}
