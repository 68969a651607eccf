/**
 * What a session needs from a token backend, whichever party holds the refresh token: the token proxy
 * (default, token-mediating backend of RFC 10017) or the browser (opt-in); and what both backends share, the calls
 * to the token proxy (callProxy, postForm). Each backend is its own lazy module that imports this one: a backend
 * importing the other would leave a re-export stub and one more file on the way to the first token.
 */
import { watchConnectSrc } from '../service/csp-violation.js';
import { failedAt } from '../service/unreachable.js';
import { EsignError, isAbortError } from '@esign-elements/shared/errors';
import { isRecord } from '@esign-elements/shared/service-types';
import { PROXY_HEADER, PROXY_HEADER_VALUE } from '@esign-elements/shared/proxy-header';

/** Who holds the refresh token. */
export type RefreshTokenHolder = 'proxy' | 'browser';

/** A token answer, as the session keeps it. Only the browser-held mode ever sees `refreshToken`. */
export interface TokenSet {
  accessToken: string;
  /** Seconds. */
  expiresIn: number;
  scope: string | undefined;
  /** (assumption) `space_id` of the token response. */
  spaceId: string | undefined;
  /** (assumption) Optional names the service may add: `user_name`, `user_email`, `space_name`. */
  userName: string | undefined;
  userEmail: string | undefined;
  spaceName: string | undefined;
  refreshToken?: string | undefined;
  /** Default mode: the attempt id of the sign-in that made the proxy's session (`login_attempt`). */
  loginAttempt?: string | undefined;
}

export interface ExchangeInput {
  /** The callback's parameters, `state` already checked. */
  params: URLSearchParams;
  redirectUri: string;
  codeVerifier: string;
}

export interface TokenBackend {
  readonly holder: RefreshTokenHolder;
  /** Redeems the authorization code (the browser-held mode only: in the default mode the proxy redeems it at its callback). */
  exchange?(input: ExchangeInput): Promise<TokenSet>;
  /**
   * A valid access token. `force`: the current one was refused, get a new one. The browser-held mode
   * passes its refresh token. Throws `session_expired` when the grant is over.
   */
  refresh(input: { refreshToken?: string | undefined; force: boolean }): Promise<TokenSet>;
  /** Ends the grant at the service (best effort by the caller). */
  revoke(input: { refreshToken?: string | undefined; accessToken?: string | undefined }): Promise<void>;
}

/** Reads the optional, non-secret fields of a token response. */
export function tokenSetFrom(body: Record<string, unknown>): TokenSet {
  const text = (name: string): string | undefined => (typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined);
  const expiresIn = typeof body['expires_in'] === 'number' && body['expires_in'] > 0 ? body['expires_in'] : 3600;
  return {
    accessToken: String(body['access_token']),
    expiresIn,
    scope: text('scope'),
    spaceId: text('space_id'),
    userName: text('user_name'),
    userEmail: text('user_email'),
    spaceName: text('space_name'),
    refreshToken: text('refresh_token'),
    loginAttempt: text('login_attempt'),
  };
}

export { PROXY_HEADER, PROXY_HEADER_VALUE } from '@esign-elements/shared/proxy-header';

/**
 * A token answer of the proxy, checked as an OAuth client checks one (RFC 6749 section 5.1): a Bearer
 * `token_type`, a non-empty `access_token`, and every optional field of its type.
 */
export async function callProxy(url: string, code: 'token_exchange_failed' | 'refresh_failed', fields: URLSearchParams): Promise<TokenSet> {
  const body = await postForm(url, code, fields);
  const problem =
    typeof body['access_token'] !== 'string' || body['access_token'] === ''
      ? 'without an access token'
      : typeof body['token_type'] !== 'string' || body['token_type'].toLowerCase() !== 'bearer'
        ? 'with a token_type other than Bearer'
        : (['refresh_token', 'scope', 'space_id'] as const).find((name) => body[name] !== undefined && typeof body[name] !== 'string')
          ? 'with a malformed field'
          : body['expires_in'] !== undefined && (typeof body['expires_in'] !== 'number' || !(body['expires_in'] > 0))
            ? 'with a malformed expires_in'
            : undefined;
  if (problem) throw new EsignError(code, `The token proxy answered ${problem}.`);
  return tokenSetFrom(body);
}

/**
 * How long a call to the token proxy may take, answer read included: a proxy that accepts the connection and never
 * answers ends in `timeout` (told as the token proxy, and tried again like a refused connection), never in a wait with
 * no end. The service client's own default is the same.
 */
export const PROXY_TIMEOUT_MS = 30_000;

/** POSTs a form to the proxy with its header and the cookie; the JSON answer, or the error it means. */
export async function postForm(
  url: string,
  code: 'token_exchange_failed' | 'refresh_failed' | 'revoke_failed',
  fields: URLSearchParams,
  timeoutMs = PROXY_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), timeoutMs);
  const noAnswer = (cause: unknown): EsignError =>
    failedAt('token-proxy', new EsignError('timeout', `No answer from the token proxy within ${timeoutMs} ms.`, { cause }));
  let response: Response;
  const csp = watchConnectSrc();
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'include',
      cache: 'no-store',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', [PROXY_HEADER]: PROXY_HEADER_VALUE },
      body: fields,
      signal: timer.signal,
    });
  } catch (cause) {
    clearTimeout(timeout);
    if (timer.signal.aborted) throw noAnswer(cause);
    if (isAbortError(cause)) throw new EsignError('aborted', 'The request was aborted.', { cause });
    // the page's Content-Security-Policy, not the network: say which directive to extend
    const blocked = await csp.blockedFor(url);
    if (blocked) throw blocked;
    throw failedAt(
      'token-proxy',
      new EsignError('network_error', 'Could not reach the token proxy. Check the connection and the token-endpoint setting.', { cause }),
    );
  } finally {
    csp.stop();
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (cause) {
    if (timer.signal.aborted) throw noAnswer(cause);
    throw failedAt(
      'token-proxy',
      new EsignError(code, `The token proxy gave an unexpected answer (HTTP ${response.status}).`, { status: response.status, cause }),
    );
  } finally {
    clearTimeout(timeout);
  }
  if (response.ok && isRecord(body)) return body;
  throw failedAt('token-proxy', proxyError(code, response, body));
}

/**
 * An error answer of the proxy as an EsignError; the codes that end a session become `session_expired`, or
 * `refresh_interrupted` when an interrupted refresh ended it.
 */
function proxyError(code: 'token_exchange_failed' | 'refresh_failed' | 'revoke_failed', response: Response, body: unknown): EsignError {
  const status = response.status;
  const error = isRecord(body) && typeof body['error'] === 'string' ? body['error'] : undefined;
  const description = isRecord(body) && typeof body['error_description'] === 'string' ? body['error_description'] : undefined;
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  const options = { status, serviceCode: error, retryAfter };
  if (status === 429) return new EsignError('rate_limited', description ?? 'Too many token requests; retry later.', options);
  if (code === 'refresh_failed' && error === 'refresh_interrupted') {
    return new EsignError('refresh_interrupted', 'A refresh of the session was interrupted and cannot be completed: connect again.', options);
  }
  if (code === 'refresh_failed' && (error === 'session_missing' || error === 'session_invalid' || error === 'invalid_grant')) {
    return new EsignError('session_expired', 'The session was revoked or expired: connect again.', options);
  }
  return new EsignError(code, description ?? `The token proxy answered HTTP ${status}${error ? ` (${error})` : ''}.`, options);
}
