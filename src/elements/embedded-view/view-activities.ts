/**
 * The embedded views' activities (Zag's state `effects`): what runs while a state lasts, as the machine lists it
 * (machine.ts `activities(state)`). `sync(state)` after each transition starts the activities the state has and stops
 * the ones it has not any more, by key: nothing is cleared by hand. Each timer ends by telling the machine what
 * happened; the frame's pre-build gives the view a blank frame for its next Url, and forgets it when its state ends.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { retryWaitMs } from '../../core/service/retry.js';
import { browserOnline, UNREACHABLE_RETRY } from '../../core/service/unreachable.js';
import { activities } from './machine.js';
import type { ViewActivity, ViewEvent } from './machine-types.js';
import { EXPIRY_MARGIN_MS, loadTimeoutMessage } from './url-rules.js';
import type { ViewState } from './view-state.js';

/** What the activities read of their view when they start and when they fire. */
export interface ActivityContext {
  send(event: ViewEvent): void;
  /** The element can be seen. */
  shown(): boolean;
  /** When the held Url is too old to use (ms since the epoch), if one is held. */
  heldUntil(): number | undefined;
  /** The page's popup is still open. */
  popupOpen(): boolean;
  /** The element's `loadTimeout` in ms (0: none). */
  loadTimeout(): number;
  /** Builds a blank frame for the next Url (view-frame.ts `prebuild`), and forgets it. */
  prebuildFrame(): void;
  forgetPrebuiltFrame(): void;
}

/** The longest delay setTimeout keeps (a longer one fires at once). */
const MAX_DELAY = 2_147_483_647;
/** How often the popup is looked at (the browser tells no one when a window closes). */
const POPUP_WATCH_MS = 500;
/** How long a pre-built frame may wait for idle time before it is built anyway (requestIdleCallback's timeout). */
const PREBUILD_IDLE_TIMEOUT_MS = 2_000;
/** Where requestIdleCallback is missing: build the pre-built frame this long after the state began, past the first paint. */
const PREBUILD_FALLBACK_DELAY_MS = 100;

export class ViewActivities {
  readonly #context: ActivityContext;
  /** The activities that run, by key: each with its stop. */
  readonly #running = new Map<string, () => void>();

  constructor(context: ActivityContext) {
    this.#context = context;
  }

  /** Stops the activities `state` does not have, starts the ones it has. */
  sync(state: ViewState): void {
    const wanted = new Map(activities(state).map((activity) => [activity.key, activity]));
    for (const [key, stop] of this.#running) {
      if (wanted.has(key)) continue;
      this.#running.delete(key);
      stop();
    }
    for (const [key, activity] of wanted) if (!this.#running.has(key)) this.#running.set(key, this.#start(activity, state));
  }

  /** Starts `activity` of `state`; returns its stop. */
  #start(activity: ViewActivity, state: ViewState): () => void {
    const context = this.#context;
    const later = (delay: number, event: () => ViewEvent): (() => void) => {
      const timer = setTimeout(() => context.send(event()), Math.min(Math.max(0, delay), MAX_DELAY));
      return () => clearTimeout(timer);
    };
    switch (activity.type) {
      case 'expiry-watch':
        // never used, now too old: a new one while the element can be seen
        return later((context.heldUntil() ?? 0) - EXPIRY_MARGIN_MS - Date.now(), () => ({ type: 'url-expiring', shown: context.shown() }));
      case 'ready-wait': {
        // the element's `loadTimeout`; the machine decides what a silent page means
        const timeout = context.loadTimeout();
        if (timeout <= 0) return () => undefined;
        const error = new EsignError('frame_blocked', loadTimeoutMessage(state.origin ?? '', timeout, state.shownIn === 'popup'));
        return later(timeout, () => ({ type: 'ready-timeout', error, online: browserOnline() }));
      }
      case 'popup-watch': {
        const timer = setInterval(() => {
          if (!context.popupOpen()) context.send({ type: 'closed' });
        }, POPUP_WATCH_MS);
        return () => clearInterval(timer);
      }
      case 'retry-wait':
        return later(retryWaitMs(activity.attempt, activity.retryAfter, UNREACHABLE_RETRY), () => ({ type: 'retry-due', visible: context.shown() }));
      case 'frame-prebuild': {
        // building an iframe costs the browser several ms: done in idle time, kept while the state lasts
        const cancel = whenIdle(() => context.prebuildFrame());
        return () => {
          cancel();
          context.forgetPrebuiltFrame();
        };
      }
    }
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
