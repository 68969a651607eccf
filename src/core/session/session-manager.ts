/**
 * The session of one (service base URL, client_id) pair in this window: the OAuth 2.0 authorization
 * code + PKCE flow, the code redeemed at the integrator's token proxy, then kept, refreshed (one refresh
 * across tabs) and revoked. By default the proxy holds the refresh token (token-mediating backend,
 * RFC 10017) and this page keeps the access token in memory only; `refreshTokens: 'browser'` is the
 * opt-in where the page holds both.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { openStore, type KeyValueStore } from '../kv.js';
import type { RefreshTokenHolder, TokenBackend, TokenSet } from './tokens.js';
import { validateConfig } from './config.js';
import { loadTokenBackend } from './token-backend.js';
import { browserOnline, unreachable } from '../service/unreachable.js';
import { RefreshRetry } from './refresh-retry.js';
import type { SessionChange, SessionConfig, SessionInfo } from './types.js';
import { readSessionRecord, sessionInfoOf, sessionKeyOf, sessionRecordKey, type StoredSession } from './stored.js';

export type { RefreshTokenHolder } from './tokens.js';
export type { ConnectMode, LoginPart, SessionChange, SessionConfig, SessionInfo } from './types.js';

export { sessionKeyOf } from './stored.js';

export class SessionManager extends EventTarget {
  readonly config: Readonly<SessionConfig>;
  readonly key: string;
  readonly #holder: RefreshTokenHolder;
  readonly #store: KeyValueStore;
  readonly #channel: BroadcastChannel | undefined;
  #session: StoredSession | undefined;
  #loaded: Promise<void> | undefined;
  #refreshing: Promise<StoredSession> | undefined;
  #backend: Promise<TokenBackend> | undefined;
  /** Tries again a refresh that could not reach its server, until one works or the session ends. */
  readonly #retry = new RefreshRetry(() => this.getAccessToken());

  constructor(config: SessionConfig) {
    super();
    validateConfig(config);
    this.config = Object.freeze({ ...config });
    this.key = sessionKeyOf(config);
    this.#holder = config.refreshTokens ?? 'proxy';
    this.#store = openStore(config.storage, this.key);
    if (typeof BroadcastChannel !== 'undefined' && config.storage === 'indexeddb') {
      this.#channel = new BroadcastChannel(`esign-session:${this.key}`);
      this.#channel.onmessage = (event: MessageEvent) => void this.#onBroadcast(event.data);
    }
  }

  /** Read-only view of the current session, or undefined. */
  get session(): SessionInfo | undefined {
    return this.#session ? sessionInfoOf(this.#session) : undefined;
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

  /**
   * Keeps the tokens of a completed sign-in as the session, and tells this tab and the others. The sign-in flow
   * (sign-in/login-flow.ts) calls it once, with what the mode's sign-in part returned.
   */
  async adopt(tokens: TokenSet): Promise<SessionInfo> {
    const previous = await this.#readStored();
    const stored = this.#fromTokens(tokens, undefined, (previous?.generation ?? 0) + 1);
    await this.#save(stored);
    this.#post({ type: 'session' });
    this.#emit({ type: 'connected', session: sessionInfoOf(stored), byOtherTab: false });
    return sessionInfoOf(stored);
  }

  /** A valid access token, refreshed if it is about to expire; concurrent callers share one refresh. */
  async getAccessToken(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    await this.load();
    options.signal?.throwIfAborted();
    const current = this.#session;
    if (!current) throw new EsignError('no_session', 'Not connected: connect an account first.');
    if (!options.forceRefresh && current.accessToken && !this.#needsRefresh(current)) return current.accessToken;
    const refreshed = await this.#refresh(current, options.forceRefresh === true);
    return refreshed.accessToken!;
  }

  /** Revokes through the proxy (best effort), clears storage and tells the other tabs. */
  async disconnect(): Promise<{ revoked: boolean; error?: EsignError }> {
    await this.load();
    const current = (await this.#readStored()) ?? this.#session;
    const accessToken = this.#session?.accessToken;
    await this.#clear();
    this.#post({ type: 'disconnected' });
    this.#emit({ type: 'disconnected', reason: 'user' });
    // in the default mode the proxy's cookie may outlive what this page knows: always ask it to end the session
    if (!current && this.#holder === 'browser') return { revoked: true };
    try {
      const backend = await this.#tokens();
      await backend.revoke({ refreshToken: current?.refreshToken, accessToken: current?.accessToken ?? accessToken });
      return { revoked: true };
    } catch (cause) {
      return { revoked: false, error: EsignError.from(cause, 'revoke_failed') };
    }
  }

  close(): void {
    this.#channel?.close();
  }

  // ---- tokens ----

  /**
   * The token backend of this session's mode, loaded the first time a token is needed (a restored session shows as
   * connected from storage alone); the browser-held one is loaded only when chosen.
   */
  #tokens(): Promise<TokenBackend> {
    this.#backend ??= loadTokenBackend(this.config);
    // a failed load (e.g. offline while fetching the chunk) may be tried again
    this.#backend.catch(() => (this.#backend = undefined));
    return this.#backend;
  }

  // ---- refresh ----

  #needsRefresh(session: StoredSession): boolean {
    // a short-lived token must not look expired from the start: at most half its lifetime early
    const leewaySeconds = Math.min(this.config.refreshLeewaySeconds ?? 60, (session.lifetime ?? 3600) / 2);
    const leeway = leewaySeconds * 1000;
    return session.expiresAt - leeway <= Date.now();
  }

  #refresh(used: StoredSession, force: boolean): Promise<StoredSession> {
    this.#refreshing ??= this.#refreshAcrossTabs(used, force).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refreshAcrossTabs(used: StoredSession, force: boolean): Promise<StoredSession> {
    const run = async (): Promise<StoredSession> => {
      // inside the lock: another tab may have refreshed while we waited
      const latest = this.config.storage === 'indexeddb' ? await this.#readStored() : this.#session;
      if (!latest) {
        this.#session = undefined;
        this.#emit({ type: 'disconnected', reason: 'other-tab' });
        throw new EsignError('no_session', 'The session was ended in another tab.');
      }
      const byOtherTab = latest.generation !== used.generation;
      if (byOtherTab && this.#holder === 'browser' && latest.accessToken && !this.#needsRefresh(latest)) {
        // the browser-held mode shares its tokens through storage
        this.#session = latest;
        this.#emit({ type: 'refreshed', session: sessionInfoOf(latest), byOtherTab: true });
        return latest;
      }
      // in the default mode another tab's fresh token is the proxy's to hand out: ask without forcing a new one
      return this.#refreshNow(latest, force && !byOtherTab);
    };
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (this.config.storage === 'indexeddb' && locks) {
      return locks.request(`esign-refresh:${this.key}`, run);
    }
    return run();
  }

  async #refreshNow(current: StoredSession, force: boolean): Promise<StoredSession> {
    let tokens: TokenSet;
    try {
      const backend = await this.#tokens();
      tokens = await backend.refresh({ refreshToken: current.refreshToken, force });
    } catch (cause) {
      const error = EsignError.from(cause, 'refresh_failed');
      // a network or service failure keeps the session (the elements say what could not be reached)
      if (error.code !== 'session_expired' && error.code !== 'refresh_interrupted') {
        const hop = unreachable(error, browserOnline());
        if (hop === 'token-proxy' || hop === 'service') {
          this.#emit({ type: 'unreachable', hop });
          this.#retry.failed();
        }
        throw error;
      }
      if (this.#holder === 'browser' && current.refreshToken) {
        // another tab may have rotated the token meanwhile: adopt its session rather than logging out
        const latest = await this.#readStored();
        if (latest && latest.refreshToken !== current.refreshToken) {
          this.#session = latest;
          this.#emit({ type: 'refreshed', session: sessionInfoOf(latest), byOtherTab: true });
          return latest;
        }
      }
      await this.#expire(error.code === 'refresh_interrupted' ? 'interrupted' : undefined);
      throw error;
    }
    const stored = this.#fromTokens(tokens, current, current.generation + 1);
    await this.#save(stored);
    this.#post({ type: 'session' });
    this.#emit({ type: 'refreshed', session: sessionInfoOf(stored), byOtherTab: false });
    return stored;
  }

  /** `why`: the session ended because a refresh was interrupted (the element says so), not merely expired. */
  async #expire(why?: 'interrupted'): Promise<void> {
    await this.#clear();
    this.#post({ type: 'disconnected' });
    this.#emit(why ? { type: 'disconnected', reason: 'expired', why } : { type: 'disconnected', reason: 'expired' });
  }

  // ---- cross-tab ----

  async #onBroadcast(data: unknown): Promise<void> {
    if (typeof data !== 'object' || data === null) return;
    const type = (data as { type?: unknown }).type;
    // a message that arrives while the stored session is being read is applied once it has been read: otherwise a
    // disconnect in another tab would find no session to end yet, and the one read (from before it) would stay
    await this.load();
    if (type === 'session') {
      const had = this.#session;
      const latest = await this.#readStored();
      if (!latest) return;
      this.#session = latest;
      this.#emit(
        had ? { type: 'refreshed', session: sessionInfoOf(latest), byOtherTab: true } : { type: 'connected', session: sessionInfoOf(latest), byOtherTab: true },
      );
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
    if (change.type !== 'unreachable') this.#retry.stop();
    this.dispatchEvent(new CustomEvent<SessionChange>('change', { detail: change }));
  }

  // ---- storage ----

  /**
   * The stored session of this mode, with this window's in-memory access token when it is the same
   * session. A session of the other mode is not this one's.
   */
  async #readStored(): Promise<StoredSession | undefined> {
    const stored = await readSessionRecord(this.#store, this.key, this.#holder);
    if (!stored || this.#holder === 'browser') return stored;
    const mine = this.#session;
    const keep = mine?.accessToken && mine.connectedAt === stored.connectedAt;
    return { ...stored, accessToken: keep ? mine.accessToken : undefined, expiresAt: keep ? mine.expiresAt : 0 };
  }

  async #save(session: StoredSession): Promise<void> {
    this.#session = session;
    // in the default mode no token ever reaches storage: only what a reload needs to know a session exists
    const persisted = this.#holder === 'proxy' ? { ...session, accessToken: undefined, refreshToken: undefined, expiresAt: 0 } : session;
    await this.#store.set(sessionRecordKey(this.key), persisted);
  }

  async #clear(): Promise<void> {
    this.#session = undefined;
    await this.#store.delete(sessionRecordKey(this.key));
  }

  #fromTokens(tokens: TokenSet, previous: StoredSession | undefined, generation: number): StoredSession {
    return {
      v: 2,
      holder: this.#holder,
      accessToken: tokens.accessToken,
      // a refresh response without a new refresh token keeps the old one (RFC 6749 section 6)
      refreshToken: this.#holder === 'browser' ? (tokens.refreshToken ?? previous?.refreshToken) : undefined,
      scope: tokens.scope ?? previous?.scope ?? this.config.scope,
      spaceId: tokens.spaceId ?? previous?.spaceId ?? this.config.spaceId,
      spaceName: tokens.spaceName ?? previous?.spaceName,
      userName: tokens.userName ?? previous?.userName,
      userEmail: tokens.userEmail ?? previous?.userEmail,
      expiresAt: Date.now() + tokens.expiresIn * 1000,
      lifetime: tokens.expiresIn,
      connectedAt: previous?.connectedAt ?? Date.now(),
      generation,
    };
  }
}
