/**
 * The page's part of the default mode's sign-in (RFC 10017 token-mediating backend): the popup, or this tab, goes to
 * the token proxy's login route; the proxy runs OAuth with PKCE itself and receives the code at its own callback, so
 * this page never holds a code, a verifier or a refresh token. What comes back is an outcome with no secret in it: a
 * message from the proxy's done page (or, when the consent page severed `window.opener`, a BroadcastChannel message or
 * nothing at all), or this page loaded again with `esign_login`, `esign_outcome` and `esign_error`. On "connected",
 * the first access token comes from the proxy's token route, as after a reload.
 *
 * Loaded by the sign-in flow with the first sign-in (or on a page that comes back from one) in the default mode; it
 * returns the first tokens, which the flow hands to the session manager.
 */
import { EsignError, type EsignErrorCode, popupClosed } from '@esign-elements/shared/errors';
import { createState } from '../random.js';
import { loginEndpointOf } from '../session/config.js';
import { loadTokenBackend } from '../session/token-backend.js';
import type { TokenSet } from '../session/tokens.js';
import type { ConnectMode, LoginPart, SessionConfig } from '../session/types.js';
import { proxySlot } from '../session/proxy-tokens.js';
import { postForm } from '../session/tokens.js';
import { framedBy } from './framing.js';

/** The proxy's done page says this (docs/proxy.md): no secret, only the page's own attempt id and the outcome. */
export interface ProxyLoginMessage {
  source: 'esign-token-proxy';
  type: 'login';
  attempt: string;
  outcome: 'connected' | 'error';
  error?: string;
}

interface KeptAttempt {
  attempt: string;
  mode: ConnectMode;
  expiresAt: number;
  /** This page is inside another site's frame: the session comes through the proxy's one-time handoff. */
  framed?: boolean;
}

/** The outcome codes of the proxy (login.ts there) and what the page calls each. */
const OUTCOMES: Record<string, [code: EsignErrorCode, message: string]> = {
  access_denied: ['access_denied', 'The user declined to connect the account.'],
  state_mismatch: ['state_mismatch', 'This sign-in does not match one started here, or it was already used. Start again.'],
  login_expired: ['login_expired', 'The sign-in took too long and expired. Start again.'],
  token_exchange_failed: ['token_exchange_failed', 'The service did not accept the sign-in. Start again.'],
  invalid_issuer: ['oauth_error', 'The authorization answer came from another issuer than the one this sign-in went to.'],
  space_mismatch: ['oauth_error', 'The service connected another Space than the one requested.'],
  temporarily_unavailable: ['network_error', 'The sign-in service is not reachable right now. Try again in a moment.'],
  rate_limited: ['rate_limited', 'Too many sign-ins from here; try again in a minute.'],
  framing_not_allowed: ['framing_not_allowed', "The token proxy is not set up for pages inside another site's frame (--framed-by)."],
  invalid_request: ['invalid_config', 'The token proxy refused this sign-in request (check space-id, login-hint and scope).'],
};

export class ProxyLogin implements LoginPart {
  readonly #config: Readonly<SessionConfig>;
  readonly #key: string;
  /** The token proxy's login route, where the sign-in starts. */
  readonly #loginEndpoint: string;
  /** Popup attempts of this window (memory); a redirect's attempt is in this tab's sessionStorage to survive the round trip. */
  readonly #attempts = new Map<string, KeptAttempt>();

  constructor(config: Readonly<SessionConfig>, sessionKey: string) {
    this.#config = config;
    this.#key = sessionKey;
    this.#loginEndpoint = loginEndpointOf(config);
  }

  /** Messages count from the proxy's origin only (its done page). */
  get messageOrigin(): string {
    return new URL(this.#loginEndpoint).origin;
  }

  async begin(mode: ConnectMode): Promise<{ url: string; state: string }> {
    const config = this.#config;
    const attempt = createState();
    const kept: KeptAttempt = { attempt, mode, expiresAt: Date.now() + (config.attemptTtlSeconds ?? 600) * 1000 };
    const url = new URL(this.#loginEndpoint);
    const params: Record<string, string> = {
      session: proxySlot(config.spaceId),
      client_id: config.clientId,
      origin: location.origin,
      display: mode === 'popup' ? 'popup' : 'page',
      attempt,
      scope: config.scope,
    };
    if (mode === 'redirect') {
      params['return'] = location.href.split('#')[0]!;
      sessionStorage.setItem(this.#storageKey(), JSON.stringify(kept));
    } else {
      this.#attempts.set(attempt, kept);
    }
    if (config.spaceId) params['space_id'] = config.spaceId;
    if (config.loginHint) params['login_hint'] = config.loginHint;
    // inside another site's frame this page's cookies are the frame's own (partitioned): the popup's sign-in is handed
    // to them through the proxy (docs/guides/inside-another-sites-frame.md)
    const framing = mode === 'popup' ? await framedBy() : undefined;
    if (framing) {
      try {
        params['handoff'] = await this.#handoff(attempt, framing.top);
      } catch (error) {
        this.#attempts.delete(attempt);
        throw error;
      }
      kept.framed = true;
    }
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { url: url.href, state: attempt };
  }

  async abandon(state: string): Promise<void> {
    this.#attempts.delete(state);
    if (this.#stored()?.attempt === state) sessionStorage.removeItem(this.#storageKey());
  }

  async find(state: string): Promise<{ mode: ConnectMode } | undefined> {
    const kept = this.#attempts.get(state) ?? (this.#stored()?.attempt === state ? this.#stored() : undefined);
    return kept ? { mode: kept.mode } : undefined;
  }

  /** The outcome (`attempt`, `outcome`, `error`) of one of this window's attempts: the first tokens, or its EsignError. */
  async complete(params: URLSearchParams): Promise<TokenSet> {
    const attempt = params.get('attempt') ?? '';
    const kept = this.#attempts.get(attempt) ?? (this.#stored()?.attempt === attempt ? this.#stored() : undefined);
    // single use: forget it before anything else can fail
    await this.abandon(attempt);
    if (!kept) throw new EsignError('state_mismatch', OUTCOMES['state_mismatch']![1]);
    if (params.get('outcome') !== 'connected') {
      const error = params.get('error') ?? 'oauth_error';
      if (error === 'cookie_blocked') throw this.#cookieBlocked();
      if (error === 'origin_not_allowed' || error === 'public_origin_mismatch') throw this.#refused(error);
      const [code, message]: [EsignErrorCode, string] = OUTCOMES[error] ?? ['oauth_error', `The sign-in did not complete (${error.slice(0, 64)}).`];
      throw new EsignError(code, message, { serviceCode: error.slice(0, 64) });
    }
    if (kept.framed)
      await this.#claim(
        attempt,
        () => new EsignError('state_mismatch', 'The sign-in could not be handed to this page (it was used already, or it expired). Start again.'),
      );
    return this.#firstToken();
  }

  async accept(message: unknown, expectedState: string): Promise<TokenSet | undefined> {
    if (!isProxyLoginMessage(message) || message.attempt !== expectedState) return undefined;
    return this.complete(new URLSearchParams({ attempt: message.attempt, outcome: message.outcome, ...(message.error ? { error: message.error } : {}) }));
  }

  /**
   * The popup closed with no outcome heard (the consent page may have severed `window.opener`, and the proxy may be on
   * another origin of this site): the proxy knows whether the sign-in finished, so ask it for a token once.
   */
  async afterClose(state: string): Promise<TokenSet> {
    const kept = this.#attempts.get(state);
    if (!kept) throw popupClosed();
    await this.abandon(state);
    try {
      // a popup closed before its sign-in finished has nothing to hand over
      if (kept.framed) await this.#claim(state, popupClosed);
      // only a session this attempt made counts: an older one of the slot is no answer to this sign-in
      return await this.#firstToken(state);
    } catch (error) {
      if (error instanceof EsignError && error.code === 'cookie_blocked') throw popupClosed();
      throw error;
    }
  }

  /**
   * What the proxy's status route says of one of this window's popup attempts (docs/proxy.md): bound to this browser's
   * cookies, it holds no secret. A proxy without the route, or one that refuses the question, is `unknown` (the last
   * look of `afterClose` follows); a network failure is `pending` (asked again).
   */
  async status(state: string): Promise<TokenSet | 'pending' | 'unknown'> {
    if (!this.#attempts.has(state)) return 'unknown';
    let body: Record<string, unknown>;
    try {
      body = await postForm(
        this.#routeUrl('status'),
        'token_exchange_failed',
        new URLSearchParams({ attempt: state, session: proxySlot(this.#config.spaceId), client_id: this.#config.clientId }),
      );
    } catch (cause) {
      return EsignError.from(cause, 'token_exchange_failed').code === 'network_error' ? 'pending' : 'unknown';
    }
    if (body['attempt'] !== state) return 'unknown';
    const outcome = body['status'];
    if (outcome === 'connected' || outcome === 'error') {
      const params = new URLSearchParams({ attempt: state, outcome });
      if (typeof body['error'] === 'string') params.set('error', body['error']);
      return this.complete(params);
    }
    return outcome === 'pending' ? 'pending' : 'unknown';
  }

  /**
   * A framed page's handoff (the proxy's `POST {basePath}/login/handoff`): a partitioned cookie for this attempt and the
   * ticket its popup carries. A proxy not set up for framed pages (or one older than the route) is `framing_not_allowed`.
   */
  async #handoff(attempt: string, top: string | undefined): Promise<string> {
    const form = new URLSearchParams({ attempt, session: proxySlot(this.#config.spaceId), client_id: this.#config.clientId });
    if (top) form.set('top', top);
    try {
      const body = await postForm(this.#routeUrl('handoff'), 'token_exchange_failed', form);
      if (typeof body['handoff'] === 'string' && body['attempt'] === attempt) {
        // the handoff cookie must come back, or the sign-in could never reach this frame: say so now, not after consent
        const kept = await postForm(this.#routeUrl('status'), 'token_exchange_failed', form);
        if (kept['status'] !== 'ready') throw this.#partitionedBlocked();
        return body['handoff'];
      }
    } catch (cause) {
      if (cause instanceof EsignError && cause.code === 'cookie_blocked') throw cause;
      const error = EsignError.from(cause, 'token_exchange_failed');
      if (error.serviceCode !== 'framing_not_allowed' && error.status !== 404) throw error;
      const site = top ?? "the framing site's origin";
      throw new EsignError(
        'framing_not_allowed',
        `This page is shown inside another site's frame, and the token proxy at ${this.messageOrigin} is not set up for it, so a sign-in ` +
          `could never reach this page. Start the proxy with --framed-by ${site} (framedBy, ESIGN_FRAMED_BY).`,
        { status: error.status, serviceCode: 'framing_not_allowed', cause: error },
      );
    }
    throw new EsignError('token_exchange_failed', 'The token proxy gave an unexpected answer to the framed sign-in.');
  }

  /** A framed page claims its popup's sign-in once (the status route, with this frame's handoff cookie); `otherwise` when there is none. */
  async #claim(attempt: string, otherwise: () => EsignError): Promise<void> {
    const form = new URLSearchParams({ attempt, session: proxySlot(this.#config.spaceId), client_id: this.#config.clientId });
    const body = await postForm(this.#routeUrl('status'), 'token_exchange_failed', form);
    if (body['attempt'] === attempt && body['status'] === 'connected') return;
    if (body['status'] === 'error' && typeof body['error'] === 'string') {
      const [code, message] = OUTCOMES[body['error']] ?? ['oauth_error', 'The sign-in did not complete.'];
      throw new EsignError(code, message, { serviceCode: body['error'].slice(0, 64) });
    }
    throw otherwise();
  }

  /** A route beside the login route (`{basePath}/login/<name>`). */
  #routeUrl(name: string): string {
    const url = new URL(this.#loginEndpoint);
    url.pathname = url.pathname.replace(/\/?$/, `/${name}`);
    url.search = '';
    return url.href;
  }

  /** The first access token of the new session, from the proxy's cookie; a cookie that does not come back is `cookie_blocked`. */
  async #firstToken(madeBy?: string): Promise<TokenSet> {
    const backend = await loadTokenBackend(this.#config);
    try {
      const tokens = await backend.refresh({ force: false });
      if (madeBy !== undefined && tokens.loginAttempt !== madeBy) throw popupClosed();
      return tokens;
    } catch (cause) {
      const error = EsignError.from(cause, 'token_exchange_failed');
      if (error.code === 'session_expired' && error.serviceCode === 'session_missing') throw this.#cookieBlocked(error);
      throw error;
    }
  }

  #cookieBlocked(cause?: EsignError): EsignError {
    return new EsignError(
      'cookie_blocked',
      `The token proxy at ${this.messageOrigin} keeps the session in a cookie, and this browser does not send it back ` +
        '(the proxy is on another site than this page, and the browser blocks third-party cookies). Serve the token proxy from this ' +
        'page\'s own site (for example under /api/esign/ of the same domain), or opt into refresh-tokens="browser".',
      { ...(cause ? { status: cause.status, serviceCode: cause.serviceCode, cause } : { serviceCode: 'cookie_blocked' }) },
    );
  }

  /** Inside another site's frame, the proxy's partitioned cookie did not come back (the browser keeps none there). */
  #partitionedBlocked(): EsignError {
    return new EsignError(
      'cookie_blocked',
      `This page is inside another site's frame, and this browser does not send the token proxy at ${this.messageOrigin} its ` +
        'partitioned cookie back there (it blocks cookies in frames of other sites, or needs https for them), so a sign-in could ' +
        'never reach this page. Open the page on its own.',
      { serviceCode: 'cookie_blocked' },
    );
  }

  /** The login route's refusal of this page's origin, naming the proxy's setting to change. */
  #refused(reason: 'origin_not_allowed' | 'public_origin_mismatch'): EsignError {
    const page = location.origin;
    const message =
      reason === 'public_origin_mismatch'
        ? `The token proxy was reached through this page's origin (${page}), but its public origin is another. ` +
          `Start it with --public-origin ${page} (publicOrigin), and register ${new URL('callback', this.#loginEndpoint).href} at the service.`
        : `The token proxy at ${this.messageOrigin} does not accept sign-ins from ${page}. Start it with --allowed-origin ${page} (allowedOrigins).`;
    return new EsignError('origin_not_allowed', message, { status: 403, serviceCode: reason });
  }

  #storageKey(): string {
    return `esign-login|${this.#key}`;
  }

  #stored(): KeptAttempt | undefined {
    try {
      const kept = JSON.parse(sessionStorage.getItem(this.#storageKey()) ?? 'null') as KeptAttempt | null;
      return kept && kept.expiresAt > Date.now() ? kept : undefined;
    } catch {
      return undefined;
    }
  }
}

export function isProxyLoginMessage(value: unknown): value is ProxyLoginMessage {
  const m = value as ProxyLoginMessage | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.source === 'esign-token-proxy' &&
    m.type === 'login' &&
    typeof m.attempt === 'string' &&
    (m.outcome === 'connected' || m.outcome === 'error')
  );
}
