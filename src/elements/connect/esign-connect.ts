import { html, nothing, type PropertyDeclarations } from 'lit';
import type { EsignError } from '@esign-elements/shared/errors';
import type { ConnectMode, RefreshTokenHolder, SessionInfo } from '../../core/session/session-manager.js';
import type { StorageKind } from '../../core/kv.js';
import { connectMessages } from './esign-connect.messages.js';
import { connectStyles } from './esign-connect.styles.js';
import { DEFAULT_SCOPE } from './connect-settings.js';
import { SessionHost, type ConnectStatus } from './session-host.js';
import { LocalizeController } from '../shared/localize.js';
import { ContextProvider } from '@lit/context';
import { sessionContext, type SessionProvider } from '../shared/session-context.js';
import { icon, alertIcon, checkIcon, linkIcon } from '../shared/icons.js';
import { buttonStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { EsignElement } from '../shared/element.js';
import { FocusKeeper, liveRegions } from '../shared/a11y.js';

export type { ConnectStatus } from './session-host.js';

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
 * A consent page that sends `Cross-Origin-Opener-Policy: same-origin` severs the popup from this page, which then
 * reads it as closed: the element says the sign-in continues in its own window (with Cancel) and connects when the
 * person finishes there. A person who closes the popup after seeing the consent page gets `popup_closed` within
 * about two seconds (docs/security.md, "A consent page that severs the popup").
 *
 * Inside another site's frame (a Shopify admin app, a Teams tab) the popup's sign-in reaches this page through the
 * token proxy's one-time handoff, and the session lives in the proxy's partitioned cookies: the proxy must name that
 * site (`--framed-by`). A proxy that does not says so at Connect (`framing_not_allowed`), and a browser that keeps no
 * cookie in such a frame too (`cookie_blocked`): docs/guides/inside-another-sites-frame.md.
 *
 * @summary Connect an e-signature account.
 *
 * @fires esign-connected - A session is available: just authorized, or restored from storage or another tab. `detail: {session, restored}`.
 * @fires esign-disconnected - The session ended: the user disconnected, it expired or was revoked, or another tab disconnected. `detail: {reason}`.
 * @fires esign-session-refreshed - The access token was renewed, here or by another tab. `detail: {session, byOtherTab}`.
 * @fires esign-error - Something failed; `detail.error` is an `EsignError` with a stable `code` (`popup_blocked`, `popup_closed`, `access_denied`, `state_mismatch`, `token_exchange_failed`, `cookie_blocked`, `origin_not_allowed` (the token proxy does not serve this page's origin), `framing_not_allowed` (the page is inside another site's frame and the token proxy is not set up for it: `--framed-by`), `session_expired`, `invalid_config`, `csp_blocked` (the page's Content-Security-Policy connect-src blocks the token proxy), …). `detail.hop` says what could not be reached (`offline`, `token-proxy`, `service`, `page`; absent otherwise: docs/guides/when-something-is-down.md).
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
 * @csspart unreachable - The note shown, beside the account, while a refresh cannot reach the token proxy (or the service); it goes by itself when one works again.
 *
 * @cssstate idle - Not connected (`status` idle; the same for each state below).
 * @cssstate connecting - A sign-in or a restore is on its way.
 * @cssstate connected - A session is available.
 * @cssstate error - Something failed; `error` says what.
 *
 */
export class EsignConnect extends EsignElement implements SessionProvider {
  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
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
    };
  }

  static override styles = [buttonStyles, visuallyHiddenStyles, connectStyles];

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
    return this.#session.status;
  }

  /** The last error, while in the `error` status. */
  get error(): EsignError | undefined {
    return this.#session.error;
  }

  readonly #t = new LocalizeController(this, connectMessages);
  readonly #session = new SessionHost(this);

  constructor() {
    super();
    // offers this element as the session of the elements inside it (not to itself)
    new ContextProvider(this, { context: sessionContext, initialValue: this });
    // a replaced button's focus goes to the one that took its place (Connect → Connecting… → Disconnect → Connect)
    new FocusKeeper(this, () => this.renderRoot.querySelector<HTMLElement>('[part~="button"]'));
  }

  /** The current session (scope, Space id, expiry), never a token; undefined when not connected. */
  get session(): SessionInfo | undefined {
    return this.#session.session;
  }

  /**
   * Starts the sign-in. Call it from a user gesture (a click) so the popup is allowed.
   * Resolves with the session, or rejects with an EsignError (also sent as `esign-error`).
   */
  connect(options: { mode?: ConnectMode } = {}): Promise<SessionInfo> {
    return this.#session.connect(options);
  }

  /** Ends the session: revokes it at the service through your proxy, clears storage and tells the other tabs. */
  disconnect(): Promise<void> {
    return this.#session.disconnect();
  }

  /** A valid access token for business calls, refreshed if it is about to expire. Rejects with `no_session` when not connected. */
  getAccessToken(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    return this.#session.getAccessToken(options);
  }

  /** Cancels a sign-in in progress (closes the popup). */
  cancel(): void {
    this.#session.cancel();
  }

  // ---- rendering ----

  protected override render() {
    return html`
      <div part="bar" role="group" aria-label=${this.#t.term('groupLabel')}>
        ${this.#renderState()}
        ${!this.#session.online ? html`<span part="offline">${this.#t.term('offline')}</span>` : nothing}
        ${
          this.#session.online && this.status === 'connected' && this.#session.unreachable
            ? html`<span part="unreachable" role="status">${this.#t.term(this.#session.unreachable === 'service' ? 'errorService' : 'errorProxy')}</span>`
            : nothing
        }
        ${liveRegions(this.#liveText(), this.status === 'error' ? this.#errorText() : '')}
      </div>
      <slot></slot>
    `;
  }

  /** The error as the user should read it: a localized term for known codes, else the error's message. */
  #errorText(): string {
    const error = this.error;
    if (!error) return this.#t.term('somethingWrong');
    // a refused redirect address: the user's words here, the address and the registered ones under it (#errorDetail)
    if (error.serviceCode === 'invalid_redirect_uri') return this.#t.term('invalid_redirect_uri');
    const code = error.code as keyof typeof connectMessages.en & string;
    return code in connectMessages.en ? this.#t.term(code) : error.message;
  }

  #liveText(): string {
    const notice = this.#session.notice;
    if (notice) return this.#t.term(notice);
    switch (this.status) {
      case 'connecting':
        return this.#t.term('connectingLive');
      case 'connected':
        return this.#t.term('connectedLive');
      default:
        return ''; // an error is said in the assertive region
    }
  }

  #renderState() {
    const t = (key: keyof typeof connectMessages.en & string, params?: Record<string, string>) => this.#t.term(key, params);
    switch (this.status) {
      case 'connecting':
        return html`
          <button part="button" aria-busy="true" aria-disabled="true"><span class="spinner" aria-hidden="true"></span>${t('connecting')}</button>
          ${this.#session.pending ? html`<button part="button" class="secondary" @click=${() => this.cancel()}>${t('cancel')}</button>` : nothing}
          ${this.#renderNotice()}
        `;
      case 'connected':
        return html`
          <span part="status"><slot name="connected">${icon(checkIcon)}${this.#renderWho()}</slot></span>
          <button part="button" class="secondary small" @click=${() => void this.disconnect()}>${t('disconnect')}</button>
        `;
      case 'error': {
        const detail = this.#errorDetail();
        return html`
          <p part="error">${icon(alertIcon)}<span>${this.#errorText()}${detail ? html`<span class="detail">${detail}</span>` : nothing}</span></p>
          <button part="button" @click=${() => void this.connect().catch(() => undefined)}>${t('retry')}</button>
          ${
            this.#session.popupBlocked
              ? html`<button part="button fallback" class="secondary" @click=${() => void this.connect({ mode: 'redirect' }).catch(() => undefined)}>
                ${t('continueHere')}
              </button>`
              : nothing
          }
        `;
      }
      default:
        return html`
          <button part="button" @click=${() => void this.connect().catch(() => undefined)} @pointerenter=${this.#session.preloadSignIn} @focus=${this.#session.preloadSignIn}>
            ${icon(linkIcon)}${t('connect')}
          </button>
          ${this.#renderNotice()}
        `;
    }
  }

  #renderNotice() {
    const notice = this.#session.notice;
    return notice ? html`<span part="status">${this.#t.term(notice)}</span>` : nothing;
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
    const error = this.error;
    // the settings to change, with this page's values (the proxy's own words, as its refusal page says them)
    const technical = error?.code === 'origin_not_allowed' || error?.code === 'cookie_blocked' || error?.code === 'framing_not_allowed';
    return error?.serviceCode === 'invalid_redirect_uri' || error?.directive || technical ? error!.message : '';
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'esign-connect': EsignConnect;
  }
}
