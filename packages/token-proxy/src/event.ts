/** What the proxy tells its observer (`onEvent`) about each request: the event's shape. Runtime-free. */

export type TokenProxyEventType = 'login' | 'callback' | 'authorization_code' | 'refresh_token' | 'revoke' | 'preflight' | 'rejected';

/**
 * What became of a request, from a fixed set (a metrics label): `ok` (2xx/3xx, a sign-in that connected),
 * `rejected` (a 4xx or a sign-in outcome error of the request's own making), `rate_limited` (429: the proxy's
 * limit or the service's), `store_unavailable` (503: the shared store did not answer), `upstream_error` (the
 * service unreachable, slow or failing: 502/504, a sign-in outcome `temporarily_unavailable`), `error` (500).
 */
export type TokenProxyOutcome = 'ok' | 'rejected' | 'rate_limited' | 'store_unavailable' | 'upstream_error' | 'error';

/** What `onEvent` sees: never a token, code, secret, cookie, key or body. */
export interface TokenProxyEvent {
  type: TokenProxyEventType;
  /** The route under basePath: `/login`, `/callback`, `/login/done`, `/login/status`, `/token` or `/revoke`. */
  route: string;
  method: string;
  status: number;
  outcome: TokenProxyOutcome;
  /** The error code answered (the JSON `error`, or the sign-in outcome's `error`): an identifier, never a description. */
  error?: string;
  /** The request's id: the `X-Request-Id` of a trusted proxy, else a new one; echoed in the answer's `X-Request-Id`. */
  requestId: string;
  durationMs: number;
  /** Milliseconds this request waited for the service (its own calls only); absent when it made none. */
  upstreamMs?: number;
  /** This request made a refresh call to the service (not a cached, shared or replayed answer). */
  refreshed?: true;
  /** The proxy's own rate limit answered 429. */
  rateLimited?: true;
  /** Which mode served it: the cookie session (token-mediating) or a browser-held refresh token. */
  mode?: 'mediated' | 'browser-held';
  /** A refresh answered from the session's cached access token, without a call to the service. */
  cached?: true;
  /** A refresh answered from another request's call to the service (shared in flight or replay window). */
  replayed?: true;
}
