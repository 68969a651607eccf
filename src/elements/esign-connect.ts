import { provide } from '@lit/context';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { EsignError } from '../core/errors.js';
import {
  callbackMessage,
  SessionManager,
  type ConnectMode,
  type SessionChange,
  type SessionConfig,
  type RefreshTokenHolder,
  type SessionInfo,
} from '../core/session/session-manager.js';
import type { StorageKind } from '../core/session/store.js';
import { connectMessages } from './esign-connect.messages.js';
import { emit } from './events.js';
import { LocalizeController } from './localize.js';
import { sessionContext, type SessionProvider } from './session-context.js';
import { icon } from './icons.js';
import { buttonStyles, visuallyHiddenStyles } from './shared-styles.js';

export type ConnectStatus = 'idle' | 'connecting' | 'connected' | 'error';

const DEFAULT_SCOPE = 'envelope:create envelope:read';
const POPUP_FEATURES = 'popup,width=520,height=720';
/** After the popup closes, how long to wait for its relayed answer before calling it abandoned. */
const POPUP_CLOSE_GRACE_MS = 1500;
const CALLBACK_KEYS = ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'session_state'];

/** The callback parameters this document was loaded with, read once and removed from the address bar. */
let pageCallback: URLSearchParams | null | undefined;

function takePageCallback(): URLSearchParams | null {
  if (pageCallback !== undefined) return pageCallback;
  const url = new URL(location.href);
  const params = url.searchParams;
  if (!params.has('state') || !(params.has('code') || params.has('error'))) return (pageCallback = null);
  pageCallback = new URLSearchParams();
  for (const key of CALLBACK_KEYS) {
    const value = params.get(key);
    if (value !== null) pageCallback.set(key, value);
    url.searchParams.delete(key);
  }
  // the code must not stay in history, bookmarks or Referer headers
  history.replaceState(history.state, '', url.href);
  return pageCallback;
}

/**
 * Connects the user's e-signature account: OAuth 2.0 authorization code with PKCE (S256) as a
 * public client, the code exchanged at your token proxy, the session kept, refreshed and shared
 * with the other esign elements (nested inside it, or naming it with `connect="ID"`).
 *
 * Put it on the page at `redirect-uri` too (by default the same page): it completes the sign-in
 * by itself there.
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
 * @cssprop [--esign-accent=light-dark(#2557d6, #8cb0ff)] - Primary colour: buttons, progress, focus rings, links.
 * @cssprop [--esign-accent-contrast=light-dark(#ffffff, #0b1530)] - Text on the primary colour.
 * @cssprop [--esign-text=CanvasText] - Text on the elements' surfaces (the connect bar's own text inherits the page's colour).
 * @cssprop [--esign-surface=Canvas] - Background of secondary buttons, the drop zone, file rows and state cards.
 * @cssprop [--esign-danger=light-dark(#b3261e, #ffb4ab)] - Errors.
 * @cssprop [--esign-success=light-dark(#1b6e3a, #8fdca6)] - Success (connected, uploaded, sent).
 * @cssprop [--esign-font=system-ui, sans-serif] - Font family.
 * @cssprop [--esign-radius=8px] - Corner radius.
 * @cssprop [--esign-spacing=0.5rem] - Spacing unit; gaps and paddings are multiples of it.
 */
export class EsignConnect extends LitElement implements SessionProvider {
  static override styles = [
    buttonStyles,
    visuallyHiddenStyles,
    css`
      :host {
        display: block;
      }
      [part~='bar'] {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: var(--_space) calc(var(--_space) * 1.5);
        min-height: 2.25rem;
      }
      [part~='status'] {
        display: inline-flex;
        align-items: center;
        gap: var(--_space);
        min-width: 0;
      }
      [part~='status'] .icon {
        color: var(--_success);
      }
      .who {
        display: grid;
        line-height: 1.3;
        min-width: 0;
      }
      [part~='account'] {
        font-weight: 600;
        overflow-wrap: anywhere;
      }
      [part~='space'] {
        font-size: 0.875em;
        color: color-mix(in srgb, currentColor 74%, transparent);
        overflow-wrap: anywhere;
      }
      [part~='error'] {
        display: flex;
        gap: var(--_space);
        align-items: flex-start;
        color: var(--_danger);
        margin: 0;
        flex-basis: 100%;
      }
      [part~='error'] .detail {
        display: block;
        font-size: 0.875em;
        overflow-wrap: anywhere;
      }
      [part~='offline'] {
        display: inline-flex;
        align-items: center;
        gap: calc(var(--_space) / 2);
        font-size: 0.875em;
      }
      /* the elements inside it stand apart from the bar and from each other (a page's own margins win) */
      ::slotted(:not([slot])) {
        margin-block-start: calc(var(--_space) * 2);
      }
    `,
  ];

  /** The OAuth client_id of your app, from the service console. */
  @property({ attribute: 'client-id', reflect: true }) clientId = '';

  /** The service base URL (e.g. the production domain, or the emulator's `http://127.0.0.1:4010`). `/openapi/v1/...` is appended. */
  @property({ attribute: 'base-url', reflect: true }) baseUrl = '';

  /** URL of your token proxy's token route (it holds the client_secret). Relative URLs resolve against the page. */
  @property({ attribute: 'token-endpoint', reflect: true }) tokenEndpoint = '';

  /** URL of your token proxy's revocation route. Default: `revoke` beside `token-endpoint`. */
  @property({ attribute: 'revocation-endpoint' }) revocationEndpoint = '';

  /** The service's authorization page, for a service whose endpoints differ from the spec's. Default: `${base-url}/openapi/v1/oauth/auth`. */
  @property({ attribute: 'authorization-endpoint' }) authorizationEndpoint = '';

  /** The authorization server's issuer identifier, for a server whose issuer is not `base-url` (an `iss` in its answer must equal it exactly, RFC 9207). Default: `base-url`. */
  @property() issuer = '';

  /**
   * Who holds the refresh token. `proxy` (default): your token proxy keeps it in an encrypted HttpOnly
   * cookie and the page holds short-lived access tokens in memory only (RFC 10017 token-mediating
   * backend); the proxy must be served from this page's site. `browser`: opt-in for a proxy on another
   * site; the page keeps both tokens (in `storage`), readable by any script on the page. The proxy
   * must allow it (`browserHeldRefreshTokens`).
   */
  @property({ attribute: 'refresh-tokens' }) refreshTokens: RefreshTokenHolder = 'proxy';

  /** Where the service sends the user back; must be registered exactly. Default: this page without query or fragment. */
  @property({ attribute: 'redirect-uri' }) redirectUri = '';

  /** Space-separated scopes to request. */
  @property() scope = DEFAULT_SCOPE;

  /** Designated Space Mode: the Space to connect (no Space choice on the consent page). Use with `login-hint`. */
  @property({ attribute: 'space-id' }) spaceId = '';

  /** Designated Space Mode: the email of the user expected to log in. */
  @property({ attribute: 'login-hint' }) loginHint = '';

  /** `popup` (default: the consent page opens in a popup) or `redirect` (this tab goes to the consent page and comes back). */
  @property() mode: ConnectMode = 'popup';

  /** `indexeddb` (default: the session survives reloads and is shared by tabs) or `memory` (nothing kept on disk). */
  @property() storage: StorageKind = 'indexeddb';

  /** A member user id to send as X-Operator-User-Id on business calls (needed for envelope operations). */
  @property({ attribute: 'operator-user-id' }) operatorUserId: string | undefined = undefined;

  /** Where the element is in the flow: `idle`, `connecting`, `connected` or `error`. Reflected for styling; set by the element (read-only for you). */
  @property({ reflect: true }) status: ConnectStatus = 'idle';

  /** The last error, while in the `error` status. */
  get error(): EsignError | undefined {
    return this._error;
  }

  @state() private _error: EsignError | undefined;
  @state() private _popupBlocked = false;
  /** A term key of connectMessages shown beside the button, or ''. */
  @state() private _notice: '' | 'signedInClose' | 'sessionExpired' = '';

  readonly #t = new LocalizeController(this, connectMessages);

  /** True while the browser says it has no network. */
  @state() private _offline = typeof navigator !== 'undefined' && navigator.onLine === false;

  readonly #onNetwork = (): void => {
    this._offline = navigator.onLine === false;
    // back online: a failure that was only the network is over
    if (!this._offline && this.status === 'error' && this._error?.code === 'network_error') {
      this._error = undefined;
      this.status = this.session ? 'connected' : 'idle';
    }
  };

  @provide({ context: sessionContext }) protected provider: SessionProvider = this;

  #manager: SessionManager | undefined;
  #managerKey = '';
  #pending: { state: string; popup: Window | null; reject: (error: EsignError) => void; cleanup: () => void } | undefined;

  /** The current session (scope, Space id, expiry), never a token; undefined when not connected. */
  get session(): SessionInfo | undefined {
    return this.#manager?.session;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('online', this.#onNetwork);
    window.addEventListener('offline', this.#onNetwork);
    this._offline = navigator.onLine === false;
    void this.#init();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('online', this.#onNetwork);
    window.removeEventListener('offline', this.#onNetwork);
    this.#pending?.cleanup();
    this.#manager?.removeEventListener('change', this.#onChange);
    this.#manager?.close();
    this.#manager = undefined;
    this.#managerKey = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const configKeys = [
      'clientId',
      'baseUrl',
      'tokenEndpoint',
      'revocationEndpoint',
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
    // the popup must open synchronously in the click, before any await, or browsers block it
    const popup = mode === 'popup' ? window.open('about:blank', `esign-connect-${Math.random().toString(36).slice(2)}`, POPUP_FEATURES) : null;
    this.#pending?.cleanup();
    this._popupBlocked = false;
    this._notice = '';
    if (mode === 'popup' && !popup) {
      this._popupBlocked = true;
      return Promise.reject(this.#fail(new EsignError('popup_blocked', 'The browser blocked the sign-in window. Allow popups for this site, or continue in this tab.')));
    }
    if (popup) writeWaitingPage(popup);
    this.status = 'connecting';
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
    if (!this.#pending) return;
    this.#pending.reject(new EsignError('aborted', 'The sign-in was cancelled.'));
  }

  // ---- setup ----

  #readyPromise: Promise<SessionManager | undefined> = Promise.resolve(undefined);

  #ready(): Promise<SessionManager | undefined> {
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
    if (this.#manager && key === this.#managerKey) {
      // a corrected attribute clears the configuration error it caused
      if (this._error?.code === 'invalid_config') {
        this._error = undefined;
        this.status = this.#manager.session ? 'connected' : 'idle';
      }
      return this.#manager;
    }
    if (this._error?.code === 'invalid_config') this._error = undefined;
    if (this.status === 'error') this.status = 'idle';
    this.#manager?.removeEventListener('change', this.#onChange);
    this.#manager?.close();
    this.#manager = undefined;
    this.#managerKey = key;
    const manager = new SessionManager(config);
    this.#manager = manager;
    manager.addEventListener('change', this.#onChange);
    await manager.load();
    if (manager !== this.#manager) return manager;
    const callback = takePageCallback();
    if (callback && (await this.#handleCallback(manager, callback))) return manager;
    const session = manager.session;
    if (session) {
      this.status = 'connected';
      emit(this, 'esign-connected', { session, restored: true });
    } else if (this.status === 'connected') {
      this.status = 'idle';
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
    if (this.authorizationEndpoint) config.authorizationEndpoint = resolve(this.authorizationEndpoint, 'authorization-endpoint');
    // compared exactly, as the server states it (a trailing slash is part of an issuer)
    if (this.issuer) config.issuer = this.issuer;
    if (this.spaceId) config.spaceId = this.spaceId;
    if (this.loginHint) config.loginHint = this.loginHint;
    return config;
  }

  /** Completes or relays a callback this page was loaded with. Returns true when it was ours. */
  async #handleCallback(manager: SessionManager, params: URLSearchParams): Promise<boolean> {
    const state = params.get('state') ?? '';
    const attempt = await manager.findAttempt(state);
    const opener = safeOpener();
    if (opener && (!attempt || attempt.mode === 'popup')) {
      // this is the popup: hand the answer to the tab that opened it, which holds the attempt
      opener.postMessage(callbackMessage(manager.key, params), location.origin);
      this._notice = 'signedInClose';
      this.status = 'connecting';
      setTimeout(() => window.close(), 50);
      return true;
    }
    if (!attempt && pageCallbackClaimed) return false;
    pageCallbackClaimed = true;
    this.status = 'connecting';
    try {
      const session = await manager.completeLogin(params);
      this.status = 'connected';
      void session;
    } catch (error) {
      this.#fail(EsignError.from(error, 'oauth_error'));
    }
    return true;
  }

  async #login(mode: ConnectMode, popup: Window | null): Promise<SessionInfo> {
    const manager = await this.#ready();
    if (!manager) {
      popup?.close();
      throw this._error ?? new EsignError('invalid_config', 'esign-connect is not configured.');
    }
    const { url, state } = await manager.beginLogin(mode);
    if (mode === 'redirect') {
      location.assign(url);
      // the page is leaving; this promise settles on the way back, in a new document
      return new Promise<SessionInfo>(() => undefined);
    }
    if (!popup || popup.closed) {
      await manager.abandonLogin(state);
      throw new EsignError('popup_closed', 'The sign-in window was closed before finishing.');
    }
    popup.location.href = url;
    return new Promise<SessionInfo>((resolve, reject) => {
      let closedAt = 0;
      const onMessage = (event: MessageEvent): void => {
        if (event.source !== popup) return;
        if (event.origin !== location.origin) {
          // the sign-in page itself cannot send the user back (a refused redirect address): say why, at once
          const refusal = event.origin === new URL(manager.authorizationEndpoint).origin ? refusedRedirect(event.data) : undefined;
          if (refusal) {
            cleanup();
            if (!popup.closed) popup.close();
            void manager.abandonLogin(state);
            reject(refusal);
          }
          return;
        }
        manager.acceptCallback(event.data, state).then(
          (session) => {
            if (!session) return;
            cleanup();
            resolve(session);
          },
          (error: unknown) => {
            cleanup();
            reject(error);
          },
        );
      };
      const timer = setInterval(() => {
        if (!popup.closed) return;
        closedAt ||= Date.now();
        if (Date.now() - closedAt < POPUP_CLOSE_GRACE_MS) return;
        cleanup();
        void manager.abandonLogin(state);
        reject(new EsignError('popup_closed', 'The sign-in window was closed before finishing.'));
      }, 250);
      const cleanup = (): void => {
        clearInterval(timer);
        window.removeEventListener('message', onMessage);
        if (this.#pending?.state === state) this.#pending = undefined;
      };
      window.addEventListener('message', onMessage);
      this.#pending = {
        state,
        popup,
        cleanup,
        reject: (error) => {
          cleanup();
          if (!popup.closed) popup.close();
          void manager.abandonLogin(state);
          reject(error);
        },
      };
    });
  }

  readonly #onChange = (event: Event): void => {
    const change = (event as CustomEvent<SessionChange>).detail;
    switch (change.type) {
      case 'connected':
        this.status = 'connected';
        this._error = undefined;
        emit(this, 'esign-connected', { session: change.session, restored: change.byOtherTab });
        break;
      case 'refreshed':
        if (this.status !== 'connected') {
          this.status = 'connected';
          emit(this, 'esign-connected', { session: change.session, restored: true });
        }
        emit(this, 'esign-session-refreshed', { session: change.session, byOtherTab: change.byOtherTab });
        break;
      case 'disconnected':
        this.status = 'idle';
        this._notice = change.reason === 'expired' ? 'sessionExpired' : '';
        emit(this, 'esign-disconnected', { reason: change.reason });
        break;
    }
  };

  #fail(error: EsignError): EsignError {
    this._error = error;
    this.status = 'error';
    emit(this, 'esign-error', { error });
    return error;
  }

  // ---- rendering ----

  protected override render() {
    return html`
      <div part="bar" role="group" aria-label=${this.#t.term('groupLabel')}>
        ${this.#renderState()}
        ${this._offline ? html`<span part="offline">${this.#t.term('offline')}</span>` : nothing}
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
    const code = error.code as keyof typeof connectMessages.en;
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
    const t = (key: keyof typeof connectMessages.en, params?: Record<string, string>) => this.#t.term(key, params);
    switch (this.status) {
      case 'connecting':
        return html`
          <button part="button" aria-busy="true" aria-disabled="true"><span class="spinner" aria-hidden="true"></span>${t('connecting')}</button>
          ${this.#pending ? html`<button part="button" class="secondary" @click=${() => this.cancel()}>${t('cancel')}</button>` : nothing}
          ${this._notice ? html`<span part="status">${t(this._notice)}</span>` : nothing}
        `;
      case 'connected':
        return html`
          <span part="status"><slot name="connected">${icon('check')}${this.#renderWho()}</slot></span>
          <button part="button" class="secondary small" @click=${() => void this.disconnect()}>${t('disconnect')}</button>
        `;
      case 'error': {
        const detail = this.#errorDetail();
        return html`
          <p part="error" role="alert">${icon('alert')}<span>${this.#errorText()}${detail ? html`<span class="detail">${detail}</span>` : nothing}</span></p>
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
          <button part="button" @click=${() => void this.connect().catch(() => undefined)}>${icon('link')}${t('connect')}</button>
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

let pageCallbackClaimed = false;

function safeOpener(): Window | null {
  try {
    const opener = window.opener as Window | null;
    // only a same-origin opener is ours to answer (cross-origin access throws)
    if (opener && !opener.closed && opener.location.origin === location.origin) return opener;
  } catch {
    // cross-origin opener
  }
  return null;
}

/**
 * The sign-in page's report that it cannot send the user back, as an EsignError naming the address used (and the
 * registered ones when the page lists them). The emulator sends `{source: 'esign', type: 'oauth-error', ...}`
 * (docs/emulator.md); anything else is ignored.
 */
function refusedRedirect(data: unknown): EsignError | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const message = data as { source?: unknown; type?: unknown; error?: unknown; redirectUri?: unknown; registered?: unknown };
  if (message.source !== 'esign' || message.type !== 'oauth-error' || typeof message.error !== 'string') return undefined;
  const used = typeof message.redirectUri === 'string' ? message.redirectUri.slice(0, 500) : '';
  const registered = Array.isArray(message.registered) ? message.registered.filter((r): r is string => typeof r === 'string').slice(0, 20) : [];
  const text =
    message.error === 'invalid_redirect_uri'
      ? `The service refused the redirect address ${used || '(none)'}: it is not registered for this app.` +
        (registered.length ? ` Registered: ${registered.join(', ')}. Set redirect-uri to one of them, or register this page's address.` : ' Register this page\'s address, or set redirect-uri to a registered one.')
      : `The sign-in page reported ${message.error.slice(0, 100)}.`;
  return new EsignError('oauth_error', text, { serviceCode: message.error.slice(0, 100) });
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
