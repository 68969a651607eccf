/**
 * The controller behind <esign-signing-frame> and <esign-contract-list>: decides when a page is asked for (a click,
 * `auto`, expiry, re-attachment, the connection's return), keeps the element's state (`status`, `error`, …) and
 * reports it as esign-* events. Each job is its own module: the Url's lifecycle (request, check, expiry) in
 * view-url.ts, the frame (pre-build, adoption, navigation, size) in view-frame.ts, the page's messages in
 * view-messages.ts, the popup window in view-popup.ts. The states' look is in render.ts and states.ts, the rules in
 * rules.ts and page-rules.ts.
 *
 * Loaded by the element (embedded-view/element.ts) once it has a session or is opened.
 */
import type { ReactiveController } from 'lit';
import { EsignError } from '../../core/errors.js';
import { emit } from '../shared/events.js';
import type { SessionController } from '../shared/session-controller.js';
import { allowedOriginsFor, hostPageOrigin, type OperateType, type ViewDisplay, type ViewStatus } from './rules.js';
import { ViewState } from './view-state.js';
import type { EmbeddedViewHost, EmbeddedViewOptions } from './view-types.js';
import { isExpired, loadTimeoutMessage } from './page-rules.js';
import { frameStyles } from './states.js';
import { adoptStyles } from '../shared/adopt-styles.js';
import { TabChannel } from '../shared/tab-channel.js';
import { MAX_AUTO_RENEWALS, ViewUrl, type CheckedUrl } from './view-url.js';
import { ViewFrame } from './view-frame.js';
import { ViewPopup } from './view-popup.js';
import { PageMessages } from './view-messages.js';
import { CspWatch, SettingsGuard } from './view-guards.js';
import { isShown, ViewTriggers } from './view-triggers.js';

// what the element needs once this module is loaded: the later states' look and words
export { renderEmbeddedView } from './states.js';
export { embeddedViewStateMessages } from './states.messages.js';
export { DEPRECATED_AUTO } from './page-rules.js';
export { attachExtras } from './extras.js';

/** (assumption) `error` codes of the embedded pages that a new Url cures (docs/architecture.md). */
const RENEWABLE_PAGE_ERRORS = new Set(['url_used', 'url_expired', 'session_expired']);

export type { EmbeddedViewHost, EmbeddedViewOptions } from './view-types.js';

export class EmbeddedViewController extends ViewState implements ReactiveController {
  readonly session: SessionController;
  readonly operateType: OperateType;

  // the frame's state, for the templates (see ViewFrame): its key, the height its page reported, whether a blank frame
  // waits for the Url on its way (pending) or for the next Url (pre-built: hidden, inert, out of the layout flow)
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

  readonly #host: EmbeddedViewHost;
  readonly #fileIds: () => readonly string[];
  readonly #tabs: TabChannel;
  readonly #url = new ViewUrl(() => {
    // never used, now too old: a new one is asked for when the element is seen again
    const shown = isShown(this.#host);
    emit(this.#host, 'esign-view-expired', { expiresAt: this.expiresAt ?? '', renewing: shown });
    if (shown) this.#renew();
    else this.#reset('expired');
  });
  readonly #frame: ViewFrame;
  readonly #popup = new ViewPopup(() => this.#reset('idle'));
  readonly #settings: SettingsGuard;
  readonly #triggers: ViewTriggers;
  #placed = false;
  readonly #messages: PageMessages;

  /** Built by the element once it is needed (a session, or a click), with the element's session. */
  constructor(host: EmbeddedViewHost, options: EmbeddedViewOptions, session: SessionController) {
    super(host);
    this.#host = host;
    this.operateType = options.operateType;
    this.#fileIds = options.fileIds ?? (() => []);
    this.session = session;
    this.#frame = new ViewFrame(host);
    this.#settings = new SettingsGuard(host);
    const start = (): void => void this.#start('inline', null).catch(() => undefined);
    this.#triggers = new ViewTriggers(host, this, {
      checkConfig: () =>
        this.#settings.check(
          (problem) => {
            this.#reset('idle');
            this.fail(new EsignError('invalid_config', problem));
          },
          () => {
            // fixed: back to idle, and `auto` may open again
            this.#triggers.autoKey = '';
            if (this.error?.code === 'invalid_config') this.#reset('idle');
          },
        ),
      autoKey: () => this.#currentAutoKey(),
      start,
      renew: () => {
        this.#url.renewals = 0;
        this.#renew();
      },
      close: () => this.#reset('idle'),
    });
    host.addController(this);
    // sent envelopes go to the other tabs of this service and Space (and come from them: the contract list refreshes)
    this.#tabs = new TabChannel(host, () => session.provider);
    new CspWatch(
      host,
      {
        frameOrigin: () => (this.status === 'loading' && this.shownIn !== 'popup' ? this.origin : undefined),
        serviceUrl: () => this.session.provider?.baseUrl,
      },
      (error) => {
        if (error.directive === 'frame-src') {
          this.#reset('idle');
          this.fail(error);
        } else if (this.status === 'requesting') this.#url.cspError = error;
        else if (this.status === 'error' && this.error?.code === 'network_error') {
          this.#triggers.resumeOnline = false;
          this.fail(error);
        }
      },
    );
    this.#messages = new PageMessages(
      host,
      () =>
        this.#placed && (this.status === 'loading' || this.status === 'loaded')
          ? { window: this.shownIn === 'popup' ? this.#popup.window : this.#frame.element?.contentWindow, origin: this.origin }
          : undefined,
      {
        ready: () => this.#loaded(),
        resize: (height) => {
          if (this.shownIn !== 'inline') return;
          this.#frame.height = height;
          this.#host.requestUpdate();
        },
        error: (code) => this.#pageError(code),
        envelopeSent: (envelopeId, status) => {
          if (this.operateType === 'request_signatures') this.#envelopeSent(envelopeId, status);
        },
      },
    );
  }

  /** The browser's connection came back or went (the element listens, with its OnlineController). */
  networkChanged(online: boolean): void {
    if (this.status === 'error' && this.error?.code === 'network_error') this.#triggers.networkChanged(online);
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
    this.#triggers.connected();
    this.#host.requestUpdate();
  }

  hostDisconnected(): void {
    this.#triggers.disconnected();
    // a detached element keeps no frame: the update that #reset asks for renders none (framePrebuilt is false); a sent
    // envelope stays said (a route entered again shows it, and does not start the same files again)
    this.#frame.forgetPrebuilt();
    this.#reset(this.status === 'sent' ? 'sent' : 'idle');
  }

  hostUpdated(): void {
    this.#frame.size();
    this.#placeHeld();
    this.#frame.schedulePrebuild(
      () => this.#wantsPrebuilt(),
      () => isShown(this.#host),
    );
    this.#triggers.updated();
  }

  /**
   * Asks for a new Url and shows it, in the frame or in `popup`: the element opened that window blank inside the
   * user's click (a blocker refuses one opened after an await), null when the browser refused it. Rejects with the
   * EsignError also sent as `esign-error`.
   */
  async open(display: ViewDisplay, popup: Window | null): Promise<void> {
    const problem = this.#settings.problem();
    if (problem) {
      popup?.close();
      throw this.fail(new EsignError('invalid_config', problem));
    }
    if (display === 'popup' && !popup) {
      throw this.fail(new EsignError('popup_blocked', 'The browser blocked the new window. Allow popups for this site and try again.'));
    }
    this.#url.renewals = 0;
    this.#triggers.autoKey = this.#currentAutoKey();
    await this.#start(display, display === 'popup' ? popup : null);
  }

  /** Closes the page (frame or popup), or leaves the sent state, and goes back to idle. */
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
    this.#popup.focus();
  }

  // ---- the flow ----

  async #start(display: ViewDisplay, popup: Window | null): Promise<void> {
    // the frame built ahead of need, if it is still there and still blank, is this Url's frame
    const adopt = display === 'inline' && this.framePrebuilt && this.#frame.isFresh(this.#frame.element);
    this.#frame.forgetPrebuilt();
    this.#reset(this.status, { keepPopup: popup ?? undefined });
    const provider = this.session.provider;
    if (!provider?.session) {
      popup?.close();
      throw this.fail(new EsignError('no_session', 'Not connected: connect an e-signature account first.'));
    }
    const fileIds = [...this.#fileIds()];
    if (this.operateType === 'request_signatures' && fileIds.length === 0) {
      popup?.close();
      throw this.fail(new EsignError('no_files', 'No FileIds: upload the files to sign first.'));
    }
    this.#popup.window = popup;
    this.status = 'requesting';
    this.error = undefined;
    // the frame for this Url has never navigated, and stays about:blank until the checked Url is placed: the
    // pre-built one (same key, so the same element; already attached) or a new one (new key)
    if (adopt) this.#frame.pending = true;
    else this.#frame.renew();
    this.#host.requestUpdate();
    let checked: CheckedUrl;
    try {
      // the fresh frame is rendered once the request is on its way, so building it does not delay sending it
      const answer = await this.#url.request(provider, this.operateType, fileIds, () => {
        if (display !== 'inline' || this.#frame.pending) return;
        this.#frame.pending = true;
        this.#host.requestUpdate();
      });
      if (!answer) return; // superseded or torn down
      this.#frame.pending = false;
      checked = this.#url.accept(answer, allowedOriginsFor(this.#host.allowedOrigins, provider.baseUrl), hostPageOrigin());
    } catch (error) {
      this.#frame.pending = false;
      popup?.close();
      // offline: open again by itself when the connection returns (inline only: a popup needs a click)
      if ((error as EsignError).code === 'network_error') this.#triggers.resumeOnline = true;
      throw this.fail(error as EsignError);
    }
    this.origin = checked.origin;
    this.expiresAt = checked.expiresAt;
    this.#frame.height = undefined;
    this.shownIn = display;
    this.status = 'loading';
    emit(this.#host, 'esign-view-ready', { origin: checked.origin, expiresAt: checked.expiresAt, operateType: this.operateType });
    if (display === 'popup' && popup) {
      if (this.#popup.place(popup, checked.url)) {
        this.#placed = true;
        this.#expectReady();
      } else this.#reset('idle');
    } else {
      this.#url.hold(checked);
      // the frame rendered while requesting takes the Url now, not after another update (else the next update does)
      this.#placeHeld();
    }
    this.#host.requestUpdate();
  }

  /** Gives a held Url to the frame once the frame exists and the element can be seen. */
  #placeHeld(): void {
    const held = this.#url.held;
    if (!held || this.shownIn !== 'inline' || !isShown(this.#host)) return;
    const frame = this.#frame.blank(held);
    if (frame === 'failed') {
      this.#reset('idle');
      this.fail(new EsignError('view_failed', 'No blank frame could be prepared for the embedded page.'));
    } else if (frame && isExpired(held.expiresAtMs, Date.now()) && this.#url.renewals < MAX_AUTO_RENEWALS) {
      // too old to use: a new Url, asked for after this update
      this.#url.take();
      queueMicrotask(() => this.#renew());
    } else if (frame) {
      this.#url.take();
      this.#placed = true;
      this.#frame.navigate(frame, held.url);
      this.#expectReady();
    }
  }

  /** Whether a frame should wait ready for the next Url: the element waits, inline, with a session and valid settings. */
  #wantsPrebuilt(): boolean {
    return (
      this.#host.isConnected &&
      (this.status === 'idle' || this.status === 'expired' || this.status === 'sent') &&
      this.#host.display === 'inline' &&
      this.hasSession &&
      this.#settings.problem() === undefined
    );
  }

  #renew(): void {
    this.#url.renewals += 1;
    const display = this.shownIn ?? 'inline';
    const popup = display === 'popup' ? this.#popup.open : null;
    if (display === 'popup' && !popup) {
      this.#reset('expired');
      return;
    }
    void this.#start(display, popup).catch(() => undefined);
  }

  #currentAutoKey(): string {
    const provider = this.session.provider;
    return JSON.stringify([provider?.baseUrl, provider?.session?.spaceId, this.#host.allowedOrigins, [...this.#fileIds()]]);
  }

  /** The page sent the envelope: the element says so (the `sent` state) and tells the page's other elements. */
  #envelopeSent(envelopeId: string, status: string): void {
    const fileIds = [...this.#fileIds()];
    // a popup stays open on the envelope's page for the user; the frame makes way for the sent state
    this.#reset('sent', { keepPopup: this.shownIn === 'popup' ? (this.#popup.window ?? undefined) : undefined });
    this.shownIn = undefined;
    this.sent({ envelopeId, fileIds, status });
    this.#tabs.post({ envelopeId, fileIds, status });
  }

  #loaded(): void {
    this.#messages.stopWaiting();
    this.#url.renewals = 0;
    if (this.status !== 'loaded') {
      this.status = 'loaded';
      this.#host.requestUpdate();
      emit(this.#host, 'esign-view-loaded', { origin: this.origin ?? '' });
    }
  }

  #pageError(code: string): void {
    if (RENEWABLE_PAGE_ERRORS.has(code)) {
      const renewing = this.#url.renewals < MAX_AUTO_RENEWALS && isShown(this.#host);
      emit(this.#host, 'esign-view-expired', { expiresAt: this.expiresAt ?? '', renewing });
      if (renewing) this.#renew();
      else this.#reset('expired');
      return;
    }
    this.#reset('idle');
    this.fail(new EsignError('view_failed', `The embedded page cannot be used (${code}).`, { serviceCode: code }));
  }

  /** Waits for the page's `ready` (the element's `loadTimeout`); a page that stays silent is reported as `frame_blocked`. */
  #expectReady(): void {
    const timeout = this.#loadTimeoutMs();
    this.#messages.expectReady(timeout, () => {
      if (this.status !== 'loading') return;
      const inPopup = this.shownIn === 'popup';
      this.#reset('idle');
      this.fail(new EsignError('frame_blocked', loadTimeoutMessage(this.origin ?? '', timeout, inPopup)));
    });
  }

  /** The element's `loadTimeout` (default there); a value that is not a number is a settings fault, reported: no timer meanwhile. */
  #loadTimeoutMs(): number {
    return Number(this.#host.loadTimeout) || 0;
  }

  /** Forgets the current page: request, held Url, timers, the frame's src, the popup. */
  #reset(status: ViewStatus, options: { keepPopup?: Window } = {}): void {
    this.#url.cancel();
    this.#messages.stopWaiting();
    this.#frame.clear();
    this.#popup.release(options.keepPopup);
    this.#placed = false;
    if (status === 'idle') {
      this.shownIn = undefined;
      this.#triggers.resumeOnline = false;
    }
    if (status !== 'sent') this.sentEnvelopeId = undefined;
    this.status = status;
    if (status !== 'error') this.error = undefined;
    this.#host.requestUpdate();
  }
}
