/**
 * <esign-connect>'s session: the session manager (loaded as the element starts, shown meanwhile from the stored
 * record), the sign-in (loaded on intent), the callback page, disconnecting, access tokens. The element keeps its
 * settings (read through connect-settings.ts) and renders; this controller sets its status, error and notices and
 * fires its events.
 */
import type { ReactiveController } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import { callbackKind } from '../../core/sign-in/callback-page.js';
import type { PendingLogin } from '../../core/sign-in/login-flow.js';
import type { ConnectMode, SessionChange, SessionConfig, SessionInfo, SessionManager } from '../../core/session/session-manager.js';
import { peekSession } from '../../core/session/stored.js';
import { emit } from '../shared/events.js';
import { errorDetail } from '../shared/error-detail.js';
import type { Hop } from '../../core/service/unreachable.js';
import { LazyPart } from '../shared/lazy.js';
import { OnlineController } from '../shared/online.js';
import { openPopup } from '../shared/popup.js';
import { type ConnectHost, readSettings, type Settings } from './connect-settings.js';

export type ConnectStatus = 'idle' | 'connecting' | 'connected' | 'error';
/** A term of connectMessages shown beside the button, or none. */
export type ConnectNotice = '' | 'signedInClose' | 'signInContinues' | 'sessionExpired' | 'refresh_interrupted';

/** What the element shows: where it is in the flow, the last error, a notice, and whether a popup was blocked. */
export interface ConnectState {
  status: ConnectStatus;
  /** The last error, while `status` is `error` (and the reason a token cannot be had). */
  error: EsignError | undefined;
  notice: ConnectNotice;
  /** The browser blocked the sign-in window: the element offers to continue in this tab. */
  popupBlocked: boolean;
  /** What the last refresh could not reach (`token-proxy`, `service`), until one works: the session is kept. */
  unreachable?: Hop | undefined;
}

const POPUP_FEATURES = 'popup,width=520,height=720';

export class SessionHost implements ReactiveController {
  readonly #host: ConnectHost;
  readonly #network: OnlineController;
  #state: ConnectState = { status: 'idle', error: undefined, notice: '', popupBlocked: false };

  /** Where the flow is: `idle`, `connecting`, `connected` or `error`. */
  get status(): ConnectStatus {
    return this.#state.status;
  }

  /** The last error, while `status` is `error`. */
  get error(): EsignError | undefined {
    return this.#state.error;
  }

  /** A term of the element's words to show beside the button ('' for none). */
  get notice(): ConnectNotice {
    return this.#state.notice;
  }

  /** The browser blocked the sign-in window (the element offers to continue in this tab). */
  get popupBlocked(): boolean {
    return this.#state.popupBlocked;
  }

  /** Changes what the element shows, and asks it to render. */
  #set(change: Partial<ConnectState>): void {
    this.#state = { ...this.#state, ...change };
    this.#host.requestUpdate();
  }

  constructor(host: ConnectHost) {
    (this.#host = host).addController(this);
    this.#managerPart = new LazyPart(host, () => import('../../core/session/session-manager.js'), undefined, false);
    this.#signIn = new LazyPart(host, () => import('../../core/sign-in/login-flow.js'), undefined, false);
    this.#network = new OnlineController(host, (online) => {
      // back online: a failure that was only the network is over
      if (online && this.status === 'error' && this.error?.code === 'network_error') {
        this.#set({ error: undefined, status: this.session ? 'connected' : 'idle' });
        // the session manager's code could not be loaded: try again
        if (this.#managerPart.status === 'failed' && this.#host.isConnected) void this.#ready();
      }
    });
  }

  /** What the last refresh could not reach, until one works (the account stays shown, with a note). */
  get unreachable(): Hop | undefined {
    return this.#state.unreachable;
  }

  /** False while the browser is offline. */
  get online(): boolean {
    return this.#network.online;
  }

  /** The session manager: loaded as the element starts, without holding up its first state (reported as a setup error). */
  readonly #managerPart: LazyPart<typeof import('../../core/session/session-manager.js')>;
  /** The sign-in: loaded by a pointer or the focus on Connect, a click (after the window opened), or a callback page. */
  readonly #signIn: LazyPart<typeof import('../../core/sign-in/login-flow.js')>;
  /** A pointer or the focus on Connect: the sign-in's code starts loading (the click still opens the window first). */
  readonly preloadSignIn = (): void => void this.#signIn.load().catch(() => undefined);

  #manager: SessionManager | undefined;
  /** The configuration (JSON) of the manager that is, or is being, set up. */
  #managerKey = '';
  /** Its setup, while under way and once done. */
  #starting: Promise<SessionManager | undefined> | undefined;
  /** The stored session read as the element starts, shown until the manager has loaded its own. */
  #peeked: SessionInfo | undefined;
  /** The sign-in on its way (login flow), while `connecting` from a click. */
  pending: PendingLogin | undefined;

  /** The current session (scope, Space id, expiry), never a token; undefined when not connected. */
  get session(): SessionInfo | undefined {
    return this.#manager?.session ?? this.#peeked;
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

  hostConnected(): void {
    // the settings are read by the update this asks for (hostUpdate), with whatever arrived meanwhile
    this.#host.requestUpdate();
  }

  hostUpdate(): void {
    this.#apply();
  }

  hostDisconnected(): void {
    this.pending?.cancel(new EsignError('aborted', 'The element was removed.'));
    this.pending = undefined;
    this.#drop();
    this.#applied = undefined;
  }

  /**
   * Starts the sign-in. Call it from a user gesture (a click) so the popup is allowed.
   * Resolves with the session, or rejects with an EsignError (also sent as `esign-error`).
   */
  connect(options: { mode?: ConnectMode } = {}): Promise<SessionInfo> {
    // the settings present now, even ones set in this task (the update that reads them has not run yet)
    this.#apply();
    const refused = this.#applied?.refused;
    // settings that are missing or refused open no window: the error, visible as it is
    if (refused) return Promise.reject(this.#fail(refused));
    const mode = options.mode ?? this.#host.mode ?? 'popup';
    // the popup must open synchronously in the click, before any await (even the login flow's module), or browsers block it
    const popup = mode === 'popup' ? openPopup('esign-connect', POPUP_FEATURES) : null;
    this.pending?.cancel(new EsignError('aborted', 'A new sign-in was started.'));
    this.pending = undefined;
    this.#set({ popupBlocked: false, notice: '' });
    if (mode === 'popup' && !popup) {
      this.#set({ popupBlocked: true });
      return Promise.reject(
        this.#fail(new EsignError('popup_blocked', 'The browser blocked the sign-in window. Allow popups for this site, or continue in this tab.')),
      );
    }
    if (popup) writeWaitingPage(popup);
    this.#set({ status: 'connecting', error: undefined });
    return this.#login(mode, popup).catch((error: unknown) => {
      throw this.#fail(EsignError.from(error, 'oauth_error'));
    });
  }

  /** Ends the session: revokes it at the service through your proxy, clears storage and tells the other tabs. */
  async disconnect(): Promise<void> {
    const manager = await this.#ready();
    if (!manager) return;
    const result = await manager.disconnect();
    if (result.error) emit(this.#host, 'esign-error', errorDetail(result.error));
  }

  /** A valid access token for business calls, refreshed if it is about to expire. Rejects with `no_session` when not connected. */
  async getAccessToken(options: { forceRefresh?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const manager = await this.#ready();
    if (!manager) throw this.error ?? new EsignError('no_session', 'Not connected: connect an account first.');
    return manager.getAccessToken(options);
  }

  /** Cancels a sign-in in progress (closes the popup). */
  cancel(): void {
    this.pending?.cancel(new EsignError('aborted', 'The sign-in was cancelled.'));
  }

  #readyPromise: Promise<SessionManager | undefined> = Promise.resolve(undefined);

  /**
   * The manager for the settings present now, once set up; when its code could not be loaded, this loads it again
   * (Try again, a token asked for).
   */
  #ready(): Promise<SessionManager | undefined> {
    this.#apply();
    const config = this.#applied?.config;
    if (config && this.#managerPart.status === 'failed' && this.#host.isConnected) return this.#init(config);
    return this.#readyPromise;
  }

  /** The settings last taken (read on every update and by every call that uses them), and what they made. */
  #applied: Settings | undefined;

  /**
   * Takes the settings as they are now, whenever they arrived (attributes or properties, before or after insertion,
   * in one task or several): a change sets the session up again, and clears the error that earlier settings caused.
   * Settings still missing are waited for quietly (a framework may set them in a later task); Connect then says which
   * one is missing. Refused settings are shown and reported once (each distinct problem), after the update.
   */
  #apply(): void {
    if (!this.#host.isConnected) return;
    const settings = readSettings(this.#host);
    if (settings.key === this.#applied?.key) return;
    this.#applied = settings;
    if (this.error?.code === 'invalid_config') this.#set({ error: undefined });
    if (this.status === 'error') this.#set({ status: 'idle' });
    if (settings.config) {
      void this.#init(settings.config);
      return;
    }
    this.#drop();
    this.#readyPromise = Promise.resolve(undefined);
    // without a manager nothing is connected here (a stored session shows again once the settings are complete)
    if (this.status === 'connected') this.#set({ status: 'idle' });
    const refused = settings.error;
    if (refused) {
      this.#set({ error: refused, status: 'error' });
      // after this update: a listener that corrects the settings then starts the next one
      queueMicrotask(() => {
        if (this.#applied === settings) emit(this.#host, 'esign-error', { error: refused });
      });
    }
  }

  #init(config: SessionConfig): Promise<SessionManager | undefined> {
    const settings = this.#applied;
    this.#readyPromise = this.#setup(config).catch((error: unknown) => {
      const failed = EsignError.from(error, 'invalid_config');
      // settings the session manager refused (validateConfig): Connect refuses them too, until they change
      if (failed.code === 'invalid_config' && settings && this.#applied === settings) settings.refused = failed;
      this.#fail(failed);
      return undefined;
    });
    return this.#readyPromise;
  }

  async #setup(config: SessionConfig): Promise<SessionManager | undefined> {
    const key = JSON.stringify(config);
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
    const callback = callbackKind(new URLSearchParams(location.search)) !== undefined;
    if (!callback) {
      const peeked = await peekSession(config);
      if (key !== this.#managerKey) return undefined;
      this.#peeked = peeked;
      if (peeked && this.status === 'idle') this.#set({ status: 'connected' });
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
      this.#set({ status: 'connected' });
      emit(this.#host, 'esign-connected', { session, restored: true });
    } else if (this.status === 'connected') {
      // the stored record showed a session that ended before the manager read it: another page disconnected (or it
      // expired there) while this page's manager was still loading, so its broadcast found no one listening. Told
      // like any other end of a session: a status change always comes with its event
      this.#set({ status: 'idle' });
      emit(this.#host, 'esign-disconnected', { reason: 'other-tab' });
    }
    return manager;
  }

  /** Completes or relays the callback this page was loaded with (login flow). Returns true when it was ours. */
  async #handleCallback(manager: SessionManager): Promise<boolean> {
    this.#set({ status: 'connecting' });
    try {
      const { handlePageCallback } = await this.#signIn.load();
      const outcome = await handlePageCallback(manager);
      if (outcome === 'relayed') this.#set({ notice: 'signedInClose' });
      else if (outcome === 'not-ours') this.#set({ status: manager.session ? 'connected' : 'idle' });
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
      throw this.error ?? new EsignError('invalid_config', 'esign-connect is not configured.');
    }
    let pending: PendingLogin;
    try {
      const { startLogin } = await this.#signIn.load();
      // a sign-in page that severed the popup from this page: the sign-in goes on there (with Cancel beside it)
      const continuing = (): void => {
        if (this.pending === pending) this.#set({ notice: 'signInContinues' });
      };
      pending = await startLogin(manager, mode, popup, { continuing });
    } catch (error) {
      popup?.close();
      throw error;
    }
    this.pending = pending;
    this.#host.requestUpdate();
    try {
      return await pending.done;
    } finally {
      if (this.pending === pending) this.pending = undefined;
      if (this.notice === 'signInContinues') this.#set({ notice: '' });
    }
  }

  readonly #onChange = (event: Event): void => {
    const change = (event as CustomEvent<SessionChange>).detail;
    // a refresh that cannot reach its server keeps the account, with a note; the next change (a refresh that worked) clears it
    this.#set({ unreachable: change.type === 'unreachable' ? change.hop : undefined });
    switch (change.type) {
      case 'connected':
        this.#set({ status: 'connected', error: undefined, ...(this.notice === 'signInContinues' ? { notice: '' as const } : {}) });
        emit(this.#host, 'esign-connected', { session: change.session, restored: change.byOtherTab });
        break;
      case 'refreshed':
        if (this.status !== 'connected') {
          this.#set({ status: 'connected' });
          emit(this.#host, 'esign-connected', { session: change.session, restored: true });
        }
        emit(this.#host, 'esign-session-refreshed', { session: change.session, byOtherTab: change.byOtherTab });
        break;
      case 'disconnected':
        this.#set({
          status: 'idle',
          notice: change.reason !== 'expired' ? '' : change.why === 'interrupted' ? 'refresh_interrupted' : 'sessionExpired',
        });
        emit(this.#host, 'esign-disconnected', { reason: change.reason });
        break;
    }
  };

  #fail(error: EsignError): EsignError {
    this.#set({ error, status: 'error' });
    emit(this.#host, 'esign-error', errorDetail(error));
    return error;
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
