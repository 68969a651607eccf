/**
 * The Url lifecycle of an embedded view, one job: ask `embedded/views` for a Url (one request at a time; a newer one
 * supersedes it), check it, hold it until a frame takes it, and say when a held Url got too old (ExpiresAt minus a
 * margin). The shape of Lit's `Task` for one request, without the dependency: `request()` resolves with the answer
 * or undefined when superseded, and rejects with an EsignError (`network_error` whenever the browser is offline). Loaded with the view's controller.
 */
import { ServiceClient } from '../../core/service/service-client.js';
import { EsignError, type EsignErrorCode } from '../../core/errors.js';
import type { SessionProvider } from '../shared/session-context.js';
import { checkEmbeddedUrl, EXPIRY_MARGIN_MS, parseInstant } from './page-rules.js';
import type { OperateType } from './rules.js';

/** Automatic renewals without a `ready` in between: stops a loop when the page keeps saying "expired". */
export const MAX_AUTO_RENEWALS = 2;
/** Errors about the session itself are the session's to report; they keep their code. */
const SESSION_CODES = new Set<EsignErrorCode>([
  'no_session',
  'no_files',
  'aborted',
  'session_expired',
  'refresh_interrupted',
  'refresh_failed',
  'login_expired',
]);

/** A checked Url, not given to a window yet. */
export interface HeldUrl {
  url: string;
  expiresAtMs: number;
  /** A frame that was not blank any more was replaced once for this Url (a second time is an error, not a loop). */
  replacedFrame?: boolean;
}

/** The service's answer, checked. */
export interface CheckedUrl extends HeldUrl {
  origin: string;
  /** ExpiresAt as the service sent it. */
  expiresAt: string;
  receivedAt: number;
}

export class ViewUrl {
  /** The Url waiting for its frame (inline display), if any. */
  held: HeldUrl | undefined;
  /** Automatic renewals since the last `ready`. */
  renewals = 0;
  /** The page's CSP blocked the request under way: its failure, when it comes, is told as this. */
  cspError: EsignError | undefined;
  #abort: AbortController | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #onExpired: () => void;

  /** `onExpired`: a held Url became too old before any frame took it (it is dropped first). */
  constructor(onExpired: () => void) {
    this.#onExpired = onExpired;
  }

  /**
   * Asks for a Url (the previous request is cancelled). `onSent` runs once the request is on its way. Resolves with
   * the raw answer, or undefined when a later request or `cancel()` superseded this one; rejects with an EsignError.
   */
  async request(
    provider: SessionProvider,
    operateType: OperateType,
    fileIds: readonly string[],
    onSent: () => void,
  ): Promise<{ url: unknown; expiresAt: string } | undefined> {
    this.cancel();
    this.cspError = undefined;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const client = new ServiceClient({
        baseUrl: provider.baseUrl,
        tokens: provider,
        operatorUserId: provider.operatorUserId,
        fetch: (input, init) => {
          const response = globalThis.fetch(input, init);
          if (abort === this.#abort) onSent();
          return response;
        },
      });
      const { data } =
        operateType === 'request_signatures'
          ? await client.requestSignaturesView([...fileIds], { signal: abort.signal })
          : await client.signatureStatusView({ signal: abort.signal });
      if (abort !== this.#abort) return undefined;
      this.#abort = undefined;
      return { url: data.Url, expiresAt: data.ExpiresAt };
    } catch (error) {
      if (abort !== this.#abort) return undefined; // superseded or torn down
      this.#abort = undefined;
      const failure = this.cspError ?? viewError(error);
      this.cspError = undefined;
      if (failure.code !== 'csp_blocked' && (failure.code === 'network_error' || (typeof navigator !== 'undefined' && navigator.onLine === false))) {
        throw new EsignError('network_error', 'The browser is offline or cannot reach the service; the page opens again when the connection returns.', {
          cause: failure,
        });
      }
      throw failure;
    }
  }

  /** The answer checked against the allowed origins (EsignError `url_rejected` if it may not be shown). */
  accept(answer: { url: unknown; expiresAt: string }, allowedOrigins: readonly string[], pageOrigin: string | undefined): CheckedUrl {
    const check = checkEmbeddedUrl(answer.url, allowedOrigins, pageOrigin);
    if (!check.ok) throw new EsignError('url_rejected', check.reason);
    const receivedAt = Date.now();
    // an unreadable ExpiresAt makes the Url good for immediate use only
    return {
      url: answer.url as string,
      origin: check.origin,
      expiresAt: answer.expiresAt,
      expiresAtMs: parseInstant(answer.expiresAt) ?? receivedAt,
      receivedAt,
    };
  }

  /** Keeps a checked Url for the frame, and watches its expiry meanwhile. */
  hold(checked: CheckedUrl): void {
    this.held = { url: checked.url, expiresAtMs: checked.expiresAtMs };
    this.#clearExpiry();
    this.#expiryTimer = setTimeout(
      () => {
        this.#expiryTimer = undefined;
        if (!this.held) return;
        // never used, now too old: dropped
        this.held = undefined;
        this.#onExpired();
      },
      Math.min(Math.max(0, checked.expiresAtMs - EXPIRY_MARGIN_MS - checked.receivedAt), 2_147_483_647),
    );
  }

  /** The held Url, given away: it is not held (nor watched) any more. */
  take(): HeldUrl | undefined {
    const held = this.held;
    this.held = undefined;
    this.#clearExpiry();
    return held;
  }

  /** True while a request is on its way. */
  get pending(): boolean {
    return this.#abort !== undefined;
  }

  /** Cancels the request under way and forgets the held Url. */
  cancel(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    this.take();
  }

  #clearExpiry(): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
  }
}

function viewError(error: unknown): EsignError {
  const e = EsignError.from(error, 'view_failed');
  if (SESSION_CODES.has(e.code) || e.code === 'view_failed' || e.code === 'network_error') return e;
  // one code for "the service gave no page"; the service's own code, status and RequestId stay on it
  return new EsignError('view_failed', `The service did not give an embedded page: ${e.message}`, {
    status: e.status,
    requestId: e.requestId,
    serviceCode: e.serviceCode ?? e.code,
    retryAfter: e.retryAfter,
    cause: e,
  });
}
