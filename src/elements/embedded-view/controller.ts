/**
 * The controller behind <esign-signing-frame> and <esign-contract-list>: it reports facts to the view machine
 * (machine.ts decides all policy) and performs what the machine returns. Facts in: the host's settings, session and
 * visibility after each update (`host`), a click or `open()`, the Url's answer (url-request.ts), the page's messages,
 * a CSP block, the connection going or coming back, the back/forward cache, a timer of the state's activities. Effects
 * out: ask for a Url, give it to the frame or the popup (view-frame.ts), forget a page, fire events, tell other tabs;
 * and the state's activities (machine.ts `activities`: the expiry watch, the ready wait, the popup watch, the retry
 * wait, the frame's idle pre-build) started on entering a state and stopped on leaving it. Loaded with the sheet
 * (view-part.ts) by the element once it has a session or is opened; a custom element can host it too
 * (`esign-elements/headless`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import { blockedOrigin, cspBlocked, originOf } from '../../core/service/csp-violation.js';
import { browserOnline } from '../../core/service/unreachable.js';
import { emit, type EsignEnvelopeSentDetail } from '../shared/events.js';
import { OnlineController } from '../shared/online.js';
import { SessionController } from '../shared/session-controller.js';
import { TabChannel } from '../shared/tab-channel.js';
import type { FrameFacts } from './connect.js';
import { transition } from './machine.js';
import type { HostFacts, ViewEffect, ViewEvent } from './machine-types.js';
import { ViewActivities } from './view-activities.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, UrlRequest, type UrlOutcome } from './url-request.js';
import { initialViewState, type ViewState } from './view-state.js';
import { ViewPage } from './view-page.js';
import { hostPageOrigin, settingsFault, type OperateType, type ViewDisplay } from './rules.js';
import { allowedOriginsFor, checkEmbeddedUrl, configProblem } from './url-rules.js';

/** The element that hosts the controller: its settings (the embedded views' attributes). */
export interface EmbeddedViewHost extends ReactiveControllerHost, HTMLElement {
  /** Opens the page by itself as soon as there is a session (and FileIds); inline only. */
  readonly auto: boolean;
  readonly display: ViewDisplay;
  readonly allowedOrigins: string;
  readonly loadTimeout: number;
  /** Ms to wait for the service's answer to one Url request (0: no end); default 15 000 (the elements' `request-timeout`). */
  readonly requestTimeout?: number;
}

export interface EmbeddedViewOptions {
  operateType: OperateType;
  /** FileIds for request_signatures. */
  fileIds?: () => readonly string[];
}

export class EmbeddedViewController implements ReactiveController {
  readonly session: SessionController;
  readonly operateType: OperateType;

  #state: ViewState;
  readonly #host: EmbeddedViewHost;
  readonly #fileIds: () => readonly string[];
  /** The page on its way to its frame or popup. */
  readonly #page: ViewPage;
  readonly #tabs: TabChannel;
  /** Asks `embedded/views` for a Url; a new run aborts the one under way. */
  readonly #url: UrlRequest;
  /** The state's activities (view-activities.ts): started on entering a state, stopped on leaving it. */
  readonly #activities = new ViewActivities({
    send: (event) => this.#send(event),
    shown: () => isShown(this.#host),
    heldUntil: () => this.#page.heldUntil,
    popupOpen: () => this.#page.popup.open !== null,
    loadTimeout: () => this.#loadTimeoutMs(),
    prebuildFrame: () => this.#page.frame.prebuild(),
    forgetPrebuiltFrame: () => this.#page.frame.forgetPrebuilt(),
  });
  /** Events sent while effects run wait their turn. */
  readonly #queue: ViewEvent[] = [];
  #busy = false;
  /** open() calls waiting for their request's outcome. */
  #opening: Array<{ request: number; resolve: () => void; reject: (error: EsignError) => void }> = [];
  #sentWaiters: Array<(detail: EsignEnvelopeSentDetail) => void> = [];
  /** A `host` event is due (sent after the update, never inside it). */
  #reporting = false;
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
    this.#page = new ViewPage(host, (event) => this.#send(event));
    this.#url = new UrlRequest(host, options.operateType, (outcome) => this.#answered(outcome));
    host.addController(this);
    // the connection going or coming back: the machine decides whether the view resumes, or says a frame cannot load
    new OnlineController(host, (online) => this.#send({ type: online ? 'back-online' : 'went-offline' }));
    // sent envelopes go to the other tabs of this service and Space (and come from them: the contract list refreshes)
    this.#tabs = new TabChannel(host, () => session.provider);
  }

  // ---- what the element reads (and gives to `connect()`, connect.ts) ----

  /** The machine's state. */
  get state(): ViewState {
    return this.#state;
  }
  /** True while the element has a session to ask with. */
  get hasSession(): boolean {
    return this.session.provider?.session !== undefined;
  }
  get hasFiles(): boolean {
    return this.operateType !== 'request_signatures' || this.#fileIds().length > 0;
  }
  /** The frame's facts: its key, whether it waits for a Url (pending, or pre-built), the height its page reported. */
  get frame(): FrameFacts {
    const { frame } = this.#page;
    return { viewId: frame.viewId, pending: frame.pending, prebuilt: frame.prebuilt, height: frame.height };
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
    this.#page.opened(problem ? null : popup);
    if (problem) popup?.close();
    this.#send({ type: 'open', display, autoKey: this.#autoKey(), problem, blocked: display === 'popup' && !popup });
    return this.#outcome(this.#state.request);
  }

  /** Closes the page (frame or popup), or leaves the sent state, and goes back to idle. */
  close(): void {
    this.#send({ type: 'closed' });
  }

  /** The iframe's `load` event: only trusted as "loaded" when the load timeout is off (a page that posts no `ready`). */
  readonly onFrameLoad = (): void => {
    if (!this.#state.placed || this.#state.status !== 'loading' || this.#loadTimeoutMs() > 0) return;
    this.#send({ type: 'page-ready' });
  };

  /** Brings the popup of the current page to the front. */
  focusPopup(): void {
    this.#page.popup.focus();
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
    // a detached element keeps no frame: `hidden` ends the pre-build, and the update its `cancel` asks for renders none
    this.#send({ type: 'hidden' });
  }

  hostUpdated(): void {
    this.#page.frame.size();
    this.#page.placeHeld(this.#state, isShown(this.#host));
    // what the host is now, told after the update (what it starts never runs inside one); the machine decides
    if (this.#reporting) return;
    this.#reporting = true;
    queueMicrotask(() => {
      this.#reporting = false;
      if (this.#host.isConnected) this.#send({ type: 'host', facts: this.#facts() });
    });
  }

  // ---- events in, effects out ----

  /**
   * Runs `event` through the machine, performs its effects, and starts and stops the activities of the state it
   * entered (the one place the state's timers start or stop); events sent meanwhile follow in order.
   */
  #send(event: ViewEvent): void {
    this.#queue.push(event);
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        const { state, effects } = transition(this.#state, next);
        if (effects.length === 0 && state === this.#state) continue;
        this.#state = state;
        // rendered before any listener of the events below runs
        this.#host.requestUpdate();
        for (const effect of effects) this.#perform(effect);
        this.#activities.sync(state);
        this.#settleOpening();
      }
    } finally {
      this.#busy = false;
    }
  }

  #perform(effect: ViewEffect): void {
    switch (effect.type) {
      case 'request-url':
        return this.#requestUrl(effect.request, effect.display);
      case 'show-page':
        return this.#page.show(effect.display, effect.url, effect.expiresAt, this.#state, isShown(this.#host));
      case 'cancel':
        return this.#cancel(effect.keepPopup === true);
      case 'emit':
        emit(this.#host, effect.name, effect.detail as never);
        if (effect.name === 'esign-envelope-sent') for (const resolve of this.#sentWaiters.splice(0)) resolve(effect.detail);
        return;
      case 'tell-tabs':
        return this.#tabs.post(effect.detail);
    }
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
    if (!this.#page.prepare(display)) {
      this.#send({ type: 'closed' });
      return;
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
    // the fresh frame is rendered once the request is on its way, so building it does not delay sending it
    this.#url.run({ request, provider, fileIds, timeoutMs: this.#requestTimeoutMs(), sent: () => display === 'inline' && this.#page.frame.requestSent() });
  }

  /**
   * A request's outcome: its Url checked against the allowed origins, then told to the machine, which drops the answer
   * of any request but the latest (the one place a stale answer is told from a fresh one).
   */
  #answered(outcome: UrlOutcome): void {
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
    this.#send({ type: 'url-answered', request: outcome.request, url: outcome.url as string, origin: check.origin, expiresAt: outcome.expiresAt });
  }

  /** Forgets the current page: request, held Url, the frame's src, the popup (unless `keepPopup`); the state's activities stop by themselves. */
  #cancel(keepPopup: boolean): void {
    this.#url.abort();
    this.#page.clear(keepPopup);
  }

  /** The host's `requestTimeout` (a bad value is a settings fault, reported before any request), else the default. */
  #requestTimeoutMs(): number {
    const timeout = this.#host.requestTimeout;
    return timeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : Number(timeout) || 0;
  }

  /** The element's `loadTimeout` (default there); a value that is not a number is a settings fault, reported: no timer meanwhile. */
  #loadTimeoutMs(): number {
    return Number(this.#host.loadTimeout) || 0;
  }

  // ---- what the host is ----

  /** The host's facts the machine decides the view's opening from (machine.ts `host`). */
  #facts(): HostFacts {
    return {
      problem: this.#settingsProblem(),
      session: this.hasSession,
      shown: isShown(this.#host),
      inline: this.#host.display !== 'popup',
      auto: this.#host.auto,
      hasFiles: this.hasFiles,
      autoKey: this.#autoKey(),
    };
  }

  /** What `auto` opens for: the session's service and Space, the allowed origins, the FileIds. */
  #autoKey(): string {
    const provider = this.session.provider;
    return JSON.stringify([provider?.baseUrl, provider?.session?.spaceId, this.#host.allowedOrigins, [...this.#fileIds()]]);
  }

  /** What is wrong with the element's settings now, in words (undefined: nothing). */
  #settingsProblem(): string | undefined {
    const pageOrigin = hostPageOrigin();
    return configProblem(this.#host, settingsFault(this.#host, pageOrigin), pageOrigin);
  }

  /**
   * The page came back from the back/forward cache: its frame shows a page whose Url was used (or has expired since),
   * so a new Url is asked for, as for a re-attached element; a sent envelope stays shown.
   */
  readonly #onPageShow = (event: PageTransitionEvent): void => {
    if (!event.persisted) return;
    this.#send({ type: 'page-restored' });
    this.#host.requestUpdate();
  };

  /** The tab is visible again or the window focused: a render, and one try at once of a hop that could not be reached. */
  readonly #onVisibility = (): void => {
    if (document.visibilityState !== 'visible') return;
    this.#host.requestUpdate();
    this.#send({ type: 'retry-due', visible: isShown(this.#host) });
  };

  // ---- the page and the page's policy ----

  /** The page's messages (view-page.ts reads them: only the page we opened, on the origin of its Url). */
  readonly #onMessage = (event: MessageEvent): void => this.#page.hear(event, this.#state, this.#fileIds(), isShown(this.#host));

  /** A blocked frame-src of the page's origin or connect-src of the service's: told to the machine as `csp_blocked`. */
  readonly #onViolation = (event: SecurityPolicyViolationEvent): void => {
    const frame = blockedOrigin(event, 'frame-src', [this.#state.origin]);
    const service = blockedOrigin(event, 'connect-src', [originOf(this.session.provider?.baseUrl)]);
    if (frame) this.#send({ type: 'csp-blocked', error: cspBlocked('frame-src', frame) });
    else if (service) this.#send({ type: 'csp-blocked', error: cspBlocked('connect-src', service) });
  };
}

/** Whether `host` can be seen: connected, its tab visible, not hidden by a style (`checkVisibility` where there is one). */
export function isShown(host: HTMLElement): boolean {
  if (document.visibilityState === 'hidden' || !host.isConnected) return false;
  const check = (host as HTMLElement & { checkVisibility?: () => boolean }).checkVisibility;
  return check ? check.call(host) : true;
}
