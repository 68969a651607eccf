/**
 * The one error type of esign-elements. Every failure an integrator can meet
 * (service, network, OAuth, validation) is an `EsignError` with a stable `code`.
 */

/** Stable error codes. Integrators may switch on these; they never change meaning. */
export type EsignErrorCode =
  // configuration and input
  | 'invalid_config'
  | 'invalid_argument'
  // session / OAuth
  | 'no_session'
  | 'popup_blocked'
  | 'popup_closed'
  | 'access_denied'
  | 'state_mismatch'
  | 'login_expired'
  | 'oauth_error'
  | 'token_exchange_failed'
  | 'refresh_failed'
  | 'revoke_failed'
  | 'session_expired'
  /**
   * A refresh of the token proxy's session was interrupted (a proxy replica stopped mid-refresh, or the service did not
   * answer) and the service no longer accepts its refresh token: the session is over, the user connects again.
   */
  | 'refresh_interrupted'
  /** The token proxy's session cookie did not come back (proxy on another site, third-party cookies blocked). */
  | 'cookie_blocked'
  /**
   * The token proxy refused to start a sign-in for this page's origin: add it to the proxy's allowed origins, or set its
   * public origin (behind a dev server that forwards to it). `serviceCode`: `origin_not_allowed` or `public_origin_mismatch`.
   */
  | 'origin_not_allowed'
  /**
   * The page runs inside another site's frame (Shopify admin, a Teams tab, …) and the token proxy is not set up for
   * framed pages (`--framed-by <the framing site>`), or does not allow that site: a sign-in could never reach the page.
   */
  | 'framing_not_allowed'
  // transport / service
  | 'network_error'
  | 'timeout'
  | 'aborted'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'payload_too_large'
  | 'service_error'
  | 'bad_response'
  // uploads
  | 'file_too_large'
  | 'file_type_not_accepted'
  | 'too_many_files'
  | 'upload_failed'
  // embedded views
  | 'no_files'
  | 'url_rejected'
  | 'frame_blocked'
  | 'view_failed'
  | 'view_expired'
  /** The page's Content-Security-Policy blocked a call or a frame: `directive` names the directive to extend. */
  | 'csp_blocked';

export interface EsignErrorOptions {
  /** HTTP status of the response that caused this error, when there was one. */
  status?: number;
  /** The service's `Response.RequestId`, when the service answered. */
  requestId?: string;
  /** The service's own error code (`Response.Error.Code` or OAuth `error`). */
  serviceCode?: string;
  /** Seconds the service asked us to wait (`Retry-After`), when given. */
  retryAfter?: number;
  cause?: unknown;
}

export class EsignError extends Error {
  override readonly name = 'EsignError';
  readonly code: EsignErrorCode;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly serviceCode: string | undefined;
  readonly retryAfter: number | undefined;
  /** `csp_blocked`: the Content-Security-Policy directive that blocked (`connect-src`, `frame-src`); set by the elements. */
  declare readonly directive?: 'connect-src' | 'frame-src';

  constructor(code: EsignErrorCode, message: string, options: EsignErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.requestId = options.requestId;
    this.serviceCode = options.serviceCode;
    this.retryAfter = options.retryAfter;
  }

  /** A plain, structured-cloneable object (for postMessage, BroadcastChannel, logs). Never holds tokens. */
  toJSON(): SerializedEsignError {
    return {
      name: 'EsignError',
      code: this.code,
      message: this.message,
      status: this.status,
      requestId: this.requestId,
      serviceCode: this.serviceCode,
      retryAfter: this.retryAfter,
    };
  }

  static fromJSON(json: SerializedEsignError): EsignError {
    return new EsignError(json.code, json.message, json);
  }

  /** Wraps anything thrown into an EsignError, keeping an EsignError as it is. */
  static from(error: unknown, fallback: EsignErrorCode = 'service_error'): EsignError {
    if (error instanceof EsignError) return error;
    if (isAbortError(error)) return new EsignError('aborted', 'The operation was aborted.', { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    return new EsignError(fallback, message, { cause: error });
  }
}

export interface SerializedEsignError {
  name: 'EsignError';
  code: EsignErrorCode;
  message: string;
  status?: number | undefined;
  requestId?: string | undefined;
  serviceCode?: string | undefined;
  retryAfter?: number | undefined;
}

/** A part of the library that loads on first use (a chunk) could not be loaded: offline, or a deploy removed it. */
export function partNotLoaded(cause: unknown): EsignError {
  return new EsignError('network_error', 'Part of esign-elements could not be loaded (offline, or the files changed on the server). Try again.', { cause });
}

/** The sign-in window was closed before the sign-in finished (the flow, the mode's part and the proxy's sign-in). */
export function popupClosed(): EsignError {
  return new EsignError('popup_closed', 'The sign-in window was closed before finishing.');
}

export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    ((error as { name: unknown }).name === 'AbortError' || (error as { name: unknown }).name === 'TimeoutError')
  );
}
