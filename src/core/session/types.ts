/** The session's shapes, shared by the session manager, its stored record and the sign-in parts. */
import type { Hop } from '../service/unreachable.js';
import type { StorageKind } from '../kv.js';
import type { RefreshTokenHolder, TokenSet } from './tokens.js';

export type ConnectMode = 'popup' | 'redirect';

export interface SessionConfig {
  clientId: string;
  /** Service base URL; `/openapi/v1/...` paths are appended. */
  baseUrl: string;
  /** Absolute URL of the token proxy's token route. */
  tokenEndpoint: string;
  /** Absolute URL of the token proxy's revocation route (default: `revoke` beside the token route). */
  revocationEndpoint?: string;
  /** Default mode: absolute URL of the token proxy's login route, where the sign-in starts (default: `login` beside the token route). */
  loginEndpoint?: string;
  /** The service's authorization page (default: `${baseUrl}/openapi/v1/oauth/auth`). */
  authorizationEndpoint?: string;
  /** The authorization server's issuer identifier, compared exactly with an `iss` in the answer (RFC 9207). Default: `baseUrl` without a trailing slash. */
  issuer?: string;
  /** Browser-held mode: the page the service sends the code to (registered exactly). The default mode uses the proxy's callback. */
  redirectUri: string;
  scope: string;
  spaceId?: string;
  loginHint?: string;
  storage: StorageKind;
  /**
   * Who holds the refresh token: `proxy` (default: the token proxy keeps it in an encrypted HttpOnly
   * cookie and this page holds short-lived access tokens in memory only) or `browser` (opt-in, for
   * proxies that cannot be served from the page's own site: both tokens are kept by the page).
   */
  refreshTokens?: RefreshTokenHolder;
  /** Refresh this many seconds before the access token expires. */
  refreshLeewaySeconds?: number;
  /** How long a login attempt (state + verifier) stays valid. */
  attemptTtlSeconds?: number;
}

/** What integrators may read about a session: never a token. */
export interface SessionInfo {
  scope: string[];
  /** The Space the token applies to, when the service said so (assumption: `space_id`). */
  spaceId: string | undefined;
  /** (assumption) The Space's name, when the service adds `space_name` to the token response. */
  spaceName?: string | undefined;
  /** (assumption) The person who connected, when the service adds `user_name` / `user_email`. */
  userName?: string | undefined;
  userEmail?: string | undefined;
  /** Who holds the refresh token: the token proxy (default) or this browser (opt-in). */
  refreshTokens: RefreshTokenHolder;
  expiresAt: Date;
  connectedAt: Date;
}

/**
 * A mode's sign-in, made from the session's settings alone: where it starts, what comes back and from which origin,
 * and the tokens a completed sign-in got. The sign-in flow drives it and hands the tokens to the manager (`adopt`).
 */
export interface LoginPart {
  /** The origin whose messages to the opener count (the popup's last page). */
  readonly messageOrigin: string;
  begin(mode: ConnectMode): Promise<{ url: string; state: string }>;
  abandon(state: string): Promise<void>;
  find(state: string): Promise<{ mode: ConnectMode } | undefined>;
  /** Completes from the answer's parameters (a callback page, or an outcome): the tokens, or its EsignError. */
  complete(params: URLSearchParams): Promise<TokenSet>;
  /** A message from the popup: the tokens, undefined when it is not this attempt's, or the EsignError. */
  accept(message: unknown, expectedState: string): Promise<TokenSet | undefined>;
  /** The popup closed with nothing heard: a last look (the default mode asks the proxy), else `popup_closed`. */
  afterClose?(state: string): Promise<TokenSet>;
  /**
   * A popup that reads as closed with nothing heard: what the proxy knows of the attempt (the tokens, its error
   * thrown, `pending` or `unknown`). The browser-held mode has none: no server knows its attempt.
   */
  status?(state: string): Promise<TokenSet | 'pending' | 'unknown'>;
}

export type SessionChange =
  | { type: 'connected'; session: SessionInfo; byOtherTab: boolean }
  | { type: 'refreshed'; session: SessionInfo; byOtherTab: boolean }
  | { type: 'disconnected'; reason: 'user' | 'expired' | 'revoked' | 'other-tab'; why?: 'interrupted' }
  /** A refresh could not reach the token proxy (or the service): the session is kept; the next `refreshed` says it answers again. */
  | { type: 'unreachable'; hop: Hop };
