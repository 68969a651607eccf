/**
 * What an embedded view knows of where it is (`ViewState`), and where it starts: read by the pure `connect()` at first
 * render (before the view's lazy part loads) and by the machine (machine.ts) that moves it.
 */
import type { EsignError } from '@esign-elements/shared/errors';
import type { Hop } from '../../core/service/unreachable.js';
import type { OperateType, ViewDisplay, ViewResult, ViewStatus } from './rules.js';

/** Everything an embedded view knows of where it is. */
export interface ViewState {
  readonly operateType: OperateType;
  readonly status: ViewStatus;
  /** The last error, while `status` is `error`. */
  readonly error: EsignError | undefined;
  /** Where the page asked for (or shown) is shown. */
  readonly shownIn: ViewDisplay | undefined;
  /** The origin of the current Url (the Url itself never enters the state: it carries a token). */
  readonly origin: string | undefined;
  /** ExpiresAt of the current Url, as the service sent it. */
  readonly expiresAt: string | undefined;
  /** The envelope the page reported as sent, while `status` is `sent`. */
  readonly sentEnvelopeId: string | undefined;
  /** The last outcome, as the event that told it: for listeners attached after it happened. */
  readonly lastResult: ViewResult | undefined;
  /** Automatic renewals since the last `ready` (or the last open). */
  readonly renewals: number;
  /** The number of the latest Url request: answers to any other are stale. */
  readonly request: number;
  /** An offline failure: ask again when the connection returns. */
  readonly resumeOnline: boolean;
  /** What could not be reached, while `status` is `error` (undefined: a failure that is not one of reaching). */
  readonly unreachable: Hop | undefined;
  /** The error is a hop unreachable while online: a new Url is asked for when a try is due (`retry-due`). */
  readonly retrying: boolean;
  /** Tries since the person last opened the page or a Url came: the next try's backoff. */
  readonly retries: number;
  /** The page did not say `ready` within the load timeout but is kept (the error state beside it): a late `ready` recovers it. */
  readonly slow: boolean;
  /** The element left the page while its frame held a Url (used once): ask for a new one when it is back. */
  readonly reopen: boolean;
  /** The Url was given to its frame or popup: its messages are the page's, its `ready` is waited for. */
  readonly placed: boolean;
  /** The page's CSP blocked the request under way (connect-src): its failure, when it comes, is told as this. */
  readonly cspError: EsignError | undefined;
  // what the machine remembers of its host (the `host` event), to decide when the view opens by itself
  /** The settings fault last reported (once per fault), in words. */
  readonly problem: string | undefined;
  /** What `auto` last opened for (session, Space, allowed origins, FileIds): opened once per key. */
  readonly autoKey: string;
  /** The element could be seen at the last `host` event. */
  readonly wasShown: boolean;
  /** The element had a session to ask with at the last `host` event. */
  readonly hadSession: boolean;
  /** The element's `display` was inline at the last `host` event. */
  readonly wasInline: boolean;
  /** The page came back from the back/forward cache: a frame's used Url is replaced at the next `host` event. */
  readonly restored: boolean;
}

export function initialViewState(operateType: OperateType): ViewState {
  return {
    operateType,
    status: 'idle',
    error: undefined,
    shownIn: undefined,
    origin: undefined,
    expiresAt: undefined,
    sentEnvelopeId: undefined,
    lastResult: undefined,
    renewals: 0,
    request: 0,
    resumeOnline: false,
    unreachable: undefined,
    retrying: false,
    retries: 0,
    slow: false,
    reopen: false,
    placed: false,
    cspError: undefined,
    problem: undefined,
    autoKey: '',
    wasShown: false,
    hadSession: false,
    wasInline: false,
    restored: false,
  };
}
