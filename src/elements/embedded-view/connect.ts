/**
 * What an embedded view shows, as Zag's `connect()`: the view's state (view-state.ts) and a few facts of its host in,
 * everything a template needs out (the status, the error, which card, the spinner, the frame's props, the actions).
 * Pure: no DOM, no Lit. The elements' template (template.ts) is markup over it, and a headless UI
 * (`esign-elements/headless`) renders from it too. Before the view's lazy part loads, the element renders
 * `connect(initialViewState(…))`: one source of `status`.
 */
import type { EsignError } from '@esign-elements/shared/errors';
import type { Hop } from '../../core/service/unreachable.js';
import type { ViewDisplay, ViewStatus } from './rules.js';
import type { ViewState } from './view-state.js';

/** What the view's frame (view-frame.ts) says of itself: its key, whether it waits for a Url, the height its page reported. */
export interface FrameFacts {
  /** The key of the rendered iframe: a new key renders a new iframe element. */
  readonly viewId: number;
  /** The fresh frame of a Url on its way is rendered (blank, hidden). */
  readonly pending: boolean;
  /** A blank frame built ahead of need waits for the next Url (hidden, inert, out of the layout flow). */
  readonly prebuilt: boolean;
  /** The height the page reported, in CSS pixels. */
  readonly height: number | undefined;
}

/** No frame yet: before the view's lazy part loads. */
export const NO_FRAME: FrameFacts = { viewId: 0, pending: false, prebuilt: false, height: undefined };

/** The host's facts `connect()` reads beside the state. */
export interface ViewFacts {
  /** The host opens the page by itself (inline only). */
  readonly auto: boolean;
  readonly display: ViewDisplay;
  /** The host has a session to ask with. */
  readonly hasSession: boolean;
  /** The host has FileIds (or needs none). */
  readonly hasFiles: boolean;
  readonly frame: FrameFacts;
  /** The view's lazy part could not be loaded: the error shown until a load succeeds. */
  readonly partError?: EsignError | undefined;
}

/** What the buttons and the frame do (the host's own: the element's `open()` also loads the lazy part). */
export interface ViewActions {
  open(display?: ViewDisplay): void;
  close(): void;
  focusPopup(): void;
  /** The iframe's `load` event. */
  frameLoaded(): void;
}

/** The card shown: the popup note, a state, the idle card (`ready` to open, or waiting for a session or FileIds). */
export type ViewCard = 'popup' | 'error' | 'expired' | 'sent' | 'ready' | 'no-session' | 'no-files';

/** Everything a template needs of an embedded view. */
export interface ViewApi extends ViewActions {
  readonly status: ViewStatus;
  /** The last error, while `status` is `error`. */
  readonly error: EsignError | undefined;
  /** The origin of the current page. */
  readonly origin: string | undefined;
  /** What could not be reached, while `status` is `error`. */
  readonly unreachable: Hop | undefined;
  /** The error is tried again by itself. */
  readonly retrying: boolean;
  /** The page did not say `ready` in time but is kept (its error beside it). */
  readonly slow: boolean;
  /** The card shown, if any (none while loading). */
  readonly card: ViewCard | undefined;
  /** The spinner is shown; over the frame when `frameShown`. */
  readonly loading: boolean;
  /** The page is in the element's frame (requesting into a blank frame, loading, loaded, slow): the phone sheet covers the screen with it. */
  readonly frameShown: boolean;
  /** The iframe to render, if any: its key, whether it is the pre-built one, whether it waits hidden for its page. */
  readonly frame: { readonly key: number; readonly prebuilt: boolean; readonly pending: boolean } | undefined;
  /** The page reported its height. */
  readonly sized: boolean;
  /** The idle card's button opens the page in a popup. */
  readonly opensPopup: boolean;
  /** The error's "try again" is offered. */
  readonly canRetry: boolean;
  /** The error offers the page in a new window instead (a blocked frame). */
  readonly offerPopup: boolean;
}

/** Errors a new try cannot cure: the person (or the integrator) must change something first. */
const FINAL = new Set(['no_session', 'no_files', 'url_rejected', 'invalid_config']);

export function connect(state: ViewState, facts: ViewFacts, actions: ViewActions): ViewApi {
  const { partError, frame } = facts;
  const status: ViewStatus = partError ? 'error' : state.status;
  const error = partError ?? state.error;
  // a failed load leaves the state where it starts: not slow, nothing unreachable, nothing retried
  const { shownIn, slow } = state;
  const frameShown = (status === 'requesting' && frame.pending) || (shownIn === 'inline' && (status === 'loading' || status === 'loaded' || slow));
  const popupOpen = shownIn === 'popup' && (status === 'loading' || status === 'loaded');
  // `auto` is about to open the page: shown as loading, not as the idle card
  const autoPending = status === 'idle' && facts.auto && facts.display !== 'popup' && facts.hasSession && facts.hasFiles;
  const idleCard: ViewCard = !facts.hasSession ? 'no-session' : !facts.hasFiles ? 'no-files' : 'ready';
  const card: ViewCard | undefined = popupOpen
    ? 'popup'
    : status === 'error' || status === 'expired' || status === 'sent'
      ? status
      : status === 'idle' && !autoPending
        ? idleCard
        : undefined;
  const code = error?.code;
  return {
    ...actions,
    status,
    error,
    origin: state.origin,
    unreachable: state.unreachable,
    retrying: state.retrying,
    slow,
    card,
    loading: status === 'requesting' || (status === 'loading' && !popupOpen) || autoPending,
    frameShown,
    frame:
      frame.prebuilt || frameShown
        ? { key: frame.viewId, prebuilt: frame.prebuilt, pending: !frame.prebuilt && status !== 'loaded' && status !== 'error' }
        : undefined,
    sized: frameShown && !!frame.height,
    opensPopup: facts.display === 'popup',
    canRetry: code === undefined || !FINAL.has(code),
    offerPopup: code === 'frame_blocked' || (code === 'csp_blocked' && error?.directive === 'frame-src'),
  };
}
