/**
 * The embedded views' state machine: `transition(state, event)` returns the next state and what to do about it (the
 * effects), as data, and `activities(state)` what runs while a state lasts (Zag's state `effects`). No DOM, no timers,
 * no fetch: the controller (controller.ts) reports what happens as events (the host's settings, session and
 * visibility, an answer, a message of the page, a CSP block, the element leaving the page, a timer that fired) and
 * performs the effects; view-activities.ts starts and stops the activities. Every decision is here: auto-open,
 * re-open after a move or the back/forward cache, settings faults, CSP, offline, expiry, the ready timeout, when a
 * blank frame is built ahead of the next Url, and which answer is stale. Unit-tested in test/node/view-machine*.test.ts
 * and test/node/view-prebuild.test.ts.
 *
 * The statuses are the element's `status` (rules.ts `ViewStatus`): `idle` → `requesting` (a Url is asked for) →
 * `loading` (the Url is in a frame or popup, or held until the element is shown) → `loaded` (the page said `ready`);
 * `expired` (the Url or the page expired, no new one asked for yet), `sent` (the page sent an envelope), `error`.
 * Renewals: a Url that expires, or a page that says it expired, is replaced by a new one at most MAX_AUTO_RENEWALS
 * times without a `ready` in between (a page that keeps saying "expired" does not loop).
 *
 * What could not be reached (core/service/unreachable.ts) decides what an error promises, and the machine keeps it:
 * offline, a new Url when the connection returns (a frame whose page cannot load offline says so at once); the token
 * proxy or the service unreachable while online, tries again with backoff (never before a Retry-After) while the element
 * can be seen (the controller times them, `retry-due`; the only retries: its client makes none); else the person
 * decides. A page that does not say `ready` within the load timeout stays where it is (`slow`): a late `ready` makes it
 * loaded, nothing typed in it lost.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { retryAfterOf, unreachable } from '../../core/service/unreachable.js';
import type { ViewDisplay, ViewStatus } from './rules.js';
import type { EsignEnvelopeSentDetail } from '../shared/events.js';
import type { HostFacts, Transition, ViewActivity, ViewEffect, ViewEvent } from './machine-types.js';
import type { ViewState } from './view-state.js';

/** Automatic renewals without a `ready` in between: stops a loop when the page keeps saying "expired". */
export const MAX_AUTO_RENEWALS = 2;

/** (assumption) `error` codes of the embedded pages that a new Url cures (docs/architecture.md). */
const RENEWABLE_PAGE_ERRORS = new Set(['url_used', 'url_expired', 'session_expired']);

/** Whether a page is open or on its way (a Url asked for, held or shown). */
export const isOpen = (state: ViewState): boolean => state.status === 'requesting' || state.status === 'loading' || state.status === 'loaded';

/** Whether a page is in its frame or popup: loading, loaded, or slow (kept beside its error). Its messages count. */
export const hasPage = (state: ViewState): boolean => state.status === 'loading' || state.status === 'loaded' || (state.status === 'error' && state.slow);

/** The activities `state` has: what runs while it lasts. */
export function activities(state: ViewState): ViewActivity[] {
  const { status, request, placed } = state;
  const running: ViewActivity[] = [];
  if (status === 'loading') running.push(placed ? { type: 'ready-wait', key: `ready-${request}` } : { type: 'expiry-watch', key: `expiry-${request}` });
  if (placed && state.shownIn === 'popup' && hasPage(state)) running.push({ type: 'popup-watch', key: `popup-${request}` });
  if (status === 'error' && state.retrying) {
    const retryAfter = retryAfterOf(state.error);
    running.push({ type: 'retry-wait', key: `retry-${state.retries}`, attempt: state.retries - 1, ...(retryAfter === undefined ? {} : { retryAfter }) });
  }
  const waits = status === 'idle' || status === 'expired' || status === 'sent';
  if (waits && state.wasInline && state.wasShown && state.hadSession && !state.problem) running.push({ type: 'frame-prebuild', key: 'prebuild' });
  return running;
}

export function transition(state: ViewState, event: ViewEvent): Transition {
  switch (event.type) {
    case 'open':
      if (event.problem) return fail(state, new EsignError('invalid_config', event.problem), true);
      if (event.blocked)
        return fail(state, new EsignError('popup_blocked', 'The browser blocked the new window. Allow popups for this site and try again.'), true);
      return request({ ...state, renewals: 0, retries: 0, autoKey: event.autoKey ?? state.autoKey }, event.display);

    case 'host':
      return host(state, event.facts);

    case 'page-restored':
      return same(patch(state, { restored: true }));

    case 'csp-blocked': {
      // a blocked frame of the page's origin fails the frame at once; a blocked call to the service is what its
      // failure means (it comes after), or what a network error already told was
      const { status, error, shownIn } = state;
      if (event.error.directive === 'frame-src') return status === 'loading' && shownIn !== 'popup' ? fail(state, event.error, true) : same(state);
      if (status === 'requesting') return same({ ...state, cspError: event.error });
      return status === 'error' && error?.code === 'network_error' ? fail(state, event.error, true) : same(state);
    }

    case 'url-answered': {
      if (state.status !== 'requesting' || event.request !== state.request) return same(state);
      const display = state.shownIn ?? 'inline';
      return {
        state: { ...state, status: 'loading', origin: event.origin, expiresAt: event.expiresAt, retries: 0 },
        effects: [
          { type: 'emit', name: 'esign-view-ready', detail: { origin: event.origin, expiresAt: event.expiresAt, operateType: state.operateType } },
          { type: 'show-page', display, url: event.url, expiresAt: event.expiresAt },
        ],
      };
    }

    case 'url-failed':
      if (state.status !== 'requesting' || event.request !== state.request) return same(state);
      return fail(state, state.cspError ?? event.error, event.online);

    case 'url-expiring':
      if (state.status !== 'loading' || state.placed) return same(state);
      return expire(state, event.shown);

    case 'page-placed':
      if (state.status !== 'loading') return same(state);
      return same({ ...state, placed: true });

    case 'page-ready': {
      if (!hasPage(state)) return same(state);
      // a slow page that says ready late is the page loaded: its error goes, the frame and what is typed in it stay
      const next = { ...state, status: 'loaded' as const, renewals: 0, error: undefined, unreachable: undefined, slow: false };
      if (state.status === 'loaded') return same(next);
      return { state: next, effects: [{ type: 'emit', name: 'esign-view-loaded', detail: { origin: state.origin ?? '' } }] };
    }

    case 'page-error':
      if (!hasPage(state)) return same(state);
      if (RENEWABLE_PAGE_ERRORS.has(event.code)) return expire(state, event.shown);
      return fail(state, new EsignError('view_failed', `The embedded page cannot be used (${event.code}).`, { serviceCode: event.code }), true);

    case 'envelope-sent': {
      if (state.operateType !== 'request_signatures' || !hasPage(state)) return same(state);
      const detail: EsignEnvelopeSentDetail = { envelopeId: event.envelopeId, fileIds: [...event.fileIds], status: event.status };
      return {
        state: {
          ...reset(state, 'sent'),
          sentEnvelopeId: event.envelopeId,
          lastResult: { event: 'esign-envelope-sent', detail },
        },
        // a popup stays open on the envelope's page for the person; the frame makes way for the sent state
        effects: [
          { type: 'cancel', keepPopup: true },
          { type: 'emit', name: 'esign-envelope-sent', detail },
          { type: 'tell-tabs', detail },
        ],
      };
    }

    case 'hidden': {
      // moved in the DOM, an iframe loads its src again: a frame's Url (used once) must not be, so a re-attached element
      // asks for a new one; a sent envelope stays said (a route entered again shows it, and does not start it again)
      const reopen = state.shownIn !== 'popup' && (isOpen(state) || state.status === 'expired');
      const sent = state.status === 'sent';
      return { state: { ...reset(state, sent ? 'sent' : 'idle'), reopen, autoKey: sent ? state.autoKey : '', wasShown: false }, effects: [{ type: 'cancel' }] };
    }

    case 'shown':
      // expired while out of sight: seen again, it asks for a new Url (counted); while in sight the person decides
      if (state.status !== 'expired' || state.shownIn === 'popup') return same(state);
      return request({ ...state, renewals: 1 }, 'inline');

    case 'reattached':
      // a frame whose Url was used (re-attached, or restored from the back/forward cache) gets a new one
      if (!state.reopen && (state.shownIn === 'popup' || !(isOpen(state) || state.status === 'expired'))) return same(state);
      return request({ ...state, reopen: false }, 'inline');

    case 'back-online':
      if (state.status !== 'error' || !state.resumeOnline) return same(state);
      return request({ ...state, resumeOnline: false }, 'inline');

    case 'went-offline':
      // a frame whose page has not said ready cannot load now: said at once, and opened again when the connection returns
      if (state.shownIn !== 'inline' || (state.status !== 'loading' && !(state.status === 'error' && state.slow))) return same(state);
      return fail(state, new EsignError('network_error', 'The browser is offline: the embedded page cannot load until the connection returns.'), false);

    case 'ready-timeout':
      if (state.status !== 'loading') return same(state);
      if (!event.online) return fail(state, event.error, false);
      // slow, blocked or a wrong Url: told, but the page stays (a late ready recovers it; Retry replaces it)
      return {
        state: {
          ...state,
          status: 'error',
          error: event.error,
          unreachable: 'page',
          slow: true,
          lastResult: { event: 'esign-error', detail: { error: event.error, hop: 'page' } },
        },
        effects: [{ type: 'emit', name: 'esign-error', detail: { error: event.error, hop: 'page' } }],
      };

    case 'retry-due':
      if (state.status !== 'error' || !state.retrying || !event.visible) return same(state);
      return request(state, 'inline');

    case 'closed':
      if (state.status === 'idle') return same(state);
      return { state: { ...reset(state, 'idle'), retries: 0 }, effects: [{ type: 'cancel' }] };

    case 'failed':
      return fail(state, event.error, true);
  }
}

const same = (state: ViewState): Transition => ({ state, effects: [] });

/** `state` with `changes`, or `state` itself when they change nothing (a host that says the same twice is not a new state). */
const patch = (state: ViewState, changes: Partial<ViewState>): ViewState =>
  (Object.keys(changes) as Array<keyof ViewState>).every((key) => state[key] === changes[key]) ? state : { ...state, ...changes };

/** `next` after `before`: their states chained, their effects in order. */
const then = (before: Transition, next: (state: ViewState) => Transition): Transition => {
  const after = next(before.state);
  return { state: after.state, effects: [...before.effects, ...after.effects] };
};

/**
 * After each update of the host: a bad setting (reported once, and forgotten once fixed), the session gone (the page
 * of that account goes too), a re-attached element or a page restored from the back/forward cache, an expired page
 * seen again, and `auto` (once per session, Space, allowed origins and FileIds).
 */
function host(state: ViewState, facts: HostFacts): Transition {
  if (facts.problem) {
    if (facts.problem === state.problem) return same(state);
    return fail({ ...state, problem: facts.problem }, new EsignError('invalid_config', facts.problem), true);
  }
  let now = same(state);
  if (state.problem) {
    // fixed: back to idle, and `auto` may open again
    const fixed = { ...state, problem: undefined, autoKey: '' };
    now = fixed.error?.code === 'invalid_config' ? transition(fixed, { type: 'closed' }) : same(fixed);
  }
  const becameShown = facts.shown && !now.state.wasShown;
  now = then(now, (s) => same(patch(s, { wasShown: facts.shown, hadSession: facts.session, wasInline: facts.inline })));
  if (!facts.session) {
    const { status, slow } = now.state;
    if (status !== 'idle' && (status !== 'error' || slow)) now = then(now, (s) => transition(s, { type: 'closed' }));
    return then(now, (s) => same(patch(s, { autoKey: '' })));
  }
  if (facts.inline && (now.state.reopen || now.state.restored)) {
    const reopened = then(now, (s) => transition(patch(s, { restored: false }), { type: 'reattached' }));
    if (reopened.effects.length > now.effects.length) return then(reopened, (s) => same(patch(s, { autoKey: facts.autoKey })));
    now = reopened;
  }
  if (becameShown && now.state.status === 'expired') {
    const renewed = then(now, (s) => transition(s, { type: 'shown' }));
    if (renewed.effects.length > now.effects.length) return renewed;
  }
  if (!facts.auto || !facts.inline || !facts.hasFiles || facts.autoKey === now.state.autoKey) return now;
  return then(now, (s) => transition(s, { type: 'open', display: 'inline', autoKey: facts.autoKey }));
}

/** The state without its page: `status`, no error, nor request; idle also forgets where the page was shown. */
function reset(state: ViewState, status: ViewStatus): ViewState {
  return {
    ...state,
    status,
    error: undefined,
    shownIn: status === 'idle' ? undefined : state.shownIn,
    sentEnvelopeId: status === 'sent' ? state.sentEnvelopeId : undefined,
    resumeOnline: status === 'idle' ? false : state.resumeOnline,
    unreachable: undefined,
    retrying: false,
    slow: false,
    reopen: false,
    placed: false,
  };
}

/** A new Url for `display`: the current page (if any) goes first. */
function request(state: ViewState, display: ViewDisplay): Transition {
  const number = state.request + 1;
  return {
    state: {
      ...reset(state, 'requesting'),
      shownIn: display,
      origin: undefined,
      expiresAt: undefined,
      request: number,
      resumeOnline: false,
      cspError: undefined,
    },
    // a popup is kept: the element opened it in the click (or it shows the page being renewed)
    effects: [display === 'popup' ? { type: 'cancel', keepPopup: true } : { type: 'cancel' }, { type: 'request-url', request: number, display }],
  };
}

/** The Url or the page expired: a new one (counted) while it can be shown and the renewals allow, else `expired`. */
function expire(state: ViewState, shown: boolean): Transition {
  const renewing = shown && state.renewals < MAX_AUTO_RENEWALS;
  const told: ViewEffect = { type: 'emit', name: 'esign-view-expired', detail: { expiresAt: state.expiresAt ?? '', renewing } };
  if (!renewing) return { state: reset(state, 'expired'), effects: [{ type: 'cancel' }, told] };
  const next = request({ ...state, renewals: state.renewals + 1 }, state.shownIn ?? 'inline');
  return { state: next.state, effects: [told, ...next.effects] };
}

/**
 * The state is `error`: kept, and told as `esign-error` with what could not be reached (`online`: what the browser
 * said). Offline, it opens again when the connection returns; a hop unreachable while online (an inline page) is tried
 * again after a backoff; anything else waits for the person.
 */
function fail(state: ViewState, error: EsignError, online: boolean): Transition {
  const hop = unreachable(error, online);
  const retrying = (hop === 'token-proxy' || hop === 'service') && state.shownIn !== 'popup';
  const retries = retrying ? state.retries + 1 : 0;
  const detail = hop ? { error, hop } : { error };
  return {
    state: {
      ...reset(state, 'error'),
      shownIn: undefined,
      error,
      resumeOnline: hop === 'offline',
      unreachable: hop,
      retrying,
      retries,
      lastResult: { event: 'esign-error', detail },
    },
    effects: [{ type: 'cancel' }, { type: 'emit', name: 'esign-error', detail }],
  };
}
