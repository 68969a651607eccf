/**
 * The browser-held mode's sign-in part (loaded by the sign-in flow with the first sign-in or callback): the attempts
 * (state and PKCE verifier, single use, swept when they expire), the authorization URL, and the checks of the
 * answer before the code is redeemed. A completed sign-in returns its tokens; the flow hands them to the manager.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { openStore, type KeyValueStore } from '../kv.js';
import { authorizationEndpointOf, issuerOf } from '../session/config.js';
import { loadTokenBackend } from '../session/token-backend.js';
import type { TokenSet } from '../session/tokens.js';
import { isCallbackMessage } from './callback-message.js';
import { createCodeChallenge, createCodeVerifier } from './pkce.js';
import { createState } from '../random.js';
import type { ConnectMode, LoginPart, SessionConfig } from '../session/types.js';

/** sessionStorage-backed store: used only to carry a redirect-mode login attempt across the round trip when storage is "memory". */
class TabStore implements KeyValueStore {
  async get<T>(key: string): Promise<T | undefined> {
    const raw = sessionStorage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }
  async set(key: string, value: unknown): Promise<void> {
    sessionStorage.setItem(key, JSON.stringify(value));
  }
  async delete(key: string): Promise<void> {
    sessionStorage.removeItem(key);
  }
}

/** A sign-in on its way, kept until its answer comes back or it expires. */
interface LoginAttempt {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  mode: ConnectMode;
  expiresAt: number;
}

/** The browser-held mode's sign-in: this page is the public PKCE client and receives the code at its own callback. */
export class LoginAttempts implements LoginPart {
  readonly #config: Readonly<SessionConfig>;
  readonly #key: string;
  /** The session's store (the same one its manager keeps the session in). */
  readonly #store: KeyValueStore;

  constructor(config: Readonly<SessionConfig>, sessionKey: string) {
    this.#config = config;
    this.#key = sessionKey;
    this.#store = openStore(config.storage, sessionKey);
  }

  /** The popup's last page is the redirect URI, which relays the answer to this page (same origin). */
  get messageOrigin(): string {
    return new URL(this.#config.redirectUri).origin;
  }

  async begin(mode: ConnectMode): Promise<{ url: string; state: string }> {
    const config = this.#config;
    const codeVerifier = createCodeVerifier();
    const state = createState();
    const challenge = await createCodeChallenge(codeVerifier);
    const ttl = (config.attemptTtlSeconds ?? 600) * 1000;
    const attempt: LoginAttempt = { state, codeVerifier, redirectUri: config.redirectUri, mode, expiresAt: Date.now() + ttl };
    await this.#attemptStore(mode).set(this.#attemptKey(state), attempt);
    void this.#sweep(state);
    const url = new URL(authorizationEndpointOf(config));
    const params: Record<string, string> = {
      client_id: config.clientId,
      response_type: 'code',
      redirect_uri: config.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: config.scope,
    };
    if (config.spaceId) params['space_id'] = config.spaceId;
    if (config.loginHint) params['login_hint'] = config.loginHint;
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { url: url.href, state };
  }

  async abandon(state: string): Promise<void> {
    const key = this.#attemptKey(state);
    await Promise.all([this.#store.delete(key), this.#usesTabStore() ? new TabStore().delete(key) : undefined]);
  }

  async find(state: string): Promise<{ mode: ConnectMode } | undefined> {
    const attempt = await this.#read(state);
    return attempt ? { mode: attempt.mode } : undefined;
  }

  async complete(params: URLSearchParams): Promise<TokenSet> {
    const state = params.get('state');
    if (!state) throw new EsignError('state_mismatch', 'The authorization response has no state parameter.');
    const attempt = await this.#read(state);
    // single use: forget it before anything else can fail
    await this.abandon(state);
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
    // RFC 9207: an `iss` in the answer must name the service this attempt went to
    const iss = params.get('iss');
    if (iss !== null && iss !== issuerOf(this.#config)) {
      throw new EsignError('oauth_error', 'The authorization response comes from another issuer than the one this sign-in went to.');
    }
    const backend = await loadTokenBackend(this.#config);
    if (!backend.exchange) throw new EsignError('invalid_config', 'This session mode redeems no code in the page.');
    return backend.exchange({ params, redirectUri: attempt.redirectUri, codeVerifier: attempt.codeVerifier });
  }

  async accept(message: unknown, expectedState: string): Promise<TokenSet | undefined> {
    // matched by the unguessable, single-use state: the relaying page may be configured without space-id
    if (!isCallbackMessage(message)) return undefined;
    const params = new URLSearchParams(message.params);
    if (params.get('state') !== expectedState) return undefined;
    return this.complete(params);
  }

  #attemptKey(state: string): string {
    return `${this.#key}|attempt|${state}`;
  }

  /** With `storage="memory"`, a redirect's attempt must survive the round trip: this tab's sessionStorage. */
  #usesTabStore(): boolean {
    return this.#config.storage === 'memory' && typeof sessionStorage !== 'undefined';
  }

  #attemptStore(mode: ConnectMode): KeyValueStore {
    return mode === 'redirect' && this.#usesTabStore() ? new TabStore() : this.#store;
  }

  async #read(state: string): Promise<LoginAttempt | undefined> {
    const key = this.#attemptKey(state);
    const stored = await this.#store.get<LoginAttempt>(key);
    if (stored) return stored;
    return this.#usesTabStore() ? new TabStore().get<LoginAttempt>(key) : undefined;
  }

  /** Drops attempts that expired without coming back, so storage does not grow. */
  async #sweep(keep: string): Promise<void> {
    const indexKey = `${this.#key}|attempts`;
    const states = ((await this.#store.get<Array<[string, number]>>(indexKey)) ?? []).filter(([state]) => state !== keep);
    const now = Date.now();
    const live: Array<[string, number]> = [];
    for (const [state, expiresAt] of states) {
      if (expiresAt < now) await this.#store.delete(this.#attemptKey(state));
      else live.push([state, expiresAt]);
    }
    live.push([keep, now + (this.#config.attemptTtlSeconds ?? 600) * 1000]);
    await this.#store.set(indexKey, live.slice(-20));
  }
}
