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
import type { FrameFacts } from './connect.js';
import { activities, transition, type ViewActivity, type ViewEffect, type ViewEvent } from './machine.js';
import { hasPage, initialViewState, type ViewState } from './view-state.js';
import { ViewFrame, ViewPopup, type HeldUrl } from './view-frame.js';
import { allowedOriginsFor, hostPageOrigin, settingsFault, type OperateType, type ViewDisplay } from './rules.js';
import { checkEmbeddedUrl, configProblem, EXPIRY_MARGIN_MS, isEsignMessage, isExpired, loadTimeoutMessage, parseInstant } from './url-rules.js';

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
  readonly #popup = new ViewPopup();
  readonly #tabs: TabChannel;
  /** Asks `embedded/views` for a Url; a new run aborts the one under way. */
  readonly #url: Task<[number, SessionProvider, readonly string[], ViewDisplay], UrlOutcome>;
  /** The page's CSP blocked the request under way: its failure, when it comes, is told as this. */
  #cspError: EsignError | undefined;
  /** The accepted Url, until it is given to its frame or popup (inline: held until the element is shown). */
  #held: HeldUrl | undefined;
  /** The state's activities that run (machine.ts `activities`), by key: each with its stop. */
  readonly #running = new Map<string, () => void>();
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
    const frame = this.#frame;
    return { viewId: frame.viewId, pending: frame.pending, prebuilt: frame.prebuilt(this.#wantsPrebuilt()), height: frame.height };
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
    if (!this.#state.placed || this.#state.status !== 'loading' || this.#loadTimeoutMs() > 0) return;
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

  /**
   * Runs `event` through the machine, performs its effects, and starts and stops the activities of the state it
   * entered (the one place a timer starts or stops); events sent meanwhile follow in order.
   */
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
        this.#syncActivities();
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
        return this.#showPage(effect.display, effect.url, effect.expiresAt);
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

  /** Stops the activities the state does not have any more, starts the ones it has now. */
  #syncActivities(): void {
    const wanted = new Map(activities(this.#state).map((activity) => [activity.key, activity]));
    for (const [key, stop] of this.#running) {
      if (wanted.has(key)) continue;
      this.#running.delete(key);
      stop();
    }
    for (const [key, activity] of wanted) if (!this.#running.has(key)) this.#running.set(key, this.#start(activity));
  }

  /** Starts `activity`; returns its stop. Each ends by telling the machine what happened. */
  #start(activity: ViewActivity): () => void {
    const later = (delay: number, event: () => ViewEvent): (() => void) => {
      const timer = setTimeout(() => this.#send(event()), Math.min(Math.max(0, delay), 2_147_483_647));
      return () => clearTimeout(timer);
    };
    switch (activity.type) {
      case 'expiry-watch':
        // never used, now too old: a new one while the element can be seen
        return later((this.#held?.expiresAtMs ?? 0) - EXPIRY_MARGIN_MS - Date.now(), () => ({ type: 'url-expiring', shown: isShown(this.#host) }));
      case 'ready-wait': {
        // the element's `loadTimeout`; the machine decides what a silent page means
        const timeout = this.#loadTimeoutMs();
        if (timeout <= 0) return () => undefined;
        return later(timeout, () => ({
          type: 'ready-timeout',
          error: new EsignError('frame_blocked', loadTimeoutMessage(this.#state.origin ?? '', timeout, this.#state.shownIn === 'popup')),
          online: browserOnline(),
        }));
      }
      case 'popup-watch': {
        const timer = setInterval(() => {
          if (!this.#popup.open) this.#send({ type: 'closed' });
        }, 500);
        return () => clearInterval(timer);
      }
      case 'retry-wait':
        return later(backoffDelay(activity.attempt, UNREACHABLE_RETRY), () => ({ type: 'retry-due', visible: isShown(this.#host) }));
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

  /** Gives the accepted Url to the popup at once, or holds it for the frame (placed once the element can be seen). */
  #showPage(display: ViewDisplay, url: string, expiresAt: string): void {
    this.#frame.settled();
    // an unreadable ExpiresAt makes the Url good for immediate use only
    this.#held = { url, expiresAtMs: parseInstant(expiresAt) ?? Date.now() };
    if (display === 'popup') {
      const held = this.#take();
      const popup = this.#popup.window;
      this.#send(held && popup && this.#popup.place(popup, held.url) ? { type: 'page-placed' } : { type: 'closed' });
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
      this.#frame.navigate(frame, held.url);
      this.#send({ type: 'page-placed' });
    }
  }

  /** The held Url, given away: it is not held any more. */
  #take(): HeldUrl | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }

  /** Forgets the current page: request, held Url, the frame's src, the popup (unless `keepPopup`); the state's activities stop by themselves. */
  #cancel(keepPopup: boolean): void {
    this.#url.abort();
    this.#held = undefined;
    this.#frame.clear();
    this.#popup.release(keepPopup);
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
    const { shownIn, origin, placed } = this.#state;
    if (!placed || !hasPage(this.#state)) return;
    const page = shownIn === 'popup' ? this.#popup.window : this.#frame.element?.contentWindow;
    if (!page || event.source !== page || event.origin !== origin) return;
    emit(this.#host, 'esign-view-message', { data: event.data, origin: event.origin });
    const data: unknown = event.data;
    if (!isEsignMessage(data)) return;
    switch (data.type) {
      case 'ready':
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
