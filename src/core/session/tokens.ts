/**
 * What a session needs from a token backend, whichever party holds the refresh token: the token proxy
 * (default, token-mediating backend of RFC 10017) or the browser (opt-in).
 */
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
}

export interface ExchangeInput {
  /** The callback's parameters, `state` already checked. */
  params: URLSearchParams;
  redirectUri: string;
  codeVerifier: string;
}

export interface TokenBackend {
  readonly holder: RefreshTokenHolder;
  /** Redeems the authorization code. */
  exchange(input: ExchangeInput): Promise<TokenSet>;
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
  };
}

/** Header the token proxy requires, so that a cross-site form cannot use it. */
export const PROXY_HEADER = { 'X-Esign-Proxy': '1' } as const;
