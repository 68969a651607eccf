/**
 * The words of the embedded views' machine (machine.ts), as Zag keeps a machine's `*.types.ts`: the facts the host
 * reports of itself, the events the machine hears, the effects it returns for the controller to perform, and the
 * activities a state runs while it lasts (view-activities.ts starts and stops them).
 */
import type { EsignError } from '@esign-elements/shared/errors';
import type { EsignEnvelopeSentDetail, EsignEventDetailMap } from '../shared/events.js';
import type { ViewDisplay } from './rules.js';
import type { ViewState } from './view-state.js';

/** What the host says of itself after each update (the `host` event): the facts the machine decides the view's opening from. */
export interface HostFacts {
  /** What is wrong with the element's settings, in words (undefined: nothing). */
  readonly problem: string | undefined;
  /** The element has a session to ask with. */
  readonly session: boolean;
  /** The element can be seen. */
  readonly shown: boolean;
  /** The element's `display` is inline. */
  readonly inline: boolean;
  readonly auto: boolean;
  /** The element has FileIds (or needs none). */
  readonly hasFiles: boolean;
  /** What `auto` opens for: the session's service and Space, the allowed origins, the FileIds. */
  readonly autoKey: string;
}

export type ViewEvent =
  /**
   * Ask for a Url and show it (a click, `auto`, `open()`); the renewals start again. `autoKey`: the host's, now (`auto`
   * does not open them again); `problem`: its settings fault, if any; `blocked`: the browser refused the popup.
   */
  | { type: 'open'; display: ViewDisplay; autoKey?: string; problem?: string | undefined; blocked?: boolean }
  /** The host updated (a setting, the session, the FileIds, its visibility): the machine decides whether the view opens, re-opens or closes. */
  | { type: 'host'; facts: HostFacts }
  /** The page came back from the back/forward cache (`pageshow` persisted). */
  | { type: 'page-restored' }
  /** The page's Content-Security-Policy blocked the view's service (`connect-src`) or its page's origin (`frame-src`). */
  | { type: 'csp-blocked'; error: EsignError }
  /** The Url of request `request` was checked and accepted (`url` goes on to `show-page`; the state never keeps it). */
  | { type: 'url-answered'; request: number; url: string; origin: string; expiresAt: string }
  /** Request `request` failed (or its Url was rejected); `online`: what the browser said then. */
  | { type: 'url-failed'; request: number; error: EsignError; online: boolean }
  /** The held Url is too old to use; `shown`: a new one could be shown now. */
  | { type: 'url-expiring'; shown: boolean }
  /** The held Url was given to its frame or popup. */
  | { type: 'page-placed' }
  | { type: 'page-ready' }
  /** The page said `error` with `code`; `shown`: a new Url could be shown now. */
  | { type: 'page-error'; code: string; shown: boolean }
  | { type: 'envelope-sent'; envelopeId: string; status: string; fileIds: readonly string[] }
  /** The element left the document. */
  | { type: 'hidden' }
  /** The element can be seen again (shown after display:none, its tab visible again). */
  | { type: 'shown' }
  /** The element is back in the document with a session, or its page came back from the back/forward cache. */
  | { type: 'reattached' }
  | { type: 'back-online' }
  /** The browser says it went offline. */
  | { type: 'went-offline' }
  /** The load timeout passed without the page's `ready` (`error`: what it means when the page never comes). */
  | { type: 'ready-timeout'; error: EsignError; online: boolean }
  /** A try is due: the backoff's timer, the tab becoming visible, the window focused; `visible`: the element can be seen. */
  | { type: 'retry-due'; visible: boolean }
  /** The page goes: `close()`, the person closed the popup or the sheet, the session ended. */
  | { type: 'closed' }
  /** Something stopped the page before or after the service answered (settings, CSP, load timeout, no session, …). */
  | { type: 'failed'; error: EsignError };

export type ViewEffect =
  /** Ask the service for a Url (for `display`), numbered `request`. */
  | { type: 'request-url'; request: number; display: ViewDisplay }
  /** Give the accepted Url to its frame (once the element is shown) or popup; `expiresAt`: when it is too old to use. */
  | { type: 'show-page'; display: ViewDisplay; url: string; expiresAt: string }
  /** Forget the current page: the request under way, the held Url, the frame's src, the popup (unless `keepPopup`). */
  | { type: 'cancel'; keepPopup?: boolean }
  /** Fire an esign-* event at the element. */
  | { [K in ViewEventName]: { type: 'emit'; name: K; detail: EsignEventDetailMap[K] } }[ViewEventName]
  /** Tell the other tabs of this service and Space that an envelope was sent. */
  | { type: 'tell-tabs'; detail: EsignEnvelopeSentDetail };

/**
 * What runs while a state lasts (Zag's state `effects`): started when the state that has it is entered, stopped when
 * it is left. Each has a `key`: the same key from one state to the next keeps it running, a new one restarts it.
 */
export type ViewActivity =
  /** A Url is held, not given to its frame yet: send `url-expiring` when it is too old to use. */
  | { type: 'expiry-watch'; key: string }
  /** The page was given its Url: send `ready-timeout` if it does not say `ready` within the load timeout. */
  | { type: 'ready-wait'; key: string }
  /** The page is in a popup: send `closed` when the person closes the window. */
  | { type: 'popup-watch'; key: string }
  /**
   * A hop could not be reached while online: send `retry-due` after the backoff of try number `attempt` (0 first), and
   * not before the `Retry-After` the failure carried (`retryAfter`, seconds).
   */
  | { type: 'retry-wait'; key: string; attempt: number; retryAfter?: number }
  /** The view waits for its next Url, inline, seen, with a session and valid settings: a blank frame is built for it in idle time. */
  | { type: 'frame-prebuild'; key: string };

type ViewEventName = 'esign-view-ready' | 'esign-view-loaded' | 'esign-view-expired' | 'esign-error' | 'esign-envelope-sent';

export interface Transition {
  state: ViewState;
  effects: ViewEffect[];
}
