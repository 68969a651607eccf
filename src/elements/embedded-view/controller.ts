/**
 * The one controller behind <esign-signing-frame> and <esign-contract-list>: asks `embedded/views` for a
 * Url, checks it, gives it once to an iframe (or a popup opened from a click), honours ExpiresAt, watches
 * the load and the page's messages, renews, and reports all of it as esign-* events. The states' look is in
 * render.ts and states.ts, the rules in rules.ts and page-rules.ts.
 *
 * Frame lifecycle (inline display): every Url goes to an iframe that never navigated before, and only by
 * `location.replace` after the Url was checked (never through a `src` attribute). Building an iframe makes
 * the browser create a browsing context and load about:blank synchronously (several ms), so it is done before
 * the Url is needed: while the element waits with a session (idle or expired, inline, settings valid, shown),
 * one blank, hidden, inert frame is built in idle time after a render (`requestIdleCallback`, else a short
 * timeout); the next request adopts it. Without one (no idle time yet, or a renewal of a frame in use), a fresh
 * blank frame is built as soon as the request is sent, so that work overlaps the request. A pre-built frame is
 * dropped on error, bad settings, popup display, a lost session or disconnection.
 *
 * Loaded by the element (embedded-view/element.ts) once it has a session or is opened.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ServiceClient } from '../../core/service/service-client.js';
import { EsignError, type EsignErrorCode } from '../../core/errors.js';
import { blockedOrigin, cspBlocked, originOf } from '../../core/service/csp-violation.js';
import { emit } from '../shared/events.js';
import type { SessionController } from '../shared/session-controller.js';
import type { OperateType, ViewDisplay, ViewStatus } from './rules.js';
import type * as Rules from './rules.js';
import {
  checkEmbeddedUrl,
  configProblem,
  EXPIRY_MARGIN_MS,
  FRAME_SANDBOX,
  isEsignMessage,
  isExpired,
  parseInstant,
} from './page-rules.js';

import { frameStyles, type ViewTemplates } from './states.js';
import { adoptStyles } from '../shared/adopt-styles.js';

// what the element needs once this module is loaded: the later states' look and words
export { renderEmbeddedView, type ViewTemplates } from './states.js';
export { embeddedViewStateMessages } from './states.messages.js';
export { attachExtras } from './extras.js';

/** How long a pre-built frame may wait for idle time before it is built anyway (requestIdleCallback's timeout). */
const PREBUILD_IDLE_TIMEOUT_MS = 2_000;
/** Where requestIdleCallback is missing: build the pre-built frame this long after a render, past the first paint. */
const PREBUILD_FALLBACK_DELAY_MS = 100;
/** Automatic renewals without a `ready` in between: stops a loop when the page keeps saying "expired". */
const MAX_AUTO_RENEWALS = 2;
/** (assumption) `error` codes of the embedded pages that a new Url cures (docs/architecture.md). */
const RENEWABLE_PAGE_ERRORS = new Set(['url_used', 'url_expired', 'session_expired']);
/** Errors about the session itself are the session's to report; they keep their code. */
const SESSION_CODES = new Set<EsignErrorCode>(['no_session', 'no_files', 'aborted', 'session_expired', 'refresh_failed', 'login_expired']);

export interface EmbeddedViewHost extends ReactiveControllerHost, HTMLElement {
  connect: string | null | undefined;
  auto: boolean;
  display: ViewDisplay;
  allowedOrigins: string;
  loadTimeout: number;
}

/**
 * The element's first-render modules this one uses too: handed over by the element, not imported. A module imported
 * both by the first render and by this lazy one would be a file of its own in a page's bundle (esbuild makes one
 * chunk per set of entry points that reach a module), and that split costs every page about 0.9 KB gzip and a request
 * (docs/bundle-size.md). Types only are imported from them here.
 */
export interface ViewBase {
  /** Of rules.ts: the settings' check, the allowed origins, the page's origin. */
  readonly rules: ViewRules;
  /** Of render.ts: the first states' templates, which the later states keep in place. */
  readonly render: ViewTemplates;
}
export type ViewRules = Pick<typeof Rules, 'allowedOriginsFor' | 'hostPageOrigin' | 'settingsFault'>;

export interface EmbeddedViewOptions {
  operateType: OperateType;
  /** FileIds for request_signatures. */
  fileIds?: () => readonly string[];
  base: ViewBase;
}

interface HeldUrl {
  url: string;
  expiresAtMs: number;
  /** A frame that was not blank any more was replaced once for this Url (a second time is an error, not a loop). */
  replacedFrame?: boolean;
}

export class EmbeddedViewController implements ReactiveController {
  readonly session: SessionController;
  /** The inline iframe when rendered, looked up in the shadow root (the ref directive would add ~1 KB gzip to the bundle). */
  get frameRef(): { readonly value: HTMLIFrameElement | undefined } {
    return { value: this.#host.shadowRoot?.querySelector('iframe') ?? undefined };
  }
  readonly operateType: OperateType;

  status: ViewStatus = 'idle';
  error: EsignError | undefined;
  /** The origin of the current Url (the Url itself is never kept where a template or event can see it). */
  origin: string | undefined;
  /** ExpiresAt of the current Url, as the service sent it. */
  expiresAt: string | undefined;
  /** Where the current page is shown. */
  shownIn: ViewDisplay | undefined;
  /** The envelope the page reported as sent, while `status` is `sent`. */
  sentEnvelopeId: string | undefined;
  /** The height the page reported with `resize`, in CSS pixels. */
  frameHeight: number | undefined;
  /**
   * The key of the rendered iframe. A new key means a new iframe element: it changes whenever a frame that never
   * navigated is needed (a pre-built frame, or a Url with no unused frame to adopt), so every Url gets a fresh one.
   */
  viewId = 0;
  /**
   * True while the request for an inline frame's Url is on its way and its fresh frame (blank, sandboxed, hidden)
   * is rendered: either the pre-built frame it adopted, or one rendered as soon as the request was sent, so that
   * building it (a new browsing context, several ms) overlaps the request instead of following the answer. The Url
   * still only reaches the frame by navigation, after it is checked.
   */
  get framePending(): boolean {
    return this.#framePending;
  }

  /**
   * True while one blank frame is built ahead of need: the element waits (idle or expired) with a session,
   * inline, with valid settings. That frame is hidden and inert (no part, no focus, not in the accessibility
   * tree, out of the layout flow), receives nothing and forwards no message until a request adopts it.
   */
  get framePrebuilt(): boolean {
    return this.#prebuilt && this.#wantsPrebuilt();
  }

  readonly #host: EmbeddedViewHost;
  readonly #fileIds: () => readonly string[];
  #held: HeldUrl | undefined;
  #framePending = false;
  #prebuilt = false;
  #cancelIdle: (() => void) | undefined;
  /** Frames that were given a Url: never given another (a Url may be placed before the update that renders its fresh frame). */
  readonly #usedFrames = new WeakSet<HTMLIFrameElement>();
  #placed = false;
  #abort: AbortController | undefined;
  #loadTimer: ReturnType<typeof setTimeout> | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #popup: Window | null = null;
  #popupTimer: ReturnType<typeof setInterval> | undefined;
  #renewals = 0;
  #autoKey = '';
  #reopen = false;
  #wasShown = false;
  #scheduled = false;
  #resizeObserver: ResizeObserver | undefined;
  #configProblem: string | undefined;
  #resumeOnline = false;
  readonly #rules: ViewRules;
  /** The browser's connection came back or went (the element listens, with its OnlineController). */
  networkChanged(online: boolean): void {
    if (!online || !this.#resumeOnline || this.status !== 'error' || this.error?.code !== 'network_error') return;
    this.#resumeOnline = false;
    void this.#start('inline', null).catch(() => undefined);
  }

  /** Built by the element once it is needed (a session, or a click), with the element's session. */
  constructor(host: EmbeddedViewHost, options: EmbeddedViewOptions, session: SessionController) {
    this.#host = host;
    this.operateType = options.operateType;
    this.#fileIds = options.fileIds ?? (() => []);
    this.session = session;
    this.#rules = options.base.rules;
    host.addController(this);
  }

  /** True while the element has a session to ask with. */
  get hasSession(): boolean {
    return this.session.provider?.session !== undefined;
  }

  get hasFiles(): boolean {
    return this.operateType !== 'request_signatures' || this.#fileIds().length > 0;
  }

  hostConnected(): void {
    // the frame's styles come with this module (added once); the render root exists by now (Lit makes it before hostConnected)
    adoptStyles(this.#host.shadowRoot, frameStyles);
    window.addEventListener('message', this.#onMessage);
    document.addEventListener('visibilitychange', this.#onVisibility);
    document.addEventListener('securitypolicyviolation', this.#onCspViolation);
    if (typeof ResizeObserver === 'function') {
      // a host that goes from display:none to shown changes size: time to use or renew a held Url
      this.#resizeObserver ??= new ResizeObserver(() => this.#host.requestUpdate());
      this.#resizeObserver.observe(this.#host);
    }
    this.#host.requestUpdate();
  }

  hostDisconnected(): void {
    window.removeEventListener('message', this.#onMessage);
    document.removeEventListener('visibilitychange', this.#onVisibility);
    document.removeEventListener('securitypolicyviolation', this.#onCspViolation);
    this.#resizeObserver?.disconnect();
    // moved in the DOM, an iframe reloads its src: the used Url must not be fetched again, so a re-attached element asks for a new one
    this.#reopen = this.shownIn !== 'popup' && (this.status === 'requesting' || this.status === 'loading' || this.status === 'loaded' || this.status === 'expired');
    this.#autoKey = '';
    this.#wasShown = false;
    // a detached element keeps no frame: the update that #reset asks for renders none (framePrebuilt is false)
    this.#forgetPrebuilt();
    this.#reset('idle');
  }

  hostUpdated(): void {
    this.#sizeFrame();
    this.#placeHeld();
    this.#schedulePrebuild();
    if (this.#scheduled) return;
    this.#scheduled = true;
    // decisions that start work run after the update, never inside it
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#decide();
    });
  }

  /**
   * Asks for a new Url and shows it, in the frame or in `popup`: the element opened that window blank inside the
   * user's click (a blocker refuses one opened after an await), null when the browser refused it. Rejects with the
   * EsignError also sent as `esign-error`.
   */
  async open(display: ViewDisplay, popup: Window | null): Promise<void> {
    const problem = this.#configProblemNow();
    if (problem) {
      popup?.close();
      throw this.#fail(new EsignError('invalid_config', problem));
    }
    if (display === 'popup' && !popup) {
      throw this.#fail(new EsignError('popup_blocked', 'The browser blocked the new window. Allow popups for this site and try again.'));
    }
    this.#renewals = 0;
    this.#autoKey = this.#currentAutoKey();
    await this.#start(display, display === 'popup' ? popup : null);
  }

  /** Closes the page (frame or popup) and goes back to idle. */
  close(): void {
    this.#reset('idle');
  }

  /** The iframe's `load` event: only trusted as "loaded" when the load timeout is off (a page that posts no `ready`). */
  readonly onFrameLoad = (): void => {
    if (!this.#placed || this.status !== 'loading' || this.#loadTimeoutMs() > 0) return;
    this.#loaded();
  };

  /** Brings the popup of the current page to the front. */
  focusPopup(): void {
    if (this.#popup && !this.#popup.closed) this.#popup.focus();
  }

  // ---- the flow ----

  async #start(display: ViewDisplay, popup: Window | null): Promise<void> {
    // the frame built ahead of need, if it is still there and still blank, is this Url's frame
    const adopt = display === 'inline' && this.framePrebuilt && this.#isFresh(this.frameRef.value);
    this.#forgetPrebuilt();
    this.#reset(this.status, { keepPopup: popup ?? undefined });
    const provider = this.session.provider;
    if (!provider?.session) {
      popup?.close();
      throw this.#fail(new EsignError('no_session', 'Not connected: connect an e-signature account first.'));
    }
    const fileIds = [...this.#fileIds()];
    if (this.operateType === 'request_signatures' && fileIds.length === 0) {
      popup?.close();
      throw this.#fail(new EsignError('no_files', 'No FileIds: upload the files to sign first.'));
    }
    this.#popup = popup;
    this.status = 'requesting';
    this.error = undefined;
    this.#cspError = undefined;
    // the frame for this Url has never navigated, and stays about:blank until the checked Url is placed: the
    // pre-built one (same key, so the same element; already attached) or a new one (new key)
    if (adopt) this.#framePending = true;
    else this.viewId += 1;
    this.#host.requestUpdate();
    const abort = new AbortController();
    this.#abort = abort;
    // rendered once the request is on its way, so building the frame does not delay sending it
    const sent = (): void => {
      if (display !== 'inline' || abort !== this.#abort || this.#framePending) return;
      this.#framePending = true;
      this.#host.requestUpdate();
    };
    let url: unknown;
    let expiresAt: string;
    try {
      const client = new ServiceClient({
        baseUrl: provider.baseUrl,
        tokens: provider,
        operatorUserId: provider.operatorUserId,
        fetch: (input, init) => {
          const response = globalThis.fetch(input, init);
          sent();
          return response;
        },
      });
      const { data } = this.operateType === 'request_signatures'
        ? await client.requestSignaturesView(fileIds, { signal: abort.signal })
        : await client.signatureStatusView({ signal: abort.signal });
      url = data.Url;
      expiresAt = data.ExpiresAt;
    } catch (error) {
      if (abort !== this.#abort) return; // superseded or torn down
      this.#abort = undefined;
      this.#framePending = false;
      popup?.close();
      const failure = this.#cspError ?? viewError(error);
      this.#cspError = undefined;
      if (failure.code === 'csp_blocked') throw this.#fail(failure);
      if (failure.code === 'network_error' || (typeof navigator !== 'undefined' && navigator.onLine === false)) {
        // offline: open again by itself when the connection returns (inline only: a popup needs a click)
        this.#resumeOnline = true;
        throw this.#fail(new EsignError('network_error', 'The browser is offline or cannot reach the service; the page opens again when the connection returns.', { cause: failure }));
      }
      throw this.#fail(failure);
    }
    if (abort !== this.#abort) return;
    this.#abort = undefined;
    this.#framePending = false;
    const check = checkEmbeddedUrl(url, this.#rules.allowedOriginsFor(this.#host.allowedOrigins, provider.baseUrl), this.#rules.hostPageOrigin());
    if (!check.ok) {
      popup?.close();
      throw this.#fail(new EsignError('url_rejected', check.reason));
    }
    const receivedAt = Date.now();
    // an unreadable ExpiresAt makes the Url good for immediate use only
    const expiresAtMs = parseInstant(expiresAt) ?? receivedAt;
    this.origin = check.origin;
    this.expiresAt = expiresAt;
    this.frameHeight = undefined;
    this.shownIn = display;
    this.status = 'loading';
    emit(this.#host, 'esign-view-ready', { origin: check.origin, expiresAt, operateType: this.operateType });
    if (display === 'popup' && popup) {
      this.#placeInPopup(popup, url as string);
    } else {
      this.#held = { url: url as string, expiresAtMs };
      this.#armExpiry(expiresAtMs - EXPIRY_MARGIN_MS - receivedAt);
      // the frame rendered while requesting takes the Url now, not after another update (else the next update does)
      this.#placeHeld();
    }
    this.#host.requestUpdate();
  }

  /** The height the page reported, set through the CSSOM (as styleMap did, minus its bytes): never a style attribute, so a strict style-src allows it. */
  #sizeFrame(): void {
    const frame = this.frameRef.value;
    if (!frame) return;
    const { style } = frame;
    let height = '';
    if (this.frameHeight) {
      // the page reported the height of its own viewport's content; the frame's box also holds its border (and any
      // padding a page style gives it through ::part(frame)) when it is border-box, as it is by default: without
      // them the page is a few pixels short and engines with classic scrollbars show one
      const box = getComputedStyle(frame);
      const around =
        box.boxSizing === 'border-box'
          ? ['borderTopWidth', 'borderBottomWidth', 'paddingTop', 'paddingBottom'].reduce((sum, side) => sum + (parseFloat(box[side as 'borderTopWidth']) || 0), 0)
          : 0;
      height = `${this.frameHeight + around}px`;
    }
    style.flexBasis = height;
    style.height = height;
  }

  /** Gives a held Url to the frame once the frame exists and the element can be seen. */
  #placeHeld(): void {
    const held = this.#held;
    const frame = this.frameRef.value;
    if (!held || !frame || this.#usedFrames.has(frame) || this.shownIn !== 'inline' || !frame.isConnected || !this.#isShown()) return;
    if (!this.#isFresh(frame)) {
      // not about:blank any more (should not happen): never reuse it; the next update renders a new frame, once
      this.#usedFrames.add(frame);
      if (held.replacedFrame) {
        this.#reset('idle');
        this.#fail(new EsignError('view_failed', 'No blank frame could be prepared for the embedded page.'));
        return;
      }
      held.replacedFrame = true;
      this.viewId += 1;
      this.#host.requestUpdate();
      return;
    }
    if (isExpired(held.expiresAtMs, Date.now()) && this.#renewals < MAX_AUTO_RENEWALS) {
      // too old to use: a new Url, asked for after this update
      this.#held = undefined;
      queueMicrotask(() => this.#renew());
      return;
    }
    this.#held = undefined;
    this.#clearExpiry();
    this.#placed = true;
    this.#usedFrames.add(frame);
    // exactly as returned, and as a navigation rather than a src attribute: the token stays out of the DOM, and a
    // re-inserted frame (which reloads its src) has nothing to load again (#isFresh checked that contentWindow exists)
    // sandbox flags are taken when a navigation starts: the service's page gets the full set, the blank document never had scripts
    frame.setAttribute('sandbox', FRAME_SANDBOX);
    frame.contentWindow!.location.replace(held.url);
    this.#armLoadTimer();
  }

  /** A frame that was never given a Url and still shows its initial about:blank (same origin as this page, so readable). */
  #isFresh(frame: HTMLIFrameElement | undefined): frame is HTMLIFrameElement {
    if (!frame || !frame.isConnected || this.#usedFrames.has(frame)) return false;
    try {
      return frame.contentWindow?.location.href === 'about:blank';
    } catch {
      return false; // another origin's document: it navigated
    }
  }

  /** Whether a frame should wait ready for the next Url: the element waits, inline, with a session and valid settings. */
  #wantsPrebuilt(): boolean {
    return (
      this.#host.isConnected &&
      (this.status === 'idle' || this.status === 'expired' || this.status === 'sent') &&
      this.#host.display === 'inline' &&
      this.hasSession &&
      this.#configProblemNow() === undefined
    );
  }

  /** No frame is built ahead of need any more (a pending idle build is cancelled). */
  #forgetPrebuilt(): void {
    this.#cancelIdle?.();
    this.#cancelIdle = undefined;
    this.#prebuilt = false;
  }

  /** After a render: forgets a pre-built frame that is no longer wanted, or asks for one in idle time. */
  #schedulePrebuild(): void {
    if (!this.#wantsPrebuilt()) {
      // not rendered any more (framePrebuilt is false): the next one is a new frame
      this.#prebuilt = false;
      return;
    }
    if (this.#prebuilt || this.#cancelIdle || !this.#isShown()) return;
    this.#cancelIdle = whenIdle(() => {
      this.#cancelIdle = undefined;
      if (this.#prebuilt || !this.#wantsPrebuilt() || !this.#isShown()) return;
      // a new key: a new iframe element, attached blank by the next render; never one that was given a Url
      this.viewId += 1;
      this.#prebuilt = true;
      this.#host.requestUpdate();
    });
  }

  #placeInPopup(popup: Window, url: string): void {
    if (popup.closed) {
      this.#reset('idle');
      return;
    }
    this.#placed = true;
    popup.location.replace(url);
    this.#armLoadTimer();
    clearInterval(this.#popupTimer);
    this.#popupTimer = setInterval(() => {
      if (this.#popup === popup && popup.closed) this.#reset('idle');
    }, 500);
  }

  #renew(): void {
    this.#renewals += 1;
    const display = this.shownIn ?? 'inline';
    const popup = display === 'popup' && this.#popup && !this.#popup.closed ? this.#popup : null;
    if (display === 'popup' && !popup) {
      this.#reset('expired');
      return;
    }
    void this.#start(display, popup).catch(() => undefined);
  }

  /** Starts what the element's state calls for: the automatic open, or a new Url after expiry or re-attachment. */
  #decide(): void {
    if (!this.#host.isConnected) return;
    if (this.#checkConfig()) return;
    const shown = this.#isShown();
    const becameShown = shown && !this.#wasShown;
    this.#wasShown = shown;
    if (!this.hasSession) {
      // the session ended: the page of that account goes too
      if (this.status === 'requesting' || this.status === 'loading' || this.status === 'loaded' || this.status === 'expired' || this.status === 'sent') this.#reset('idle');
      this.#autoKey = '';
      return;
    }
    const display: ViewDisplay = this.#host.display === 'popup' ? 'popup' : 'inline';
    if (this.#reopen && display === 'inline') {
      this.#reopen = false;
      this.#autoKey = this.#currentAutoKey();
      void this.#start('inline', null).catch(() => undefined);
      return;
    }
    // expired while out of sight: seen again (element shown, tab visible), it asks for a new Url; while in sight the user decides
    if (this.status === 'expired' && this.shownIn !== 'popup' && becameShown) {
      this.#renewals = 0;
      this.#renew();
      return;
    }
    if (!this.#host.auto || display !== 'inline' || !this.hasFiles) return;
    const key = this.#currentAutoKey();
    if (key === this.#autoKey) return;
    this.#autoKey = key;
    void this.#start('inline', null).catch(() => undefined);
  }

  #currentAutoKey(): string {
    const provider = this.session.provider;
    return JSON.stringify([provider?.baseUrl, provider?.session?.spaceId, this.#host.allowedOrigins, [...this.#fileIds()]]);
  }

  readonly #onMessage = (event: MessageEvent): void => {
    if (this.status !== 'loading' && this.status !== 'loaded') return;
    const source = this.shownIn === 'popup' ? this.#popup : this.frameRef.value?.contentWindow;
    // only the page we opened, on the origin of its Url: any other window or origin is ignored
    if (!this.#placed || !source || event.source !== source || event.origin !== this.origin) return;
    emit(this.#host, 'esign-view-message', { data: event.data, origin: event.origin });
    const data: unknown = event.data;
    if (!isEsignMessage(data)) return;
    switch (data.type) {
      case 'ready':
        this.#loaded();
        break;
      case 'resize': {
        const height = Number(data['height']);
        if (this.shownIn === 'inline' && Number.isFinite(height) && height > 0) {
          this.frameHeight = Math.min(Math.ceil(height), 100_000);
          this.#host.requestUpdate();
        }
        break;
      }
      case 'error':
        this.#pageError(typeof data['code'] === 'string' ? data['code'] : 'unknown');
        break;
      case 'envelope-sent':
        if (this.operateType === 'request_signatures' && typeof data['envelopeId'] === 'string') {
          this.#envelopeSent(data['envelopeId'], typeof data['status'] === 'string' ? data['status'] : 'sent');
        }
        break;
    }
  };

  /** The page sent the envelope: the element says so (the `sent` state) and tells the page's other elements. */
  #envelopeSent(envelopeId: string, status: string): void {
    const fileIds = [...this.#fileIds()];
    // a popup stays open on the envelope's page for the user; the frame makes way for the sent state
    this.#reset('sent', { keepPopup: this.shownIn === 'popup' ? (this.#popup ?? undefined) : undefined });
    this.shownIn = undefined;
    this.sentEnvelopeId = envelopeId;
    emit(this.#host, 'esign-envelope-sent', { envelopeId, fileIds, status });
  }

  /** Leaves the sent state (or any other) for idle: the element is ready for the next envelope. */
  startAnother(): void {
    this.#reset('idle');
  }

  readonly #onVisibility = (): void => {
    if (document.visibilityState === 'visible') this.#host.requestUpdate();
  };

  #loaded(): void {
    clearTimeout(this.#loadTimer);
    this.#loadTimer = undefined;
    this.#renewals = 0;
    if (this.status !== 'loaded') {
      this.status = 'loaded';
      this.#host.requestUpdate();
      emit(this.#host, 'esign-view-loaded', { origin: this.origin ?? '' });
    }
  }

  #pageError(code: string): void {
    if (RENEWABLE_PAGE_ERRORS.has(code)) {
      const renewing = this.#renewals < MAX_AUTO_RENEWALS && this.#isShown();
      emit(this.#host, 'esign-view-expired', { expiresAt: this.expiresAt ?? '', renewing });
      if (renewing) this.#renew();
      else this.#reset('expired');
      return;
    }
    this.#reset('idle');
    this.#fail(new EsignError('view_failed', `The embedded page cannot be used (${code}).`, { serviceCode: code }));
  }

  #armLoadTimer(): void {
    clearTimeout(this.#loadTimer);
    const timeout = this.#loadTimeoutMs();
    if (timeout <= 0) return;
    this.#loadTimer = setTimeout(() => {
      this.#loadTimer = undefined;
      if (this.status !== 'loading') return;
      const origin = this.origin ?? '';
      const inPopup = this.shownIn === 'popup';
      this.#reset('idle');
      this.#fail(
        new EsignError(
          'frame_blocked',
          inPopup
            ? `The e-signature page from ${origin} did not report ready within ${timeout} ms (network, or the page was closed).`
            : `The e-signature page from ${origin} did not load within ${timeout} ms. Likely causes: this page's Content-Security-Policy frame-src does not allow ${origin}; the service's frame-ancestors does not allow this page's origin; the network.`,
        ),
      );
    }, timeout);
  }

  /** The element's `loadTimeout` (default there); a value that is not a number is a settings fault, reported: no timer meanwhile. */
  #loadTimeoutMs(): number {
    return Number(this.#host.loadTimeout) || 0;
  }

  #armExpiry(delayMs: number): void {
    this.#clearExpiry();
    this.#expiryTimer = setTimeout(() => {
      this.#expiryTimer = undefined;
      const held = this.#held;
      if (!held) return;
      // never used, now too old: drop it; a new one is asked for when the element is seen again
      this.#held = undefined;
      const shown = this.#isShown();
      emit(this.#host, 'esign-view-expired', { expiresAt: this.expiresAt ?? '', renewing: shown });
      if (shown) this.#renew();
      else this.#reset('expired');
    }, Math.min(Math.max(0, delayMs), 2_147_483_647));
  }

  #clearExpiry(): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
  }

  #isShown(): boolean {
    if (document.visibilityState === 'hidden' || !this.#host.isConnected) return false;
    const host = this.#host as HTMLElement & { checkVisibility?: () => boolean };
    return host.checkVisibility ? host.checkVisibility() : true;
  }

  /** Forgets the current page: request, held Url, timers, the frame's src, the popup. */
  #reset(status: ViewStatus, options: { keepPopup?: Window } = {}): void {
    this.#abort?.abort();
    this.#abort = undefined;
    this.#framePending = false;
    this.#held = undefined;
    this.#clearExpiry();
    clearTimeout(this.#loadTimer);
    this.#loadTimer = undefined;
    clearInterval(this.#popupTimer);
    this.#popupTimer = undefined;
    // an iframe keeps its src when detached and loads it again when re-inserted: drop it now
    this.frameRef.value?.removeAttribute('src');
    if (this.#popup && this.#popup !== options.keepPopup && !this.#popup.closed) this.#popup.close();
    if (this.#popup !== options.keepPopup) this.#popup = null;
    this.#placed = false;
    if (status === 'idle') {
      this.shownIn = undefined;
      this.#resumeOnline = false;
    }
    this.frameHeight = undefined;
    if (status !== 'sent') this.sentEnvelopeId = undefined;
    this.status = status;
    if (status !== 'error') this.error = undefined;
    this.#host.requestUpdate();
  }

  /** What is wrong with the element's settings now, in words (undefined: nothing). */
  #configProblemNow(): string | undefined {
    const pageOrigin = this.#rules.hostPageOrigin();
    return configProblem(this.#host, this.#rules.settingsFault(this.#host, pageOrigin), pageOrigin);
  }

  /** Reports a bad setting once (as invalid_config) and clears that error once the setting is fixed. True while it is bad. */
  #checkConfig(): boolean {
    const problem = this.#configProblemNow();
    if (problem) {
      if (problem !== this.#configProblem) {
        this.#configProblem = problem;
        this.#reset('idle');
        this.#fail(new EsignError('invalid_config', problem));
      }
      return true;
    }
    if (this.#configProblem) {
      this.#configProblem = undefined;
      // fixed: back to idle, and `auto` may open again
      this.#autoKey = '';
      if (this.error?.code === 'invalid_config') this.#reset('idle');
    }
    return false;
  }

  /** The page's CSP blocked the `embedded/views` call under way: its failure, when it comes, is told as this. */
  #cspError: EsignError | undefined;

  /** The page's CSP blocked the frame (frame-src) or the call for its Url (connect-src): say which, at once. */
  readonly #onCspViolation = (event: SecurityPolicyViolationEvent): void => {
    const frame = this.status === 'loading' && this.shownIn !== 'popup' ? blockedOrigin(event, 'frame-src', [this.origin]) : undefined;
    if (frame) {
      this.#reset('idle');
      this.#fail(cspBlocked('frame-src', frame));
      return;
    }
    const service = blockedOrigin(event, 'connect-src', [originOf(this.session.provider?.baseUrl)]);
    if (!service) return;
    if (this.status === 'requesting') this.#cspError = cspBlocked('connect-src', service);
    else if (this.status === 'error' && this.error?.code === 'network_error') {
      this.#resumeOnline = false;
      this.#fail(cspBlocked('connect-src', service));
    }
  };

  #fail(error: EsignError): EsignError {
    this.error = error;
    this.status = 'error';
    this.#host.requestUpdate();
    emit(this.#host, 'esign-error', { error });
    return error;
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

// ---- shared rendering ----

