/**
 * The session of one (service base URL, client_id) pair in this window: the OAuth 2.0
 * authorization code + PKCE flow as a public client, the code exchanged at the integrator's
 * token proxy, then kept, refreshed (one refresh across tabs) and revoked.
 */
// named imports, so any bundler keeps only these (with esbuild: ~17.7 KB minified of the ~100 KB module)
import {
  allowInsecureRequests,
  authorizationCodeGrantRequest,
  None,
  OperationProcessingError,
  processAuthorizationCodeResponse,
  processRefreshTokenResponse,
  processRevocationResponse,
  refreshTokenGrantRequest,
  ResponseBodyError,
  revocationRequest,
  validateAuthResponse,
  type AuthorizationServer,
  type Client,
  type TokenEndpointRequestOptions,
  type TokenEndpointResponse,
} from 'oauth4webapi';
import { EsignError, isAbortError } from '../errors.js';
import { createCodeChallenge, createCodeVerifier, createState } from '../pkce.js';
import { API_PREFIX, type TokenResponse } from '../service-types.js';
import { isLoopbackHost } from '../url.js';
import { openStore, TabStore, type KeyValueStore, type StorageKind } from './store.js';

export type ConnectMode = 'popup' | 'redirect';

export interface SessionConfig {
  clientId: string;
  /** Service base URL; `/openapi/v1/...` paths are appended. */
  baseUrl: string;
  /** Absolute URL of the token proxy's token route. */
  tokenEndpoint: string;
  /** Absolute URL of the token proxy's revocation route (default: `revoke` beside the token route). */
  revocationEndpoint?: string;
  redirectUri: string;
  scope: string;
  spaceId?: string;
  loginHint?: string;
  storage: StorageKind;
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
  expiresAt: Date;
  connectedAt: Date;
}

interface StoredSession {
  v: 1;
  accessToken: string;
  refreshToken: string | undefined;
  scope: string;
  spaceId: string | undefined;
  /** ms since epoch, computed from expires_in when the response arrived. */
  expiresAt: number;
  /** expires_in of the last token response, in seconds. */
  lifetime?: number;
  connectedAt: number;
  generation: number;
}

interface LoginAttempt {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  mode: ConnectMode;
  expiresAt: number;
}

export type SessionChange =
  | { type: 'connected'; session: SessionInfo; byOtherTab: boolean }
  | { type: 'refreshed'; session: SessionInfo; byOtherTab: boolean }
  | { type: 'disconnected'; reason: 'user' | 'expired' | 'revoked' | 'other-tab' };

/** Header the token proxy requires, so that a cross-site form cannot use it. */
export const PROXY_HEADER = { 'X-Esign-Proxy': '1' } as const;

const CALLBACK_MESSAGE = 'esign-oauth-callback';

export interface CallbackMessage {
  type: typeof CALLBACK_MESSAGE;
  sessionKey: string;
  params: string;
}

/** Sessions never mix across base URLs or client ids; a Designated Space Mode session is kept apart from the Open Mode one. */
export function sessionKeyOf(config: Pick<SessionConfig, 'baseUrl' | 'clientId' | 'spaceId'>): string {
  const base = `${new URL(config.baseUrl).href.replace(/\/+$/, '')}|${config.clientId}`;
  return config.spaceId ? `${base}|space:${config.spaceId}` : base;
}

export class SessionManager extends EventTarget {
  readonly config: Readonly<SessionConfig>;
  readonly key: string;
  readonly #store: KeyValueStore;
  readonly #attempts: KeyValueStore;
  readonly #channel: BroadcastChannel | undefined;
  #session: StoredSession | undefined;
  #loaded: Promise<void> | undefined;
  #refreshing: Promise<StoredSession> | undefined;

  constructor(config: SessionConfig) {
    super();
    validateConfig(config);
    this.config = Object.freeze({ ...config });
    this.key = sessionKeyOf(config);
    this.#store = openStore(config.storage, this.key);
    // a redirect round trip leaves this document: with memory storage the attempt rides in sessionStorage
    this.#attempts = this.#store;
    if (typeof BroadcastChannel !== 'undefined' && config.storage === 'indexeddb') {
      this.#channel = new BroadcastChannel(`esign-session:${this.key}`);
      this.#channel.onmessage = (event: MessageEvent) => void this.#onBroadcast(event.data);
    }
  }

  /** Read-only view of the current session, or undefined. */
  get session(): SessionInfo | undefined {
    return this.#session ? toInfo(this.#session) : undefined;
  }

  get connected(): boolean {
    return this.#session !== undefined;
  }

  /** Loads the stored session once; safe to call many times. */
  load(): Promise<void> {
    this.#loaded ??= (async () => {
      this.#session = await this.#readStored();
    })();
    return this.#loaded;
  }

  /** Builds the authorization URL and remembers the attempt (state, verifier) until it returns or expires. */
  async beginLogin(mode: ConnectMode): Promise<{ url: string; state: string }> {
    const codeVerifier = createCodeVerifier();
    const state = createState();
    const challenge = await createCodeChallenge(codeVerifier);
    const ttl = (this.config.attemptTtlSeconds ?? 600) * 1000;
    const attempt: LoginAttempt = { state, codeVerifier, redirectUri: this.config.redirectUri, mode, expiresAt: Date.now() + ttl };
    await this.#attemptStore(mode).set(this.#attemptKey(state), attempt);
    void this.#sweepAttempts(state);
    const url = new URL(`${this.config.baseUrl.replace(/\/+$/, '')}${API_PREFIX}/oauth/auth`);
    const params: Record<string, string> = {
      client_id: this.config.clientId,
      response_type: 'code',
      redirect_uri: this.config.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: this.config.scope,
    };
    if (this.config.spaceId) params['space_id'] = this.config.spaceId;
    if (this.config.loginHint) params['login_hint'] = this.config.loginHint;
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { url: url.href, state };
  }

  /** Forgets an attempt that will not come back (popup closed or blocked). */
  async abandonLogin(state: string): Promise<void> {
    await Promise.all([this.#store.delete(this.#attemptKey(state)), this.#tabStoreDelete(this.#attemptKey(state))]);
  }

  /** Whether this window holds a login attempt for `state` (used by a callback page to decide who completes it). */
  async findAttempt(state: string): Promise<{ mode: ConnectMode } | undefined> {
    const attempt = await this.#readAttempt(state);
    return attempt ? { mode: attempt.mode } : undefined;
  }

  /**
   * Completes a login from the callback's query parameters: checks `state` (single use), turns an
   * `error` into an EsignError, exchanges the code at the token proxy and keeps the session.
   */
  async completeLogin(params: URLSearchParams): Promise<SessionInfo> {
    const state = params.get('state');
    if (!state) throw new EsignError('state_mismatch', 'The authorization response has no state parameter.');
    const attempt = await this.#readAttempt(state);
    // single use: forget it before anything else can fail
    await this.abandonLogin(state);
    if (!attempt) {
      throw new EsignError('state_mismatch', 'This sign-in response does not match a sign-in started here, or it was already used. Start again.');
    }
    if (attempt.expiresAt < Date.now()) {
      throw new EsignError('login_expired', 'The sign-in took too long and expired. Start again.');
    }
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description') ?? undefined;
      if (error === 'access_denied') {
        throw new EsignError('access_denied', description ?? 'The user declined to connect the account.', { serviceCode: error });
      }
      throw new EsignError('oauth_error', description ?? `The service refused the authorization request (${error}).`, { serviceCode: error });
    }
    let callbackParams: URLSearchParams;
    try {
      callbackParams = validateAuthResponse(this.#as(), this.#client(), params, state);
    } catch (cause) {
      throw new EsignError('oauth_error', 'The authorization response is not valid.', { cause });
    }
    const response = await this.#tokenCall('token_exchange_failed', () =>
      authorizationCodeGrantRequest(this.#as(), this.#client(), None(), callbackParams, attempt.redirectUri, attempt.codeVerifier, this.#httpOptions()),
    );
    const tokens = await this.#tokenCall('token_exchange_failed', () => processAuthorizationCodeResponse(this.#as(), this.#client(), response));
    const previous = await this.#readStored();
    const stored = this.#fromTokenResponse(tokens, undefined, (previous?.generation ?? 0) + 1);
    await this.#save(stored);
    this.#post({ type: 'session' });
    this.#emit({ type: 'connected', session: toInfo(stored), byOtherTab: false });
    return toInfo(stored);
  }

  /** A valid access token, refreshed if it is about to expire; concurrent callers share one refresh. */
  async getAccessToken(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    await this.load();
    options.signal?.throwIfAborted();
    const current = this.#session;
    if (!current) throw new EsignError('no_session', 'Not connected: connect an account first.');
    if (!options.forceRefresh && !this.#needsRefresh(current)) return current.accessToken;
    const refreshed = await this.#refresh(current);
    return refreshed.accessToken;
  }

  /** Revokes through the proxy (best effort), clears storage and tells the other tabs. */
  async disconnect(): Promise<{ revoked: boolean; error?: EsignError }> {
    await this.load();
    const current = (await this.#readStored()) ?? this.#session;
    await this.#clear();
    this.#post({ type: 'disconnected' });
    this.#emit({ type: 'disconnected', reason: 'user' });
    if (!current) return { revoked: true };
    try {
      const token = current.refreshToken ?? current.accessToken;
      const hint = current.refreshToken ? 'refresh_token' : 'access_token';
      const response = await revocationRequest(this.#as(), this.#client(), None(), token, {
        ...this.#httpOptions(),
        additionalParameters: { token_type_hint: hint },
      });
      await processRevocationResponse(response);
      return { revoked: true };
    } catch (cause) {
      return { revoked: false, error: toTokenError('revoke_failed', cause) };
    }
  }

  /** Handles a relayed callback from a popup (same origin only; the caller checks the origin). */
  async acceptCallback(message: unknown, expectedState: string): Promise<SessionInfo | undefined> {
    // matched by the unguessable, single-use state: the relaying page may be configured without space-id
    if (!isCallbackMessage(message)) return undefined;
    const params = new URLSearchParams(message.params);
    if (params.get('state') !== expectedState) return undefined;
    return this.completeLogin(params);
  }

  close(): void {
    this.#channel?.close();
  }

  // ---- refresh ----

  #needsRefresh(session: StoredSession): boolean {
    // a short-lived token must not look expired from the start: at most half its lifetime early
    const leewaySeconds = Math.min(this.config.refreshLeewaySeconds ?? 60, (session.lifetime ?? 3600) / 2);
    const leeway = leewaySeconds * 1000;
    return session.expiresAt - leeway <= Date.now();
  }

  #refresh(used: StoredSession): Promise<StoredSession> {
    this.#refreshing ??= this.#refreshAcrossTabs(used).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refreshAcrossTabs(used: StoredSession): Promise<StoredSession> {
    const run = async (): Promise<StoredSession> => {
      // inside the lock: another tab may have rotated the token while we waited
      const latest = this.config.storage === 'indexeddb' ? await this.#readStored() : this.#session;
      if (!latest) {
        this.#session = undefined;
        this.#emit({ type: 'disconnected', reason: 'other-tab' });
        throw new EsignError('no_session', 'The session was ended in another tab.');
      }
      if (latest.generation !== used.generation && !this.#needsRefresh(latest)) {
        this.#session = latest;
        this.#emit({ type: 'refreshed', session: toInfo(latest), byOtherTab: true });
        return latest;
      }
      return this.#refreshNow(latest);
    };
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (this.config.storage === 'indexeddb' && locks) {
      return locks.request(`esign-refresh:${this.key}`, run);
    }
    return run();
  }

  async #refreshNow(current: StoredSession): Promise<StoredSession> {
    if (!current.refreshToken) {
      await this.#expire();
      throw new EsignError('session_expired', 'The session expired and cannot be renewed: connect again.');
    }
    let tokens: TokenEndpointResponse;
    try {
      const response = await refreshTokenGrantRequest(this.#as(), this.#client(), None(), current.refreshToken, this.#httpOptions());
      tokens = await processRefreshTokenResponse(this.#as(), this.#client(), response);
    } catch (cause) {
      const error = toTokenError('refresh_failed', cause);
      if (error.serviceCode === 'invalid_grant') {
        // another tab may have rotated the token meanwhile: adopt its session rather than logging out
        const latest = await this.#readStored();
        if (latest && latest.refreshToken !== current.refreshToken) {
          this.#session = latest;
          this.#emit({ type: 'refreshed', session: toInfo(latest), byOtherTab: true });
          return latest;
        }
        await this.#expire();
        throw new EsignError('session_expired', 'The session was revoked or expired: connect again.', {
          status: error.status,
          serviceCode: error.serviceCode,
          cause: error,
        });
      }
      // a network or service failure keeps the session: the next call tries again
      throw error;
    }
    const stored = this.#fromTokenResponse(tokens, current, current.generation + 1);
    await this.#save(stored);
    this.#post({ type: 'session' });
    this.#emit({ type: 'refreshed', session: toInfo(stored), byOtherTab: false });
    return stored;
  }

  async #expire(): Promise<void> {
    await this.#clear();
    this.#post({ type: 'disconnected' });
    this.#emit({ type: 'disconnected', reason: 'expired' });
  }

  // ---- cross-tab ----

  async #onBroadcast(data: unknown): Promise<void> {
    if (typeof data !== 'object' || data === null) return;
    const type = (data as { type?: unknown }).type;
    if (type === 'session') {
      const had = this.#session;
      const latest = await this.#readStored();
      if (!latest) return;
      this.#session = latest;
      this.#emit(had ? { type: 'refreshed', session: toInfo(latest), byOtherTab: true } : { type: 'connected', session: toInfo(latest), byOtherTab: true });
    } else if (type === 'disconnected') {
      if (!this.#session) return;
      this.#session = undefined;
      this.#emit({ type: 'disconnected', reason: 'other-tab' });
    }
  }

  #post(message: { type: 'session' | 'disconnected' }): void {
    this.#channel?.postMessage(message);
  }

  #emit(change: SessionChange): void {
    this.dispatchEvent(new CustomEvent<SessionChange>('change', { detail: change }));
  }

  // ---- storage ----

  #sessionKey(): string {
    return `${this.key}|session`;
  }

  #attemptKey(state: string): string {
    return `${this.key}|attempt|${state}`;
  }

  #attemptStore(mode: ConnectMode): KeyValueStore {
    return this.config.storage === 'memory' && mode === 'redirect' && typeof sessionStorage !== 'undefined' ? new TabStore() : this.#attempts;
  }

  async #readAttempt(state: string): Promise<LoginAttempt | undefined> {
    const key = this.#attemptKey(state);
    const stored = await this.#store.get<LoginAttempt>(key);
    if (stored) return stored;
    if (this.config.storage === 'memory' && typeof sessionStorage !== 'undefined') return new TabStore().get<LoginAttempt>(key);
    return undefined;
  }

  async #tabStoreDelete(key: string): Promise<void> {
    if (this.config.storage === 'memory' && typeof sessionStorage !== 'undefined') await new TabStore().delete(key);
  }

  /** Drops attempts that expired without coming back, so storage does not grow. */
  async #sweepAttempts(keep: string): Promise<void> {
    const indexKey = `${this.key}|attempts`;
    const states = ((await this.#store.get<Array<[string, number]>>(indexKey)) ?? []).filter(([state]) => state !== keep);
    const now = Date.now();
    const live: Array<[string, number]> = [];
    for (const [state, expiresAt] of states) {
      if (expiresAt < now) await this.#store.delete(this.#attemptKey(state));
      else live.push([state, expiresAt]);
    }
    live.push([keep, now + (this.config.attemptTtlSeconds ?? 600) * 1000]);
    await this.#store.set(indexKey, live.slice(-20));
  }

  async #readStored(): Promise<StoredSession | undefined> {
    const stored = await this.#store.get<StoredSession>(this.#sessionKey());
    return stored?.v === 1 ? stored : undefined;
  }

  async #save(session: StoredSession): Promise<void> {
    this.#session = session;
    await this.#store.set(this.#sessionKey(), session);
  }

  async #clear(): Promise<void> {
    this.#session = undefined;
    await this.#store.delete(this.#sessionKey());
  }

  #fromTokenResponse(tokens: TokenEndpointResponse, previous: StoredSession | undefined, generation: number): StoredSession {
    const body = tokens as unknown as TokenResponse;
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return {
      v: 1,
      accessToken: body.access_token,
      // a refresh response without a new refresh token keeps the old one (RFC 6749 section 6)
      refreshToken: body.refresh_token ?? previous?.refreshToken,
      scope: body.scope ?? previous?.scope ?? this.config.scope,
      spaceId: body.space_id ?? previous?.spaceId ?? this.config.spaceId,
      expiresAt: Date.now() + expiresIn * 1000,
      lifetime: expiresIn,
      connectedAt: previous?.connectedAt ?? Date.now(),
      generation,
    };
  }

  // ---- oauth4webapi plumbing ----

  #as(): AuthorizationServer {
    const base = this.config.baseUrl.replace(/\/+$/, '');
    return {
      issuer: base,
      authorization_endpoint: `${base}${API_PREFIX}/oauth/auth`,
      token_endpoint: this.config.tokenEndpoint,
      revocation_endpoint: this.config.revocationEndpoint ?? defaultRevocationEndpoint(this.config.tokenEndpoint),
    };
  }

  #client(): Client {
    return { client_id: this.config.clientId };
  }

  #httpOptions(): TokenEndpointRequestOptions {
    const insecure = new URL(this.config.tokenEndpoint).protocol === 'http:';
    return {
      headers: { ...PROXY_HEADER },
      // plain http is only accepted for loopback development (checked in validateConfig)
      ...(insecure ? { [allowInsecureRequests]: true } : {}),
    };
  }

  /** Runs a token request or its processing, any failure as an EsignError with `code`. */
  async #tokenCall<T>(code: 'token_exchange_failed' | 'refresh_failed', call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (cause) {
      throw toTokenError(code, cause);
    }
  }
}

export function defaultRevocationEndpoint(tokenEndpoint: string): string {
  const url = new URL(tokenEndpoint);
  url.pathname = url.pathname.replace(/[^/]*$/, 'revoke');
  return url.href;
}

function toInfo(session: StoredSession): SessionInfo {
  return {
    scope: session.scope.split(/\s+/).filter(Boolean),
    spaceId: session.spaceId,
    expiresAt: new Date(session.expiresAt),
    connectedAt: new Date(session.connectedAt),
  };
}

function toTokenError(code: 'token_exchange_failed' | 'refresh_failed' | 'revoke_failed', cause: unknown): EsignError {
  if (cause instanceof EsignError) return cause;
  if (isAbortError(cause)) return new EsignError('aborted', 'The request was aborted.', { cause });
  if (cause instanceof ResponseBodyError) {
    const retryAfter = Number(cause.response.headers.get('retry-after')) || undefined;
    const errorCode = cause.status === 429 ? 'rate_limited' : code;
    return new EsignError(errorCode, cause.error_description ?? `The token service answered ${cause.error}.`, {
      status: cause.status,
      serviceCode: cause.error,
      retryAfter,
      cause,
    });
  }
  if (cause instanceof OperationProcessingError) {
    const response = (cause.cause as { status?: unknown } | undefined) ?? undefined;
    const status = response && typeof response.status === 'number' ? response.status : undefined;
    return new EsignError(code, `The token proxy gave an unexpected answer${status ? ` (HTTP ${status})` : ''}.`, { status, cause });
  }
  if (cause instanceof TypeError) {
    return new EsignError('network_error', 'Could not reach the token proxy. Check the connection and the token-endpoint setting.', { cause });
  }
  return EsignError.from(cause, code);
}

function isCallbackMessage(value: unknown): value is CallbackMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as CallbackMessage).type === CALLBACK_MESSAGE &&
    typeof (value as CallbackMessage).params === 'string' &&
    typeof (value as CallbackMessage).sessionKey === 'string'
  );
}

export function callbackMessage(sessionKey: string, params: URLSearchParams): CallbackMessage {
  return { type: CALLBACK_MESSAGE, sessionKey, params: params.toString() };
}

/** Rejects settings that would make the flow insecure or impossible, with a clear reason. */
export function validateConfig(config: SessionConfig): void {
  if (!config.clientId) throw new EsignError('invalid_config', 'client-id is required.');
  const urls: Array<[string, string | undefined]> = [
    ['base-url', config.baseUrl],
    ['token-endpoint', config.tokenEndpoint],
    ['redirect-uri', config.redirectUri],
  ];
  for (const [name, value] of urls) {
    if (!value) throw new EsignError('invalid_config', `${name} is required.`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new EsignError('invalid_config', `${name} is not a valid URL: ${value}`);
    }
    const custom = name === 'redirect-uri' && !/^https?:$/.test(url.protocol);
    if (url.protocol !== 'https:' && !custom && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new EsignError('invalid_config', `${name} must use https (plain http is accepted only for localhost development): ${value}`);
    }
  }
  if (config.storage !== 'indexeddb' && config.storage !== 'memory') {
    throw new EsignError('invalid_config', `storage must be "indexeddb" or "memory", not "${String(config.storage)}".`);
  }
  if (!config.scope.trim()) throw new EsignError('invalid_config', 'scope must name at least one scope.');
}
