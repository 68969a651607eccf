import { html, nothing, type PropertyValues, type PropertyDeclarations } from 'lit';
import { EsignError } from '../../core/errors.js';
import type { PendingLogin } from '../../core/sign-in/login-flow.js';
import type { ConnectMode, SessionChange, SessionConfig, RefreshTokenHolder, SessionInfo, SessionManager } from '../../core/session/session-manager.js';
import { peekSession } from '../../core/session/stored.js';
import type { StorageKind } from '../../core/kv.js';
import { connectMessages } from './esign-connect.messages.js';
import { emit } from '../shared/events.js';
import { LocalizeController } from '../shared/localize.js';
import { answerSessionRequests, type SessionProvider } from '../shared/session-context.js';
import { icon, alertIcon, checkIcon, linkIcon } from '../shared/icons.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { OnlineController } from '../shared/online.js';
import { openPopup } from '../shared/popup.js';
import { LazyPart } from '../shared/lazy.js';
import { connectStyles } from './esign-connect.styles.js';
import { EsignElement } from '../shared/element.js';

export type ConnectStatus = 'idle' | 'connecting' | 'connected' | 'error';

const DEFAULT_SCOPE = 'envelope:create envelope:read';
const POPUP_FEATURES = 'popup,width=520,height=720';

/**
 * Whether this document was loaded back from a sign-in: the token proxy's outcome (`esign_login` with `esign_outcome`)
 * or a browser-held authorization callback (`state` with `code` or `error`); the login flow reads it (the same check
 * stands in login-flow.ts).
 */
const isCallbackPage = (): boolean => {
  const query = new URLSearchParams(location.search);
  return (query.has('esign_login') && query.has('esign_outcome')) || (query.has('state') && (query.has('code') || query.has('error')));
};

/**
 * Connects the user's e-signature account and shares the session with the other esign elements (nested inside it,
 * or naming it with `connect="ID"`).
 *
 * By default (`refresh-tokens="proxy"`, RFC 10017 token-mediating backend) the popup, or this tab with
 * `mode="redirect"`, goes to your token proxy's login route: the proxy runs OAuth 2.0 with PKCE (S256) itself and
 * receives the code at its own callback, so this page never holds a code, a verifier or a refresh token; it asks the
 * proxy for short-lived access tokens. Needs: `token-endpoint` (and the proxy on this page's site). With
 * `refresh-tokens="browser"` (opt-in, for a proxy on another site) the page is the public PKCE client: it needs
 * `redirect-uri` (registered at the service), and this element on that page completes the sign-in there.
 *
 * @summary Connect an e-signature account.
 *
 * @fires esign-connected - A session is available: just authorized, or restored from storage or another tab. `detail: {session, restored}`.
 * @fires esign-disconnected - The session ended: the user disconnected, it expired or was revoked, or another tab disconnected. `detail: {reason}`.
 * @fires esign-session-refreshed - The access token was renewed, here or by another tab. `detail: {session, byOtherTab}`.
 * @fires esign-error - Something failed; `detail.error` is an `EsignError` with a stable `code` (`popup_blocked`, `popup_closed`, `access_denied`, `state_mismatch`, `token_exchange_failed`, `cookie_blocked`, `session_expired`, `invalid_config`, …).
 *
 * @slot - Elements that use this session (an `<esign-uploader>`, `<esign-signing-frame>`, …).
 * @slot connected - Replaces the "connected" text, e.g. with your own account badge.
 *
 * @csspart bar - The row that holds the status and the button.
 * @csspart button - The connect / disconnect / retry button.
 * @csspart status - The text that says who is connected, and to which Space.
 * @csspart account - The connected person's name (or email).
 * @csspart space - The connected Space's name.
 * @csspart error - The error message.
 * @csspart fallback - The "continue in this tab" button offered when a popup is blocked.
 * @csspart offline - The note shown while the browser is offline.
 *
 * @cssstate idle - Not connected (`status` idle; the same for each state below).
 * @cssstate connecting - A sign-in or a restore is on its way.
 * @cssstate connected - A session is available.
 * @cssstate error - Something failed; `error` says what.
 *
 */
export class EsignConnect extends EsignElement implements SessionProvider {
  static override properties: PropertyDeclarations = {
    clientId: { attribute: 'client-id', reflect: true },
    baseUrl: { attribute: 'base-url', reflect: true },
    tokenEndpoint: { attribute: 'token-endpoint', reflect: true },
    revocationEndpoint: { attribute: 'revocation-endpoint' },
    loginEndpoint: { attribute: 'login-endpoint' },
    authorizationEndpoint: { attribute: 'authorization-endpoint' },
    issuer: {},
    refreshTokens: { attribute: 'refresh-tokens' },
    redirectUri: { attribute: 'redirect-uri' },
    scope: {},
    spaceId: { attribute: 'space-id' },
    loginHint: { attribute: 'login-hint' },
    mode: {},
    storage: {},
    operatorUserId: { attribute: 'operator-user-id' },
    _status: { state: true, attribute: false },
    _error: { state: true, attribute: false },
    _popupBlocked: { state: true, attribute: false },
    _notice: { state: true, attribute: false },
  };

  static override styles = [
    buttonStyles,
    visuallyHiddenStyles,
    connectStyles,
  ];

  /** The OAuth client_id of your app, from the service console. */
  clientId = '';

  /** The service base URL (e.g. the production domain, or the emulator's `http://127.0.0.1:4010`). `/openapi/v1/...` is appended. */
  baseUrl = '';

  /** URL of your token proxy's token route (it holds the client_secret). Relative URLs resolve against the page. */
  tokenEndpoint = '';

  /** URL of your token proxy's revocation route. Default: `revoke` beside `token-endpoint`. */
  revocationEndpoint = '';

  /** Default mode: URL of your token proxy's login route, where the sign-in starts. Default: `login` beside `token-endpoint`. */
  loginEndpoint = '';

  /** The service's authorization page, for a service whose endpoints differ from the spec's. Default: `${base-url}/openapi/v1/oauth/auth`. */
  authorizationEndpoint = '';

  /** The authorization server's issuer identifier, for a server whose issuer is not `base-url` (an `iss` in its answer must equal it exactly, RFC 9207). Default: `base-url`. */
  issuer = '';

  /**
   * Who holds the refresh token. `proxy` (default): your token proxy keeps it in an encrypted HttpOnly
   * cookie and the page holds short-lived access tokens in memory only (RFC 10017 token-mediating
   * backend); the proxy must be served from this page's site. `browser`: opt-in for a proxy on another
   * site; the page keeps both tokens (in `storage`), readable by any script on the page. The proxy
   * must allow it (`browserHeldRefreshTokens`).
   */
  refreshTokens: RefreshTokenHolder = 'proxy';

  /**
   * Browser-held mode only: where the service sends the user back with the code; must be registered exactly. Default:
   * this page without query or fragment. (The default mode's redirect URI is the token proxy's own callback.)
   */
  redirectUri = '';

  /** Space-separated scopes to request. */
  scope = DEFAULT_SCOPE;

  /** Designated Space Mode: the Space to connect (no Space choice on the consent page). Use with `login-hint`. */
  spaceId = '';

  /** Designated Space Mode: the email of the user expected to log in. */
  loginHint = '';

  /** `popup` (default: the consent page opens in a popup) or `redirect` (this tab goes to the consent page and comes back). */
  mode: ConnectMode = 'popup';

  /** `indexeddb` (default: the session survives reloads and is shared by tabs) or `memory` (nothing kept on disk). */
  storage: StorageKind = 'indexeddb';

  /** A member user id to send as X-Operator-User-Id on business calls (needed for envelope operations). */
  operatorUserId: string | undefined = undefined;

  /** Where the element is in the flow: `idle`, `connecting`, `connected` or `error`. */
  get status(): ConnectStatus {
    return this._status;
  }

  /** @internal The status (reactive state). */
  private _status: ConnectStatus = 'idle';

  /** The last error, while in the `error` status. */
  get error(): EsignError | undefined {
    return this._error;
  }

  /** @internal The last error (reactive state). */
  private _error: EsignError | undefined;
  /** @internal The browser blocked the login popup (reactive state). */
  private _popupBlocked = false;
  /** @internal A term key of connectMessages shown beside the button, or '' (reactive state). */
  private _notice: '' | 'signedInClose' | 'sessionExpired' = '';

  readonly #t = new LocalizeController(this, connectMessages);

  readonly #network = new OnlineController(this, (online) => {
    // back online: a failure that was only the network is over
    if (online && this.status === 'error' && this._error?.code === 'network_error') {
      this._error = undefined;
      this._status = this.session ? 'connected' : 'idle';
      // the session manager's code could not be loaded: try again
      if (this.#managerPart.status === 'failed' && this.isConnected) void this.#ready();
    }
  });

  constructor() {
    super();
    // offers this element as the session of the elements inside it (context)
    answerSessionRequests(this);
  }

  /** The session manager: loaded as the element starts, without holding up its first state (reported as a setup error). */
  readonly #managerPart = new LazyPart(this, () => import('../../core/session/session-manager.js'), undefined, false);
  /** The sign-in: loaded by a pointer or the focus on Connect, a click (after the window opened), or a callback page. */
  readonly #signIn = new LazyPart(this, () => import('../../core/sign-in/login-flow.js'), undefined, false);
  readonly #preloadSignIn = (): void => void this.#signIn.load().catch(() => undefined);

  #manager: SessionManager | undefined;
  /** The configuration (JSON) of the manager that is, or is being, set up. */
  #managerKey = '';
  /** Its setup, while under way and once done. */
  #starting: Promise<SessionManager | undefined> | undefined;
  /** The stored session read as the element starts, shown until the manager has loaded its own. */
  #peeked: SessionInfo | undefined;
  /** The sign-in on its way (login flow), while `connecting` from a click. */
  #pending: PendingLogin | undefined;

  /** The current session (scope, Space id, expiry), never a token; undefined when not connected. */
  get session(): SessionInfo | undefined {
    return this.#manager?.session ?? this.#peeked;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#init();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#pending?.cancel(new EsignError('aborted', 'The element was removed.'));
    this.#pending = undefined;
    this.#drop();
  }

  /** Lets go of the manager (and of a setup under way: it sees the key change and stops). */
  #drop(): void {
    this.#manager?.removeEventListener('change', this.#onChange);
    this.#manager?.close();
    this.#manager = undefined;
    this.#managerKey = '';
    this.#starting = undefined;
    this.#peeked = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const configKeys = [
      'clientId',
      'baseUrl',
      'tokenEndpoint',
      'revocationEndpoint',
      'loginEndpoint',
      'authorizationEndpoint',
      'issuer',
      'redirectUri',
      'scope',
      'spaceId',
      'loginHint',
      'storage',
      'mode',
      'refreshTokens',
    ] as const;
    if (this.isConnected && this.hasUpdated && configKeys.some((key) => changed.has(key))) void this.#init();
  }

  /**
   * Starts the sign-in. Call it from a user gesture (a click) so the popup is allowed.
   * Resolves with the session, or rejects with an EsignError (also sent as `esign-error`).
   */
  connect(options: { mode?: ConnectMode } = {}): Promise<SessionInfo> {
    const mode = options.mode ?? this.mode;
    // a configuration the element already refused opens no window: the same error, visible as it is
    if (this._error?.code === 'invalid_config') return Promise.reject(this.#fail(this._error));
    // the popup must open synchronously in the click, before any await (even the login flow's module), or browsers block it
    const popup = mode === 'popup' ? openPopup('esign-connect', POPUP_FEATURES) : null;
    this.#pending?.cancel(new EsignError('aborted', 'A new sign-in was started.'));
    this.#pending = undefined;
    this._popupBlocked = false;
    this._notice = '';
    if (mode === 'popup' && !popup) {
      this._popupBlocked = true;
      return Promise.reject(this.#fail(new EsignError('popup_blocked', 'The browser blocked the sign-in window. Allow popups for this site, or continue in this tab.')));
    }
    if (popup) writeWaitingPage(popup);
    this._status = 'connecting';
    this._error = undefined;
    return this.#login(mode, popup).catch((error: unknown) => {
      throw this.#fail(EsignError.from(error, 'oauth_error'));
    });
  }

  /** Ends the session: revokes it at the service through your proxy, clears storage and tells the other tabs. */
  async disconnect(): Promise<void> {
    const manager = await this.#ready();
    if (!manager) return;
    const result = await manager.disconnect();
    if (result.error) emit(this, 'esign-error', { error: result.error });
  }

  /** A valid access token for business calls, refreshed if it is about to expire. Rejects with `no_session` when not connected. */
  async getAccessToken(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const manager = await this.#ready();
    if (!manager) throw this._error ?? new EsignError('no_session', 'Not connected: connect an account first.');
    return manager.getAccessToken(options);
  }

  /** Cancels a sign-in in progress (closes the popup). */
  cancel(): void {
    this.#pending?.cancel(new EsignError('aborted', 'The sign-in was cancelled.'));
  }

  // ---- setup ----

  #readyPromise: Promise<SessionManager | undefined> = Promise.resolve(undefined);

  /** The manager once set up; when its code could not be loaded, this loads it again (Try again, a token asked for). */
  #ready(): Promise<SessionManager | undefined> {
    if (this.#managerPart.status === 'failed' && this.isConnected) return this.#init();
    return this.#readyPromise;
  }

  #init(): Promise<SessionManager | undefined> {
    this.#readyPromise = this.#setup().catch((error: unknown) => {
      this.#fail(EsignError.from(error, 'invalid_config'));
      return undefined;
    });
    return this.#readyPromise;
  }

  async #setup(): Promise<SessionManager | undefined> {
    const config = this.#config();
    const key = JSON.stringify(config);
    if (this.#starting && key === this.#managerKey) {
      const manager = await this.#starting;
      // a corrected attribute clears the configuration error it caused
      if (manager && manager === this.#manager && this._error?.code === 'invalid_config') {
        this._error = undefined;
        this._status = manager.session ? 'connected' : 'idle';
      }
      return manager;
    }
    if (this._error?.code === 'invalid_config') this._error = undefined;
    if (this.status === 'error') this._status = 'idle';
    this.#drop();
    this.#managerKey = key;
    const starting = this.#start(config, key);
    this.#starting = starting;
    // a failed setup (bad settings, the manager's code not loaded) is tried again by the next one
    starting.catch(() => {
      if (this.#starting === starting) this.#drop();
    });
    return starting;
  }

  /**
   * The first state from storage alone (a returning user sees "connected" at once), then the session manager,
   * whose code loads meanwhile, takes over. Returns undefined when another setup replaced this one.
   */
  async #start(config: SessionConfig, key: string): Promise<SessionManager | undefined> {
    const part = this.#managerPart.load();
    // an unhandled rejection would be reported before the await below sees it
    part.catch(() => undefined);
    const callback = isCallbackPage();
    if (!callback) {
      const peeked = await peekSession(config);
      if (key !== this.#managerKey) return undefined;
      this.#peeked = peeked;
      if (peeked && this.status === 'idle') this._status = 'connected';
    }
    const SessionManagerClass = (await part).SessionManager;
    if (key !== this.#managerKey) return undefined;
    const manager = new SessionManagerClass(config);
    this.#manager = manager;
    manager.addEventListener('change', this.#onChange);
    await manager.load();
    if (manager !== this.#manager) return manager;
    this.#peeked = undefined;
    if (callback && (await this.#handleCallback(manager))) return manager;
    const session = manager.session;
    if (session) {
      this._status = 'connected';
      emit(this, 'esign-connected', { session, restored: true });
    } else if (this.status === 'connected') {
      // the stored record showed a session that ended before the manager read it: another page disconnected (or it
      // expired there) while this page's manager was still loading, so its broadcast found no one listening. Told
      // like any other end of a session: a status change always comes with its event
      this._status = 'idle';
      emit(this, 'esign-disconnected', { reason: 'other-tab' });
    }
    return manager;
  }

  #config(): SessionConfig {
    const resolve = (value: string, name: string): string => {
      if (!value) throw new EsignError('invalid_config', `${name} is required.`);
      try {
        return new URL(value, document.baseURI).href;
      } catch {
        throw new EsignError('invalid_config', `${name} is not a valid URL: ${value}`);
      }
    };
    if (this.mode !== 'popup' && this.mode !== 'redirect') {
      throw new EsignError('invalid_config', `mode must be "popup" or "redirect", not "${String(this.mode)}".`);
    }
    const here = new URL(location.href);
    here.search = '';
    here.hash = '';
    const config: SessionConfig = {
      clientId: this.clientId,
      baseUrl: resolve(this.baseUrl, 'base-url'),
      tokenEndpoint: resolve(this.tokenEndpoint, 'token-endpoint'),
      redirectUri: this.redirectUri ? resolve(this.redirectUri, 'redirect-uri') : here.href,
      scope: this.scope || DEFAULT_SCOPE,
      storage: this.storage,
      refreshTokens: this.refreshTokens,
    };
    if (this.revocationEndpoint) config.revocationEndpoint = resolve(this.revocationEndpoint, 'revocation-endpoint');
    if (this.loginEndpoint) config.loginEndpoint = resolve(this.loginEndpoint, 'login-endpoint');
    if (this.authorizationEndpoint) config.authorizationEndpoint = resolve(this.authorizationEndpoint, 'authorization-endpoint');
    // compared exactly, as the server states it (a trailing slash is part of an issuer)
    if (this.issuer) config.issuer = this.issuer;
    if (this.spaceId) config.spaceId = this.spaceId;
    if (this.loginHint) config.loginHint = this.loginHint;
    return config;
  }

  /** Completes or relays the callback this page was loaded with (login flow). Returns true when it was ours. */
  async #handleCallback(manager: SessionManager): Promise<boolean> {
    this._status = 'connecting';
    try {
      const { handlePageCallback } = await this.#signIn.load();
      const outcome = await handlePageCallback(manager);
      if (outcome === 'relayed') this._notice = 'signedInClose';
      else if (outcome === 'not-ours') this._status = manager.session ? 'connected' : 'idle';
      return outcome !== 'not-ours';
    } catch (error) {
      this.#fail(EsignError.from(error, 'oauth_error'));
      return true;
    }
  }

  /** Runs a sign-in through the login flow (loaded now, after the popup opened); the manager's change event says the rest. */
  async #login(mode: ConnectMode, popup: Window | null): Promise<SessionInfo> {
    const manager = await this.#ready();
    if (!manager) {
      popup?.close();
      throw this._error ?? new EsignError('invalid_config', 'esign-connect is not configured.');
    }
    let pending: PendingLogin;
    try {
      const { startLogin } = await this.#signIn.load();
      pending = await startLogin(manager, mode, popup);
    } catch (error) {
      popup?.close();
      throw error;
    }
    this.#pending = pending;
    this.requestUpdate();
    try {
      return await pending.done;
    } finally {
      if (this.#pending === pending) this.#pending = undefined;
    }
  }

  readonly #onChange = (event: Event): void => {
    const change = (event as CustomEvent<SessionChange>).detail;
    switch (change.type) {
      case 'connected':
        this._status = 'connected';
        this._error = undefined;
        emit(this, 'esign-connected', { session: change.session, restored: change.byOtherTab });
        break;
      case 'refreshed':
        if (this.status !== 'connected') {
          this._status = 'connected';
          emit(this, 'esign-connected', { session: change.session, restored: true });
        }
        emit(this, 'esign-session-refreshed', { session: change.session, byOtherTab: change.byOtherTab });
        break;
      case 'disconnected':
        this._status = 'idle';
        this._notice = change.reason === 'expired' ? 'sessionExpired' : '';
        emit(this, 'esign-disconnected', { reason: change.reason });
        break;
    }
  };

  #fail(error: EsignError): EsignError {
    this._error = error;
    this._status = 'error';
    emit(this, 'esign-error', { error });
    return error;
  }

  // ---- rendering ----

  protected override render() {
    return html`
      <div part="bar" role="group" aria-label=${this.#t.term('groupLabel')}>
        ${this.#renderState()}
        ${!this.#network.online ? html`<span part="offline">${this.#t.term('offline')}</span>` : nothing}
        <span role="status" aria-live="polite" class="visually-hidden">${this.#liveText()}</span>
      </div>
      <slot></slot>
    `;
  }

  /** The error as the user should read it: a localized term for known codes, else the error's message. */
  #errorText(): string {
    const error = this._error;
    if (!error) return this.#t.term('somethingWrong');
    // a refused redirect address: the user's words here, the address and the registered ones under it (#errorDetail)
    if (error.serviceCode === 'invalid_redirect_uri') return this.#t.term('invalid_redirect_uri');
    const code = error.code as keyof typeof connectMessages.en & string;
    return code in connectMessages.en ? this.#t.term(code) : error.message;
  }

  #liveText(): string {
    if (this._notice) return this.#t.term(this._notice);
    switch (this.status) {
      case 'connecting':
        return this.#t.term('connectingLive');
      case 'connected':
        return this.#t.term('connectedLive');
      case 'error':
        return this.#errorText();
      default:
        return '';
    }
  }

  #renderState() {
    const t = (key: keyof typeof connectMessages.en & string, params?: Record<string, string>) => this.#t.term(key, params);
    switch (this.status) {
      case 'connecting':
        return html`
          <button part="button" aria-busy="true" aria-disabled="true"><span class="spinner" aria-hidden="true"></span>${t('connecting')}</button>
          ${this.#pending ? html`<button part="button" class="secondary" @click=${() => this.cancel()}>${t('cancel')}</button>` : nothing}
          ${this._notice ? html`<span part="status">${t(this._notice)}</span>` : nothing}
        `;
      case 'connected':
        return html`
          <span part="status"><slot name="connected">${icon(checkIcon)}${this.#renderWho()}</slot></span>
          <button part="button" class="secondary small" @click=${() => void this.disconnect()}>${t('disconnect')}</button>
        `;
      case 'error': {
        const detail = this.#errorDetail();
        return html`
          <p part="error" role="alert">${icon(alertIcon)}<span>${this.#errorText()}${detail ? html`<span class="detail">${detail}</span>` : nothing}</span></p>
          <button part="button" @click=${() => void this.connect().catch(() => undefined)}>${t('retry')}</button>
          ${this._popupBlocked
            ? html`<button part="button fallback" class="secondary" @click=${() => void this.connect({ mode: 'redirect' }).catch(() => undefined)}>
                ${t('continueHere')}
              </button>`
            : nothing}
        `;
      }
      default:
        return html`
          <button part="button" @click=${() => void this.connect().catch(() => undefined)} @pointerenter=${this.#preloadSignIn} @focus=${this.#preloadSignIn}>
            ${icon(linkIcon)}${t('connect')}
          </button>
          ${this._notice ? html`<span part="status">${t(this._notice)}</span>` : nothing}
        `;
    }
  }

  /** Who is connected, and to which Space, in the service's names when it gave them (optional fields, read defensively). */
  #renderWho() {
    const session = this.session as (SessionInfo & { userName?: unknown; userEmail?: unknown; spaceName?: unknown }) | undefined;
    const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
    const person = text(session?.userName) || text(session?.userEmail);
    const space = text(session?.spaceName);
    if (!person && !space) return html`<span class="who"><span part="account">${this.#t.term('connected')}</span></span>`;
    return html`<span class="who">
      <span part="account">${person ? this.#t.term('connectedAs', { name: person }) : this.#t.term('connected')}</span>
      ${space ? html`<span part="space">${this.#t.term('inSpace', { space })}</span>` : nothing}
    </span>`;
  }

  /** The technical detail under a localized error: the address a refused redirect used, or a setup mistake's exact reason. */
  #errorDetail(): string {
    const error = this._error;
    return error?.serviceCode === 'invalid_redirect_uri' ? error.message : '';
  }
}

function writeWaitingPage(popup: Window): void {
  try {
    popup.document.title = 'Connecting…';
    popup.document.body.textContent = 'Opening the sign-in page…';
  } catch {
    // about:blank should be ours; if not, the consent page replaces it anyway
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-connect': EsignConnect;
  }
}
