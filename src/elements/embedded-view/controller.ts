/**
 * The controller behind <esign-signing-frame> and <esign-contract-list>, and the one place that performs the view
 * machine's effects (machine.ts decides; this does): it asks for Urls (a `@lit/task` Task), checks them, holds one
 * until its frame can take it and watches its expiry, gives it to the frame (`ViewFrame`, below) or the popup,
 * listens to the page's messages and times its `ready`, and turns what happens into the machine's events: a click or
 * `auto`, the element leaving or entering the page or being seen again, the connection's return, a CSP block, a bad
 * setting.
 *
 * This file holds, in order: the controller, the inline frame (`ViewFrame`) and the phone (the popup: view-popup.ts)
 * sheet's state (`SheetController`); each owns its own fields. They load together: by the element (element.ts) once it
 * has a session or is opened; a custom element can host the controller too (`esign-elements/headless`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { Task } from '@lit/task';
import { EsignError, type EsignErrorCode } from '@esign-elements/shared/errors';
import { ServiceClient } from '../../core/service/service-client.js';
import { blockedOrigin, cspBlocked, originOf } from '../../core/service/csp-violation.js';
import { backoffDelay } from '../../core/service/retry.js';
import { browserOnline, UNREACHABLE_RETRY } from '../../core/service/unreachable.js';
import { emit, type EsignEnvelopeSentDetail } from '../shared/events.js';
import { SessionController } from '../shared/session-controller.js';
import type { SessionProvider } from '../shared/session-context.js';
import { TabChannel } from '../shared/tab-channel.js';
import { frameShown, type ViewModel } from './template.js';
import { hasPage, initialViewState, transition, type ViewEffect, type ViewEvent, type ViewState } from './machine.js';
import { ViewPopup } from './view-popup.js';
import {
  allowedOriginsFor,
  FRAME_SANDBOX,
  hostPageOrigin,
  settingsFault,
  type OperateType,
  type ViewDisplay,
  type ViewResult,
  type ViewStatus,
} from './rules.js';
import { checkEmbeddedUrl, configProblem, EXPIRY_MARGIN_MS, isEsignMessage, isExpired, loadTimeoutMessage, parseInstant } from './url-rules.js';

export type { ViewState, ViewEvent, ViewEffect } from './machine.js';

/** The element that hosts the controller: its settings (the embedded views' attributes). */
export interface EmbeddedViewHost extends ReactiveControllerHost, HTMLElement {
  /** Opens the page by itself as soon as there is a session (and FileIds); inline only. */
  readonly auto: boolean;
  readonly display: ViewDisplay;
  readonly allowedOrigins: string;
  readonly loadTimeout: number;
}

export interface EmbeddedViewOptions {
  operateType: OperateType;
  /** FileIds for request_signatures. */
  fileIds?: () => readonly string[];
}

/** Errors about the session itself are the session's to report; they keep their code. */
const SESSION_CODES = new Set<EsignErrorCode>([
  'no_session',
  'no_files',
  'aborted',
  'session_expired',
  'refresh_interrupted',
  'refresh_failed',
  'login_expired',
]);

/** The Url request's outcome, for request number `request`. */
type UrlOutcome = { request: number; url: unknown; expiresAt: string } | { request: number; error: EsignError };

export class EmbeddedViewController implements ReactiveController {
  readonly session: SessionController;
  readonly operateType: OperateType;

  #state: ViewState;
  readonly #host: EmbeddedViewHost;
  readonly #fileIds: () => readonly string[];
  readonly #frame: ViewFrame;
  readonly #popup = new ViewPopup(() => this.#send({ type: 'closed' }));
  readonly #tabs: TabChannel;
  /** Asks `embedded/views` for a Url; a new run aborts the one under way. */
  readonly #url: Task<[number, SessionProvider, readonly string[], ViewDisplay], UrlOutcome>;
  /** The page's CSP blocked the request under way: its failure, when it comes, is told as this. */
  #cspError: EsignError | undefined;
  /** The accepted Url, until it is given to its frame or popup (inline: held until the element is shown). */
  #held: HeldUrl | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** A window was given the Url: its messages are the page's. */
  #placed = false;
  /** The window the element opened in the click, for the next popup request. */
  #clickPopup: Window | null = null;
  /** Events sent while effects run wait their turn. */
  readonly #queue: ViewEvent[] = [];
  #busy = false;
  /** open() calls waiting for their request's outcome. */
  #opening: Array<{ request: number; resolve: () => void; reject: (error: EsignError) => void }> = [];
  #sentWaiters: Array<(detail: EsignEnvelopeSentDetail) => void> = [];
  // when the view opens by itself
  #autoKey = '';
  #wasShown = false;
  #restored = false;
  #deciding = false;
  #reportedProblem: string | undefined;
  #resizeObserver: ResizeObserver | undefined;

  /**
   * Built by the element once it is needed (a session, or a click), with the element's session; a host of your own
   * may leave `session` out: the controller then finds it as the elements do (`connect="ID"` on the host, else the
   * nearest `<esign-connect>` ancestor).
   */
  constructor(host: EmbeddedViewHost & { connect?: string | null }, options: EmbeddedViewOptions, session: SessionController = new SessionController(host)) {
    this.#host = host;
    this.operateType = options.operateType;
    this.#fileIds = options.fileIds ?? (() => []);
    this.session = session;
    this.#state = initialViewState(options.operateType);
    this.#frame = new ViewFrame(host);
    this.#url = new Task(host, {
      autoRun: false,
      task: ([request, provider, fileIds, display], { signal }) => this.#request(request, provider, fileIds, display, signal),
      onComplete: (outcome) => this.#answered(outcome),
    });
    host.addController(this);
    // sent envelopes go to the other tabs of this service and Space (and come from them: the contract list refreshes)
    this.#tabs = new TabChannel(host, () => session.provider);
  }

  // ---- what the element reads ----

  /** The machine's state. */
  get state(): ViewState {
    return this.#state;
  }
  get status(): ViewStatus {
    return this.#state.status;
  }
  get error(): EsignError | undefined {
    return this.#state.error;
  }
  get origin(): string | undefined {
    return this.#state.origin;
  }
  get expiresAt(): string | undefined {
    return this.#state.expiresAt;
  }
  get shownIn(): ViewDisplay | undefined {
    return this.#state.shownIn;
  }
  get sentEnvelopeId(): string | undefined {
    return this.#state.sentEnvelopeId;
  }
  get lastResult(): ViewResult | undefined {
    return this.#state.lastResult;
  }
  /** True while the element has a session to ask with. */
  get hasSession(): boolean {
    return this.session.provider?.session !== undefined;
  }
  get hasFiles(): boolean {
    return this.operateType !== 'request_signatures' || this.#fileIds().length > 0;
  }
  // the frame, for the template: its key, the height its page reported, whether a blank frame waits for the Url on
  // its way (pending) or for the next Url (pre-built: hidden, inert, out of the layout flow)
  get viewId(): number {
    return this.#frame.viewId;
  }
  get frameHeight(): number | undefined {
    return this.#frame.height;
  }
  get framePending(): boolean {
    return this.#frame.pending;
  }
  get framePrebuilt(): boolean {
    return this.#frame.prebuilt(this.#wantsPrebuilt());
  }

  /**
   * The envelope sent in the page: at once while the element shows it (`status` sent), else at the next one. Never
   * rejects: an error leaves the person able to try again in the same element (see `lastResult`).
   */
  whenSent(): Promise<EsignEnvelopeSentDetail> {
    const result = this.#state.lastResult;
    if (this.#state.status === 'sent' && result?.event === 'esign-envelope-sent') return Promise.resolve(result.detail);
    return new Promise((resolve) => this.#sentWaiters.push(resolve));
  }

  // ---- what the element does ----

  /**
   * Asks for a new Url and shows it, in the frame or in `popup`: the element opened that window blank inside the
   * user's click (a blocker refuses one opened after an await), null when the browser refused it. Resolves once the
   * page is on its way (or a later request superseded this one); rejects with the EsignError also sent as `esign-error`.
   */
  open(display: ViewDisplay, popup: Window | null): Promise<void> {
    const problem = this.#settingsProblem();
    if (problem) {
      popup?.close();
      return Promise.reject(this.#fail(new EsignError('invalid_config', problem)));
    }
    if (display === 'popup' && !popup) {
      return Promise.reject(this.#fail(new EsignError('popup_blocked', 'The browser blocked the new window. Allow popups for this site and try again.')));
    }
    this.#autoKey = this.#currentAutoKey();
    this.#clickPopup = popup;
    this.#send({ type: 'open', display });
    return this.#outcome(this.#state.request);
  }

  /** Closes the page (frame or popup), or leaves the sent state, and goes back to idle. */
  close(): void {
    this.#send({ type: 'closed' });
  }

  /** The browser's connection came back or went (the element listens, with its OnlineController). */
  networkChanged(online: boolean): void {
    this.#send({ type: online ? 'back-online' : 'went-offline' });
  }

  /** The iframe's `load` event: only trusted as "loaded" when the load timeout is off (a page that posts no `ready`). */
  readonly onFrameLoad = (): void => {
    if (!this.#placed || this.#state.status !== 'loading' || this.#loadTimeoutMs() > 0) return;
    this.#send({ type: 'page-ready' });
  };

  /** Brings the popup of the current page to the front. */
  focusPopup(): void {
    this.#popup.focus();
  }

  // ---- the host's lifecycle ----

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.#onVisibility);
    document.addEventListener('securitypolicyviolation', this.#onViolation);
    window.addEventListener('pageshow', this.#onPageShow);
    window.addEventListener('message', this.#onMessage);
    window.addEventListener('focus', this.#onVisibility);
    if (typeof ResizeObserver === 'function') {
      // a host that goes from display:none to shown changes size: time to use or renew a held Url
      this.#resizeObserver ??= new ResizeObserver(() => this.#host.requestUpdate());
      this.#resizeObserver.observe(this.#host);
    }
    this.#host.requestUpdate();
  }

  hostDisconnected(): void {
    document.removeEventListener('visibilitychange', this.#onVisibility);
    document.removeEventListener('securitypolicyviolation', this.#onViolation);
    window.removeEventListener('pageshow', this.#onPageShow);
    window.removeEventListener('message', this.#onMessage);
    window.removeEventListener('focus', this.#onVisibility);
    this.#resizeObserver?.disconnect();
    // a sent envelope stays said: `auto` does not start the same files again
    if (this.#state.status !== 'sent') this.#autoKey = '';
    this.#wasShown = false;
    // a detached element keeps no frame: the update the machine's `cancel` asks for renders none
    this.#frame.forgetPrebuilt();
    this.#send({ type: 'hidden' });
  }

  hostUpdated(): void {
    this.#frame.size();
    this.#placeHeld();
    this.#frame.schedulePrebuild(
      () => this.#wantsPrebuilt(),
      () => isShown(this.#host),
    );
    // decisions that start work run after the update, never inside it
    if (this.#deciding) return;
    this.#deciding = true;
    queueMicrotask(() => {
      this.#deciding = false;
      this.#decide();
    });
  }

  // ---- events in, effects out ----

  /** Runs `event` through the machine and performs its effects; events sent meanwhile follow in order. */
  #send(event: ViewEvent): boolean {
    this.#queue.push(event);
    if (this.#busy) return true;
    this.#busy = true;
    let acted = false;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        const { state, effects } = transition(this.#state, next);
        acted ||= effects.length > 0 || state !== this.#state;
        this.#state = state;
        // rendered before any listener of the events below runs
        this.#host.requestUpdate();
        for (const effect of effects) this.#perform(effect);
        this.#settleOpening();
      }
    } finally {
      this.#busy = false;
    }
    return acted;
  }

  #perform(effect: ViewEffect): void {
    switch (effect.type) {
      case 'request-url':
        return this.#requestUrl(effect.request, effect.display);
      case 'show-page':
        return this.#showPage(effect.display);
      case 'cancel':
        return this.#cancel(effect.keepPopup === true);
      case 'emit':
        emit(this.#host, effect.name, effect.detail as never);
        if (effect.name === 'esign-envelope-sent') for (const resolve of this.#sentWaiters.splice(0)) resolve(effect.detail);
        return;
      case 'tell-tabs':
        return this.#tabs.post(effect.detail);
      case 'retry-later':
        this.#retryTimer = setTimeout(() => this.#send({ type: 'retry-due', visible: isShown(this.#host) }), backoffDelay(effect.attempt, UNREACHABLE_RETRY));
        return;
    }
  }

  /** Fails the view with `error` (kept, and told as `esign-error`); returns it. */
  #fail(error: EsignError): EsignError {
    this.#send({ type: 'failed', error });
    return error;
  }

  /** open()'s promise for request `request`: resolved once the page is on its way or superseded, rejected on an error. */
  #outcome(request: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#opening.push({ request, resolve, reject });
      this.#settleOpening();
    });
  }

  #settleOpening(): void {
    const { status, request, error } = this.#state;
    this.#opening = this.#opening.filter((waiting) => {
      if (status === 'requesting' && request === waiting.request) return true;
      if (status === 'error' && request === waiting.request && error) waiting.reject(error);
      else waiting.resolve();
      return false;
    });
  }

  // ---- the Url ----

  #requestUrl(request: number, display: ViewDisplay): void {
    this.#frame.prepare(display === 'inline');
    if (display === 'popup') {
      // the window opened in the click, else the one of the page being renewed
      const popup = this.#clickPopup ?? this.#popup.open;
      this.#clickPopup = null;
      if (!popup) {
        this.#send({ type: 'closed' });
        return;
      }
      this.#popup.use(popup);
    }
    const provider = this.session.provider;
    if (!provider?.session) {
      this.#send({ type: 'url-failed', request, error: new EsignError('no_session', 'Not connected: connect an e-signature account first.'), online: true });
      return;
    }
    const fileIds = [...this.#fileIds()];
    if (this.operateType === 'request_signatures' && fileIds.length === 0) {
      this.#send({ type: 'url-failed', request, error: new EsignError('no_files', 'No FileIds: upload the files to sign first.'), online: true });
      return;
    }
    void this.#url.run([request, provider, fileIds, display]);
  }

  /** The Task's work: one request to `embedded/views`. Never throws: the outcome carries the error. */
  async #request(request: number, provider: SessionProvider, fileIds: readonly string[], display: ViewDisplay, signal: AbortSignal): Promise<UrlOutcome> {
    this.#cspError = undefined;
    try {
      const client = new ServiceClient({
        baseUrl: provider.baseUrl,
        tokens: provider,
        operatorUserId: provider.operatorUserId,
        fetch: (input, init) => {
          const response = globalThis.fetch(input, init);
          // the fresh frame is rendered once the request is on its way, so building it does not delay sending it
          if (display === 'inline' && !signal.aborted) this.#frame.requestSent();
          return response;
        },
      });
      const { data } =
        this.operateType === 'request_signatures' ? await client.requestSignaturesView([...fileIds], { signal }) : await client.signatureStatusView({ signal });
      return { request, url: data.Url, expiresAt: data.ExpiresAt };
    } catch (error) {
      const failure = this.#cspError ?? viewError(error);
      this.#cspError = undefined;
      return { request, error: failure };
    }
  }

  /** The latest request's outcome: its Url checked against the allowed origins, then told to the machine. */
  #answered(outcome: UrlOutcome): void {
    if (outcome.request !== this.#state.request || this.#state.status !== 'requesting') return;
    this.#frame.settled();
    if ('error' in outcome) {
      this.#send({ type: 'url-failed', request: outcome.request, error: outcome.error, online: browserOnline() });
      return;
    }
    const provider = this.session.provider;
    const check = checkEmbeddedUrl(outcome.url, allowedOriginsFor(this.#host.allowedOrigins, provider?.baseUrl ?? ''), hostPageOrigin());
    if (!check.ok) {
      this.#send({ type: 'url-failed', request: outcome.request, error: new EsignError('url_rejected', check.reason), online: true });
      return;
    }
    const receivedAt = Date.now();
    // an unreadable ExpiresAt makes the Url good for immediate use only
    const expiresAtMs = parseInstant(outcome.expiresAt) ?? receivedAt;
    this.#held = { url: outcome.url as string, expiresAtMs };
    this.#expiryTimer = setTimeout(
      () => {
        this.#expiryTimer = undefined;
        if (!this.#held) return;
        // never used, now too old: dropped; a new one while the element can be seen
        this.#held = undefined;
        this.#send({ type: 'url-expiring', shown: isShown(this.#host) });
      },
      Math.min(Math.max(0, expiresAtMs - EXPIRY_MARGIN_MS - receivedAt), 2_147_483_647),
    );
    this.#send({ type: 'url-answered', request: outcome.request, origin: check.origin, expiresAt: outcome.expiresAt });
  }

  /** Gives the accepted Url to the popup at once, or holds it for the frame (placed once the element can be seen). */
  #showPage(display: ViewDisplay): void {
    if (display === 'popup') {
      const held = this.#take();
      const popup = this.#popup.window;
      if (held && popup && this.#popup.place(popup, held.url)) {
        this.#placed = true;
        this.#expectReady();
      } else this.#send({ type: 'closed' });
      return;
    }
    // the frame rendered while requesting takes the Url now, not after another update (else the next update does)
    this.#placeHeld();
  }

  /** Gives a held Url to the frame once the frame exists and the element can be seen. */
  #placeHeld(): void {
    const held = this.#held;
    if (!held || this.#state.shownIn !== 'inline' || this.#state.status !== 'loading' || !isShown(this.#host)) return;
    const frame = this.#frame.blank(held);
    if (frame === 'failed') {
      this.#take();
      queueMicrotask(() => this.#fail(new EsignError('view_failed', 'No blank frame could be prepared for the embedded page.')));
    } else if (frame && isExpired(held.expiresAtMs, Date.now())) {
      // too old to use: a new Url (counted), asked for after this update
      this.#take();
      queueMicrotask(() => this.#send({ type: 'url-expiring', shown: true }));
    } else if (frame) {
      this.#take();
      this.#placed = true;
      this.#frame.navigate(frame, held.url);
      this.#expectReady();
    }
  }

  /** The held Url, given away: it is not held (nor watched) any more. */
  #take(): HeldUrl | undefined {
    const held = this.#held;
    this.#held = undefined;
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    return held;
  }

  /** Forgets the current page: request, held Url, timers, the frame's src, the popup (unless `keepPopup`). */
  #cancel(keepPopup: boolean): void {
    this.#url.abort();
    this.#take();
    clearTimeout(this.#readyTimer);
    clearTimeout(this.#retryTimer);
    this.#readyTimer = this.#retryTimer = undefined;
    this.#frame.clear();
    this.#popup.release(keepPopup);
    this.#placed = false;
  }

  /** Waits for the page's `ready` (the element's `loadTimeout`); the machine decides what a silent page means. */
  #expectReady(): void {
    clearTimeout(this.#readyTimer);
    const timeout = this.#loadTimeoutMs();
    if (timeout <= 0) return;
    this.#readyTimer = setTimeout(() => {
      this.#readyTimer = undefined;
      const error = new EsignError('frame_blocked', loadTimeoutMessage(this.#state.origin ?? '', timeout, this.#state.shownIn === 'popup'));
      this.#send({ type: 'ready-timeout', error, online: browserOnline() });
    }, timeout);
  }

  /** The element's `loadTimeout` (default there); a value that is not a number is a settings fault, reported: no timer meanwhile. */
  #loadTimeoutMs(): number {
    return Number(this.#host.loadTimeout) || 0;
  }

  // ---- when the view opens by itself ----

  /**
   * After each update: a bad setting (reported once), the session gone (the page of that account goes too), a
   * re-attached element or a page restored from the back/forward cache, an expired page seen again, and `auto`
   * (once per session, Space, allowed origins and FileIds).
   */
  #decide(): void {
    if (!this.#host.isConnected || this.#checkSettings()) return;
    const shown = isShown(this.#host);
    const becameShown = shown && !this.#wasShown;
    this.#wasShown = shown;
    if (!this.hasSession) {
      const { status } = this.#state;
      if (status !== 'idle' && (status !== 'error' || this.#state.slow)) this.#send({ type: 'closed' });
      this.#autoKey = '';
      return;
    }
    const inline = this.#host.display !== 'popup';
    if (inline && (this.#state.reopen || this.#restored)) {
      this.#restored = false;
      if (this.#send({ type: 'reattached' })) {
        this.#autoKey = this.#currentAutoKey();
        return;
      }
    }
    if (becameShown && this.#state.status === 'expired' && this.#send({ type: 'shown' })) return;
    if (!this.#host.auto || !inline || !this.hasFiles) return;
    const key = this.#currentAutoKey();
    if (key === this.#autoKey) return;
    this.#autoKey = key;
    this.#send({ type: 'open', display: 'inline' });
  }

  #currentAutoKey(): string {
    const provider = this.session.provider;
    return JSON.stringify([provider?.baseUrl, provider?.session?.spaceId, this.#host.allowedOrigins, [...this.#fileIds()]]);
  }

  /** What is wrong with the element's settings now, in words (undefined: nothing). */
  #settingsProblem(): string | undefined {
    const pageOrigin = hostPageOrigin();
    return configProblem(this.#host, settingsFault(this.#host, pageOrigin), pageOrigin);
  }

  /** A bad setting is reported once (`invalid_config`), and cleared once fixed. True while a setting is bad. */
  #checkSettings(): boolean {
    const problem = this.#settingsProblem();
    if (problem) {
      if (problem !== this.#reportedProblem) this.#fail(new EsignError('invalid_config', (this.#reportedProblem = problem)));
      return true;
    }
    if (this.#reportedProblem) {
      this.#reportedProblem = undefined;
      // fixed: back to idle, and `auto` may open again
      this.#autoKey = '';
      if (this.#state.error?.code === 'invalid_config') this.#send({ type: 'closed' });
    }
    return false;
  }

  /** Whether a frame should wait ready for the next Url: the element waits, inline, with a session and valid settings. */
  #wantsPrebuilt(): boolean {
    const { status } = this.#state;
    return (
      this.#host.isConnected &&
      (status === 'idle' || status === 'expired' || status === 'sent') &&
      this.#host.display === 'inline' &&
      this.hasSession &&
      this.#settingsProblem() === undefined
    );
  }

  /**
   * The page came back from the back/forward cache: its frame shows a page whose Url was used (or has expired since),
   * so a new Url is asked for, as for a re-attached element; a sent envelope stays shown.
   */
  readonly #onPageShow = (event: PageTransitionEvent): void => {
    if (!event.persisted) return;
    this.#restored = true;
    this.#host.requestUpdate();
  };

  /** The tab is visible again or the window focused: a render, and one try at once of a hop that could not be reached. */
  readonly #onVisibility = (): void => {
    if (document.visibilityState !== 'visible') return;
    this.#host.requestUpdate();
    this.#send({ type: 'retry-due', visible: isShown(this.#host) });
  };

  // ---- the page and the page's policy ----

  /** Only the page we opened, on the origin of its Url: any other window or origin is ignored. */
  readonly #onMessage = (event: MessageEvent): void => {
    const { shownIn, origin } = this.#state;
    if (!this.#placed || !hasPage(this.#state)) return;
    const page = shownIn === 'popup' ? this.#popup.window : this.#frame.element?.contentWindow;
    if (!page || event.source !== page || event.origin !== origin) return;
    emit(this.#host, 'esign-view-message', { data: event.data, origin: event.origin });
    const data: unknown = event.data;
    if (!isEsignMessage(data)) return;
    switch (data.type) {
      case 'ready':
        clearTimeout(this.#readyTimer);
        this.#send({ type: 'page-ready' });
        break;
      case 'resize': {
        const height = Number(data['height']);
        if (shownIn === 'inline' && Number.isFinite(height) && height > 0) this.#frame.resize(Math.min(Math.ceil(height), 100_000));
        break;
      }
      case 'error':
        this.#send({ type: 'page-error', code: typeof data['code'] === 'string' ? data['code'] : 'unknown', shown: this.#canShow() });
        break;
      case 'envelope-sent':
        if (typeof data['envelopeId'] === 'string') {
          const status = typeof data['status'] === 'string' ? data['status'] : 'sent';
          this.#send({ type: 'envelope-sent', envelopeId: data['envelopeId'], status, fileIds: this.#fileIds() });
        }
        break;
    }
  };

  /** Whether a renewed page could be shown now: the element can be seen, and a popup page's window is still open. */
  #canShow(): boolean {
    return isShown(this.#host) && (this.#state.shownIn !== 'popup' || this.#popup.open !== null);
  }

  /** A blocked frame-src or connect-src of the view's origins, reported at once as `csp_blocked`. */
  readonly #onViolation = (event: SecurityPolicyViolationEvent): void => {
    const { status, shownIn, origin, error } = this.#state;
    const frameOrigin = status === 'loading' && shownIn !== 'popup' ? origin : undefined;
    const frame = frameOrigin ? blockedOrigin(event, 'frame-src', [frameOrigin]) : undefined;
    if (frame) return void this.#fail(cspBlocked('frame-src', frame));
    const service = blockedOrigin(event, 'connect-src', [originOf(this.session.provider?.baseUrl)]);
    if (!service) return;
    if (status === 'requesting') this.#cspError = cspBlocked('connect-src', service);
    else if (status === 'error' && error?.code === 'network_error') this.#fail(cspBlocked('connect-src', service));
  };
}

/** Whether `host` can be seen: connected, its tab visible, not hidden by a style (`checkVisibility` where there is one). */
export function isShown(host: HTMLElement): boolean {
  if (document.visibilityState === 'hidden' || !host.isConnected) return false;
  const check = (host as HTMLElement & { checkVisibility?: () => boolean }).checkVisibility;
  return check ? check.call(host) : true;
}

function viewError(error: unknown): EsignError {
  const e = EsignError.from(error, 'view_failed');
  if (SESSION_CODES.has(e.code) || e.code === 'view_failed' || e.code === 'network_error') return e;
  // one code for "the service gave no page"; the service's own code, status and RequestId stay on it
  return new EsignError('view_failed', `The service did not give an embedded page: ${e.message}`, {
    status: e.status,
    requestId: e.requestId,
    serviceCode: e.serviceCode ?? e.code,
    retryAfter: e.retryAfter,
    cause: e,
  });
}

// ---- the inline frame ----

/*
 * The inline frame of an embedded view, one job: every Url goes to an iframe that never navigated before, and only
 * by `location.replace` after the Url was checked (never through a `src` attribute: the token stays out of the DOM).
 *
 * Building an iframe makes the browser create a browsing context and load about:blank synchronously (several ms), so
 * it is done before the Url is needed: while the element waits with a session (idle or expired, inline, settings
 * valid, shown), one blank, hidden, inert frame is built in idle time after a render (`requestIdleCallback`, else a
 * short timeout); the next request adopts it. Without one (no idle time yet, or a renewal of a frame in use), a fresh
 * blank frame is rendered as soon as the request is sent, so that work overlaps the request. It also sizes the
 * frame to the height its page reports.
 */
/** A checked Url, not given to a window yet. */
export interface HeldUrl {
  url: string;
  expiresAtMs: number;
  /** A frame that was not blank any more was replaced once for this Url (a second time is an error, not a loop). */
  replacedFrame?: boolean;
}

/** How long a pre-built frame may wait for idle time before it is built anyway (requestIdleCallback's timeout). */
const PREBUILD_IDLE_TIMEOUT_MS = 2_000;
/** Where requestIdleCallback is missing: build the pre-built frame this long after a render, past the first paint. */
const PREBUILD_FALLBACK_DELAY_MS = 100;

export class ViewFrame {
  #viewId = 0;
  #pending = false;
  #height: number | undefined;
  #prebuilt = false;
  #cancelIdle: (() => void) | undefined;
  /** Frames that were given a Url: never given another (a Url may be placed before the update that renders its fresh frame). */
  readonly #used = new WeakSet<HTMLIFrameElement>();
  readonly #host: ReactiveControllerHost & HTMLElement;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.#host = host;
  }

  /**
   * The key of the rendered iframe. A new key means a new iframe element: it changes whenever a frame that never
   * navigated is needed (a pre-built frame, or a Url with no unused frame to adopt), so every Url gets a fresh one.
   */
  get viewId(): number {
    return this.#viewId;
  }

  /** True while the fresh frame of a Url on its way is rendered (blank, sandboxed, hidden). */
  get pending(): boolean {
    return this.#pending;
  }

  /** The height the page reported with `resize`, in CSS pixels. */
  get height(): number | undefined {
    return this.#height;
  }

  /** The rendered iframe, looked up in the shadow root as Lit's `@query` does (one iframe at a time: the template keys it). */
  get element(): HTMLIFrameElement | undefined {
    return this.#host.shadowRoot?.querySelector('iframe') ?? undefined;
  }

  /** Whether the pre-built frame is rendered: one was built, and `wanted` (the element still waits for a Url). */
  prebuilt(wanted: boolean): boolean {
    return this.#prebuilt && wanted;
  }

  /**
   * A Url is asked for: its frame is the pre-built one if it is rendered and still blank (same key, so the same
   * element, shown as pending at once), else a new one (new key), rendered by `requestSent()`.
   */
  prepare(inline: boolean): void {
    const adopt = inline && this.#prebuilt && this.isFresh(this.element);
    this.forgetPrebuilt();
    this.#height = undefined;
    if (adopt) this.#pending = true;
    else this.#renew();
  }

  /** The request of an inline Url is on its way: its blank frame is rendered now, so building it does not delay sending it. */
  requestSent(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#host.requestUpdate();
  }

  /** The request ended (answered or failed): the frame is not waiting for a Url any more. */
  settled(): void {
    this.#pending = false;
  }

  /** The page reported its height. */
  resize(height: number): void {
    this.#height = height;
    this.#host.requestUpdate();
  }

  /** The next render makes a new iframe element. */
  #renew(): void {
    this.#viewId += 1;
    this.#host.requestUpdate();
  }

  /** A frame that was never given a Url and still shows its initial about:blank (same origin as this page, so readable). */
  isFresh(frame: HTMLIFrameElement | undefined): frame is HTMLIFrameElement {
    if (!frame || !frame.isConnected || this.#used.has(frame)) return false;
    try {
      return frame.contentWindow?.location.href === 'about:blank';
    } catch {
      return false; // another origin's document: it navigated
    }
  }

  /** The rendered frame, if it may still be given a Url (attached, never given one). */
  get candidate(): HTMLIFrameElement | undefined {
    const frame = this.element;
    return frame && frame.isConnected && !this.#used.has(frame) ? frame : undefined;
  }

  /**
   * The rendered frame if it may take `held` now (attached, never given a Url, still about:blank); undefined while
   * there is none yet. A frame that navigated anyway (should not happen) is never reused: a new one is rendered, once
   * per Url ('failed' the second time).
   */
  blank(held: HeldUrl): HTMLIFrameElement | 'failed' | undefined {
    const frame = this.candidate;
    if (!frame || this.isFresh(frame)) return frame;
    this.#used.add(frame);
    if (held.replacedFrame) return 'failed';
    held.replacedFrame = true;
    this.#renew();
    return undefined;
  }

  /** Gives a fresh frame its Url, by navigation. */
  navigate(frame: HTMLIFrameElement, url: string): void {
    this.#used.add(frame);
    // exactly as returned, and as a navigation rather than a src attribute: the token stays out of the DOM, and a
    // re-inserted frame (which reloads its src) has nothing to load again (isFresh checked that contentWindow exists).
    // sandbox flags are taken when a navigation starts: the service's page gets the full set, the blank document never had scripts
    frame.setAttribute('sandbox', FRAME_SANDBOX);
    frame.contentWindow!.location.replace(url);
  }

  /** No frame is built ahead of need any more (a pending idle build is cancelled). */
  forgetPrebuilt(): void {
    this.#cancelIdle?.();
    this.#cancelIdle = undefined;
    this.#prebuilt = false;
  }

  /** After a render: forgets a pre-built frame that is no longer `wanted`, or asks for one in idle time while `shown`. */
  schedulePrebuild(wanted: () => boolean, shown: () => boolean): void {
    if (!wanted()) {
      // not rendered any more (framePrebuilt is false): the next one is a new frame
      this.#prebuilt = false;
      return;
    }
    if (this.#prebuilt || this.#cancelIdle || !shown()) return;
    this.#cancelIdle = whenIdle(() => {
      this.#cancelIdle = undefined;
      if (this.#prebuilt || !wanted() || !shown()) return;
      // a new key: a new iframe element, attached blank by the next render; never one that was given a Url
      this.#prebuilt = true;
      this.#renew();
    });
  }

  /** The height the page reported, set through the CSSOM: never a style attribute, so a strict style-src allows it. */
  size(): void {
    const frame = this.element;
    if (!frame) return;
    const { style } = frame;
    let height = '';
    if (this.#height) {
      // the page reported the height of its own viewport's content; the frame's box also holds its border (and any
      // padding a page style gives it through ::part(frame)) when it is border-box, as it is by default: without
      // them the page is a few pixels short and engines with classic scrollbars show one
      const box = getComputedStyle(frame);
      const around =
        box.boxSizing === 'border-box'
          ? ['borderTopWidth', 'borderBottomWidth', 'paddingTop', 'paddingBottom'].reduce(
              (sum, side) => sum + (parseFloat(box[side as 'borderTopWidth']) || 0),
              0,
            )
          : 0;
      height = `${this.#height + around}px`;
    }
    style.flexBasis = height;
    style.height = height;
  }

  /** Forgets the current page's frame: an iframe keeps its src when detached and loads it again when re-inserted. */
  clear(): void {
    this.#pending = false;
    this.#height = undefined;
    this.element?.removeAttribute('src');
  }
}

/** Runs `callback` in idle time (requestIdleCallback with a timeout, else a short timeout); returns the cancel. */
function whenIdle(callback: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const handle = requestIdleCallback(callback, { timeout: PREBUILD_IDLE_TIMEOUT_MS });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, PREBUILD_FALLBACK_DELAY_MS);
  return () => clearTimeout(timer);
}

// ---- the phone sheet ----

/*
 * The phone sheet of the embedded views (`sheet` attribute): below a breakpoint the shown page takes the whole screen,
 * with a visible close button and the safe areas kept clear, and the browser's back button closes it instead of
 * leaving the host page.
 *
 * How: while the frame is shown (requesting into a blank frame, loading, loaded) and the viewport is narrower than
 * `--esign-sheet-breakpoint` (default 640px), the element's `[part~=base]` becomes a full-screen layer: in the top
 * layer as a manual popover where the browser has popovers (no z-index of the page can cover it), else fixed at
 * `--esign-sheet-z-index`. Nothing moves in the DOM (a moved iframe reloads, and its Url is single-use), and the
 * viewport meta is never touched (pinch-zoom stays). Opening pushes one history entry (the page's own state kept, plus
 * a marker); back (popstate) closes the page; closing any other way (the close button, Escape, `close()`, an envelope
 * sent, an error, a wider window) goes back over that entry, so none is left behind.
 *
 * Who does what: this controller owns the sheet's state (`open`, its history entry, the popstate, resize and Escape
 * listeners) and does only what cannot be a binding: `showPopover()`/`hidePopover()` and moving the focus. The
 * element's template (template.ts) renders the open sheet from `open`: the base part's `data-sheet`, `role`, `aria-label`
 * and `popover`, and the bar with its close button, with the element's styles and words. It is loaded with the view's
 * controller; before that the sheet is closed.
 */
export interface SheetHost extends ReactiveControllerHost, HTMLElement {
  /** The element's `sheet` setting. */
  sheet: boolean;
  close(): void;
}

/** Below this viewport width (a CSS length) the shown page is a sheet, unless `--esign-sheet-breakpoint` says otherwise. */
export const SHEET_BREAKPOINT = '640px';
/** The history state's key that marks the entry a sheet pushed. */
const MARK = 'esignSheet';

/**
 * Our own `history.back()` calls whose popstate has not come yet, for every element (one element may go back as it is
 * removed, while another opens): a popstate that is one of these is not the person's.
 */
let pendingBacks = 0;
/** True while the popstate being dispatched is one of ours (set by the first listener, registered here). */
let ownPopState = false;
if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    ownPopState = pendingBacks > 0;
    if (ownPopState) pendingBacks -= 1;
  });
}

export class SheetController implements ReactiveController {
  readonly #host: SheetHost;
  /** The view the sheet shows (its controller). */
  readonly #view: ViewModel;
  #open = false;
  /** Where the focus goes once the element is rendered: to the close button of a sheet just opened, or to the next control. */
  #focus: 'close' | 'next' | undefined;
  /** This sheet's history marker (one per opening). */
  #mark = '';

  constructor(host: SheetHost, view: ViewModel) {
    this.#host = host;
    this.#view = view;
    host.addController(this);
  }

  /** Whether the sheet is open: the template shows `[part~=base]` as the sheet, with its bar. */
  get open(): boolean {
    return this.#open;
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.#onPopState);
    window.addEventListener('resize', this.#onResize);
    this.#host.addEventListener('keydown', this.#onKey);
    this.#host.requestUpdate();
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.#onPopState);
    window.removeEventListener('resize', this.#onResize);
    this.#host.removeEventListener('keydown', this.#onKey);
    if (this.#open) {
      this.#close();
      this.#host.requestUpdate();
    }
  }

  /** Before the element renders: open while the frame is shown on a narrow viewport, else closed. */
  hostUpdate(): void {
    const wanted = this.#host.isConnected && this.#host.sheet && frameShown(this.#view) && this.#narrow();
    if (wanted === this.#open) return;
    if (wanted) {
      this.#open = true;
      this.#focus = 'close';
      this.#mark = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const state: unknown = history.state;
      history.pushState({ ...(state !== null && typeof state === 'object' ? state : {}), [MARK]: this.#mark }, '');
    } else {
      this.#close();
    }
  }

  /** Once rendered: the open sheet in the top layer, and the focus where it goes. */
  hostUpdated(): void {
    const root = this.#host.shadowRoot;
    const base = this.#base();
    const focus = this.#focus;
    this.#focus = undefined;
    // the close button had focus: it goes to the element's next control (its open button), not to the page's body
    if (focus === 'next') root?.querySelector<HTMLElement>('button')?.focus();
    if (!this.#open || !base) return;
    if (typeof base.showPopover === 'function' && !base.matches(':popover-open')) base.showPopover();
    // focus was on what opened it (gone now) or nowhere: the close button, the one control of the sheet the page can give it
    const active = document.activeElement;
    if (focus === 'close' && (!active || active === document.body || (active === this.#host && !root?.activeElement))) {
      root?.querySelector<HTMLElement>('[part~="sheet-close"]')?.focus();
    }
  }

  /** Whether the viewport is narrower than the breakpoint (the element's `--esign-sheet-breakpoint`, a CSS length). */
  #narrow(): boolean {
    const breakpoint = getComputedStyle(this.#host).getPropertyValue('--esign-sheet-breakpoint').trim() || SHEET_BREAKPOINT;
    return window.matchMedia(`(width < ${breakpoint})`).matches;
  }

  #base(): HTMLElement | null | undefined {
    return this.#host.shadowRoot?.querySelector<HTMLElement>('[part~="base"]');
  }

  /**
   * Back to the element's place in the page (the next render drops the sheet's attributes and bar); our history
   * entry, if it is still the current one, is gone back over.
   */
  #close(): void {
    this.#open = false;
    this.#focus = this.#host.shadowRoot?.activeElement?.matches('[part~="sheet-close"]') ? 'next' : undefined;
    const base = this.#base();
    if (typeof base?.hidePopover === 'function' && base.matches(':popover-open')) base.hidePopover();
    if (this.#onOurEntry()) {
      pendingBacks += 1;
      history.back();
    }
  }

  #onOurEntry(): boolean {
    const state: unknown = history.state;
    return state !== null && typeof state === 'object' && (state as Record<string, unknown>)[MARK] === this.#mark;
  }

  /** Back (or forward) left our entry: the person closed the sheet, so the page goes; our own back is not that. */
  readonly #onPopState = (): void => {
    if (ownPopState) return;
    if (this.#open && !this.#onOurEntry()) {
      this.#mark = '';
      this.#host.close();
    }
  };

  readonly #onResize = (): void => {
    if (this.#host.sheet) this.#host.requestUpdate();
  };

  readonly #onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && this.#open && !event.defaultPrevented) {
      event.preventDefault();
      this.#host.close();
    }
  };
}

// what the element adds with this part, beside the controller: the phone sheet (`SheetController`, above) and
// esign-activity
export { ActivityController } from '../shared/activity.js';
