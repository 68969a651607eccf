/**
 * The base of <esign-signing-frame> and <esign-contract-list>: their shared settings, status, open/close, styles,
 * words and template. The elements keep only what differs (their operation, their words, and how they learn of
 * FileIds).
 *
 * What runs only once there is something to show (asking for Urls, frames, expiry, the page's messages: the
 * EmbeddedViewController, with the phone sheet and esign-activity) is the element's one lazy part (view-part.ts, a
 * `LazyPart`), loaded when the element first has a session or is opened. What it shows is `connect()` (connect.ts) of
 * the view's state: the controller's once loaded, and until then the state where a view starts (the empty card, or
 * the "connect first" one), so `status` has one source.
 */
import type { SVGTemplateResult, PropertyDeclarations } from 'lit';
import type { EsignError } from '@esign-elements/shared/errors';
import { embeddedViewMessages, type EmbeddedViewTerms } from './embedded-view.messages.js';
import { LocalizeController, type Messages } from '../shared/localize.js';
import { openPopup } from '../shared/popup.js';
import { SessionController } from '../shared/session-controller.js';
import { EsignElement } from '../shared/element.js';
import { FocusKeeper } from '../shared/a11y.js';
import { LazyPart } from '../shared/lazy.js';
import type { EmbeddedViewController } from './controller.js';
import type { SheetController } from './sheet.js';
import { connect, NO_FRAME, type ViewActions, type ViewApi } from './connect.js';
import { initialViewState, type ViewState } from './view-state.js';
import { embeddedViewStyles, renderView, type ViewText } from './template.js';
import {
  DEPRECATED_AUTO,
  legacyOff,
  settingsFault,
  VIEW_POPUP_FEATURES,
  type OperateType,
  type ViewDisplay,
  type ViewResult,
  type ViewStatus,
} from './rules.js';

/** The words each element has of its own (the shared ones are embeddedViewMessages). */
export interface OwnTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}

/**
 * The embedded views' shared element: what the signing frame and the contract list both show and fire.
 *
 * @fires esign-view-ready - A Url was received and accepted. `detail: {origin, expiresAt, operateType}` (never the Url: it carries a token).
 * @fires esign-view-loaded - The page said it is ready (`ready` message), or, with `load-timeout="0"`, the frame loaded. `detail: {origin}`.
 * @fires esign-view-expired - The Url or the page expired. `detail: {expiresAt, renewing}`; `renewing` is true when a new Url is being asked for.
 * @fires esign-view-message - A message from the page, forwarded unchanged, only from the frame's window and the Url's exact origin. `detail: {data, origin}`.
 * @fires esign-activity - The person works in the page: focus went into its frame, or the page sent a message a person causes (`activity`, `envelope-sent`, …; not `ready`, `resize`, `error`). At most once per 5 seconds, for host idle timers (docs/guides/idle-timers.md). `detail: {source: 'focus' | 'message', at}` (`at`: Date.now()).
 *
 * @slot loading - Replaces the loading indicator.
 * @slot error - Replaces the error message and its buttons (read `error` or listen to `esign-error` for the details).
 * @slot expired - Replaces the "page expired" message and its button.
 *
 * @csspart base - The wrapper of every state and the frame.
 * @csspart frame - The iframe.
 * @csspart loading - The loading state.
 * @csspart spinner - The loading indicator.
 * @csspart error - The error state.
 * @csspart expired - The expired state.
 * @csspart popup - The note shown while the page is open in a popup.
 * @csspart button - Every button.
 * @csspart retry - The "try again" button of the error state.
 * @csspart fallback - The "open in a new window" button offered when the frame is blocked.
 * @csspart sheet-bar - The bar above the page while it is a full-screen sheet (`sheet`).
 * @csspart sheet-close - The sheet's close button (also `button`).
 *
 * @cssstate idle - No page shown (`status` idle; the same for each state below).
 * @cssstate requesting - A Url is being asked for.
 * @cssstate loading - The page is loading.
 * @cssstate loaded - The page is shown.
 * @cssstate expired - The Url or the page expired.
 * @cssstate error - Something failed; `error` says what.
 *
 * @cssprop [--esign-sheet-breakpoint=640px] - With `sheet`: the viewport width below which the page is a full-screen sheet (a CSS length).
 * @cssprop [--esign-sheet-z-index=2147483000] - With `sheet`: the sheet's z-index where the browser has no popover top layer.
 * @cssprop [--esign-sheet-background=var(--esign-surface)] - With `sheet`: the sheet's background (around the page, behind the safe areas).
 * @cssprop [--esign-frame-min-height=32rem] - Minimum height while the page is shown; the frame fills the element (give the element a height to fix it) and grows with the height its page reports. The signing frame's states (empty, loading, sent) keep it too, so the page opening does not move what is below; the contract list's states need less and take less.
 */
export abstract class EmbeddedViewElement extends EsignElement {
  /** Read by Lit, and by lit-analyzer (which does not read a `static properties` field). */
  static override get properties(): PropertyDeclarations {
    return {
      connect: {},
      display: {},
      allowedOrigins: { attribute: 'allowed-origins' },
      loadTimeout: { attribute: 'load-timeout', type: Number },
      requestTimeout: { attribute: 'request-timeout', type: Number },
      sheet: { type: Boolean },
    };
  }

  static override styles = embeddedViewStyles;

  /** The id of the `<esign-connect>` whose session to use; without it, the nearest `<esign-connect>` ancestor. */
  connect = '';

  /** Opens the page by itself as soon as there is a session (and, for the signing frame, FileIds); inline display only. */
  abstract readonly auto: boolean;

  /** `inline` (default: an iframe in the element) or `popup` (a window opened from the user's click). */
  display: ViewDisplay = 'inline';

  /** Origins the service's Url may have, space- or comma-separated. Default: the session's base URL origin. */
  allowedOrigins = '';

  /**
   * Milliseconds to wait for the page's `ready` before reporting `frame_blocked` (the page stays, and a late `ready` still
   * opens it; offline, it is said at once instead); 0 trusts the frame's load event instead.
   */
  loadTimeout = 15_000;

  /**
   * Milliseconds to wait for the service's answer to the Url request (`embedded/views`, one try) before telling the
   * service as unreachable (`esign-error` with `hop: 'service'`, code `view_failed` caused by `timeout`); the element
   * then tries again by itself with backoff, and opens when the service answers. 0 waits with no end.
   */
  requestTimeout = 15_000;

  /**
   * On phones, the shown page takes the whole screen: below `--esign-sheet-breakpoint` (640px) the frame becomes a
   * full-screen sheet with a visible close button, the safe areas kept clear, and the browser's back button closes
   * it (and the page) instead of leaving yours. Off by default (the frame stays in your layout).
   */
  sheet = false;

  /** Which page of the service the element shows. */
  protected abstract readonly operateType: OperateType;
  /** The icon of the element's empty state. */
  protected abstract readonly icon: SVGTemplateResult;
  /** The FileIds to start with (request_signatures). */
  protected fileIdsToSend(): readonly string[] {
    return [];
  }
  /** The "start another" action of the sent state, if the element has one. */
  protected startAnotherAction: (() => void) | undefined;

  readonly #session = new SessionController(this);
  readonly #words = new LocalizeController(this, embeddedViewMessages);
  readonly #own: LocalizeController<OwnTerms>;
  /**
   * The element's one lazy part (view-part.ts, loaded as the other elements load theirs): the view's controller with
   * the phone sheet and esign-activity, loaded with a session, a bad setting (which it reports), or `open()`. A
   * failed load is reported as `esign-error` and shown with a button that tries again.
   */
  readonly #part = new LazyPart(
    this,
    () => import('./view-part.js'),
    (module): { view: EmbeddedViewController; sheet: SheetController } => {
      if (legacyOff(this.getAttribute('auto'))) console.warn(DEPRECATED_AUTO);
      // the shown frame only: a blank one built ahead of need has no part and is not the page
      new module.ActivityController(this, () => this.shadowRoot?.querySelector('iframe[part~="frame"]'));
      // added to the element: it starts at once (hostConnected) when the element is in the page
      const view = new module.EmbeddedViewController(this, { operateType: this.operateType, fileIds: () => this.fileIdsToSend() }, this.#session);
      return { view, sheet: new module.SheetController(this, () => this.#api().frameShown) };
    },
  );
  /** The state before the lazy part is loaded. */
  #initial: ViewState | undefined;
  /** What the buttons and the frame do (one object: the template's listeners stay the same from render to render). */
  readonly #actions: ViewActions = {
    open: (display) => void this.open(display ? { display } : {}).catch(() => undefined),
    close: () => this.close(),
    focusPopup: () => this.#part.value?.view.focusPopup(),
    frameLoaded: () => this.#part.value?.view.onFrameLoad(),
  };

  constructor(ownMessages: Messages<OwnTerms>) {
    super();
    this.#own = new LocalizeController(this, ownMessages);
    // a state or frame that replaces the focused one takes the focus: its heading (Send → "Envelope sent"), else the page
    new FocusKeeper(this, () => this.renderRoot.querySelector<HTMLElement>('.state [data-focus-target], [part~="frame"], [part~="button"]'));
  }

  /** Where the element is: `idle`, `requesting`, `loading`, `loaded`, `expired`, `sent` (signing frame) or `error`. */
  get status(): ViewStatus {
    return this.#api().status;
  }

  /** The last error, while `status` is `error`. */
  get error(): EsignError | undefined {
    return this.#api().error;
  }

  /**
   * The last outcome, as the event that told it: `{event: 'esign-envelope-sent', detail}` (signing frame) or
   * `{event: 'esign-error', detail: {error}}`; undefined before any. For listeners attached after it happened.
   */
  get lastResult(): ViewResult | undefined {
    return this.#state().lastResult;
  }

  /** The view's state: its controller's, or where it starts before that is loaded. */
  #state(): ViewState {
    return this.#part.value?.view.state ?? (this.#initial ??= initialViewState(this.operateType));
  }

  /** What the element shows (`connect()`): the same before and after the lazy part loads. */
  #api(): ViewApi {
    const view = this.#part.value?.view;
    return connect(
      this.#state(),
      {
        auto: this.auto,
        display: this.display,
        hasSession: this.hasSession,
        hasFiles: this.operateType !== 'request_signatures' || this.fileIdsToSend().length > 0,
        frame: view?.frame ?? NO_FRAME,
        partError: view ? undefined : this.#part.error,
      },
      this.#actions,
    );
  }

  /**
   * Asks for a new Url and shows it. With `display="popup"` (or `{display: 'popup'}`) the window opens at once, so
   * call it from a click. Rejects with the EsignError also sent as `esign-error`.
   */
  open(options: { display?: ViewDisplay } = {}): Promise<void> {
    const display: ViewDisplay = (options.display ?? this.display) === 'popup' ? 'popup' : 'inline';
    // opened now, inside the click, even when the controller's module still has to load
    const popup = display === 'popup' && settingsFault(this) === undefined ? openPopup('esign-view', VIEW_POPUP_FEATURES, '…') : null;
    return this.#part.load().then(
      ({ view }) => view.open(display, popup),
      (error: EsignError) => {
        popup?.close();
        throw error;
      },
    );
  }

  /** The controller, loaded if it was not. */
  protected view(): Promise<EmbeddedViewController> {
    return this.#part.load().then(({ view }) => view);
  }

  /** Closes the page. */
  close(): void {
    this.#part.value?.view.close();
  }

  /** True while the element has a session to ask with. */
  protected get hasSession(): boolean {
    return this.#session.provider?.session !== undefined;
  }

  protected override updated(): void {
    // a session means a page will be asked for (by itself, or on a click): load what does that now; so does a bad
    // setting, which the controller reports (not again by itself after a failed load: the error state's button tries again)
    if (this.#part.status === 'initial' && (this.hasSession || settingsFault(this) !== undefined)) {
      void this.#part.load().catch(() => undefined);
    }
  }

  protected override render() {
    const text: ViewText = {
      title: this.#own.term('title'),
      heading: this.#own.term('heading'),
      icon: this.icon,
      open: this.#own.term('open'),
      empty: this.#own.term('empty'),
      startAnother: this.startAnotherAction,
      term: (key: keyof EmbeddedViewTerms & string, params?: Record<string, string | number>) => this.#words.term(key, params),
    };
    return renderView(this.#api(), text, this.#part.value?.sheet.open);
  }
}
