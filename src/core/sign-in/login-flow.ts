/**
 * The login transport of a page: the popup (opened blank by the caller inside the click), watching it close, the
 * answer its last page sends the opener (the token proxy's done page by default; in the browser-held mode this page's
 * callback relays it), the redirect round trip, and the outcome or callback this document was loaded with. A plain
 * module beside the session manager, loaded with the first sign-in (or on a callback page):
 *
 *   element -> login flow -> the mode's sign-in part (tokens) -> session manager `adopt` -> `change` event -> element.
 *
 * The flow never sets the element's state: it resolves with the session or rejects with an EsignError, and the
 * manager's `change` event says the rest.
 */
import { EsignError, popupClosed } from '@esign-elements/shared/errors';
import { callbackMessage, callbackState, callbackTaken, isCallbackTaken, LOGIN_CHANNEL, type CallbackMessage } from './callback-message.js';
import { callbackKind } from './callback-page.js';
import { authorizationEndpointOf } from '../session/config.js';
import type { ConnectMode, SessionInfo, SessionManager } from '../session/session-manager.js';
import { loadTokenBackend } from '../session/token-backend.js';
import type { TokenSet } from '../session/tokens.js';
import { lastLook, loginPartOf } from './login-part.js';

/** After the popup reads as closed, how long to wait for its relayed answer before asking what became of it. */
const POPUP_CLOSE_GRACE_MS = 1500;
/** While the sign-in continues in a popup severed from this page: the first wait before asking the proxy again, and the longest. */
const STATUS_FIRST_MS = 1000;
const STATUS_MAX_MS = 5000;
/** How long the popup must be seen on a page of another origin to count as shown to the person (not severed on arrival). */
const SEEN_AWAY_MS = 1000;

/** A sign-in on its way: cancel it (closes the popup, forgets the attempt). */
export interface PendingLogin {
  readonly done: Promise<SessionInfo>;
  cancel(error: EsignError): void;
}

/** What the caller hears while the sign-in runs. */
export interface LoginWatch {
  /** The popup reads as closed, but the sign-in may go on in it (a sign-in page severed it from this page). */
  continuing?(): void;
}

/**
 * Starts a sign-in. `popup` is the window the caller opened blank inside the user's click (popup mode); a redirect
 * leaves the page, so its `done` never settles here (the callback completes it in the next document).
 *
 * A popup that reads as closed before any outcome is not always closed: a sign-in page that sends
 * `Cross-Origin-Opener-Policy: same-origin` moves it to another browsing context group, and from then on this page
 * reads `popup.closed === true` while the person is still signing in. The rule (docs/security.md):
 * - the popup is looked at every 100 ms; after it reads as closed, a grace of 1.5 s (a late answer), then the proxy is
 *   asked what became of this attempt (the default mode);
 * - the popup was seen showing a page of another origin for a second or more before it read as closed (the sign-in
 *   page, not severed on arrival: a popup being severed reads as another origin for a moment first), or the proxy
 *   never saw this attempt: the person closed it, `popup_closed`, as before;
 * - else it was severed as it reached the sign-in page: the sign-in continues there (`watch.continuing`), and this
 *   page keeps listening and asks the proxy again, backing off to 5 s and at once when this window gets the focus,
 *   until the outcome comes or the attempt expires (`login_expired`). Cancel ends it.
 */
export async function startLogin(manager: SessionManager, mode: ConnectMode, popup: Window | null, watch: LoginWatch = {}): Promise<PendingLogin> {
  const part = await loginPartOf(manager);
  const { url, state } = await part.begin(mode);
  const messageOrigin = part.messageOrigin;
  // the token backend's code loads while the person is on the consent page
  void loadTokenBackend(manager.config).catch(() => undefined);
  if (mode === 'redirect') {
    location.assign(url);
    return { done: new Promise<SessionInfo>(() => undefined), cancel: () => undefined };
  }
  if (!popup || popup.closed) {
    await part.abandon(state);
    throw popupClosed();
  }
  const expiresAt = Date.now() + (manager.config.attemptTtlSeconds ?? 600) * 1000;
  popup.location.href = url;
  let cancel: (error: EsignError) => void = () => undefined;
  const done = new Promise<SessionInfo>((resolve, reject) => {
    let closedAt = 0;
    /** The popup was seen on a page of another origin for SEEN_AWAY_MS (the sign-in page, in this browsing context group). */
    let seenAway = false;
    let awaySince = 0;
    let settled = false;
    /** The next question to the proxy while the sign-in continues in a severed popup (none while one is asked). */
    let next: ReturnType<typeof setTimeout> | undefined;
    let wait = STATUS_FIRST_MS;
    const settle = (error: unknown, session?: SessionInfo): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(next);
      window.removeEventListener('message', onMessage);
      window.removeEventListener('focus', askNow);
      channel?.close();
      if (session) resolve(session);
      else reject(error);
    };
    // one outcome per sign-in: the answer may arrive twice (the opener's message and the BroadcastChannel of a proxy on
    // this page's own origin, or the proxy's status route) and the popup closes right after it; each is looked at only
    // once the one before is settled, so a copy of an outcome already taken is ignored instead of read as a used
    // sign-in (state_mismatch)
    let heard: Promise<void> = Promise.resolve();
    const inTurn = (look: () => Promise<TokenSet | undefined>): void => {
      heard = heard.then(async () => {
        if (settled) return;
        try {
          const tokens = await look();
          // the one sign-in's tokens become the session, once
          if (tokens) settle(undefined, await manager.adopt(tokens));
        } catch (error) {
          settle(error);
        }
      });
    };
    const accept = (data: unknown): void => inTurn(() => part.accept(data, state));
    const giveUp = (error: EsignError): void => {
      if (!popup.closed) popup.close();
      void part.abandon(state);
      settle(error);
    };
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== popup) return;
      const unknown = unknownToProxy(event.data, state);
      if (unknown) return accept(unknown);
      if (event.origin !== messageOrigin) {
        // the sign-in page itself cannot send the user back (a refused redirect address): say why, at once
        const refusal = event.origin === new URL(authorizationEndpointOf(manager.config)).origin ? refusedRedirect(event.data) : undefined;
        if (refusal) giveUp(refusal);
        return;
      }
      accept(event.data);
    };
    // the consent page may sever window.opener: the proxy's done page (or this origin's callback page) then tells the
    // pages of its origin; a callback page is told that its answer was taken here
    const channel = messageOrigin !== location.origin || typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(LOGIN_CHANNEL);
    if (channel)
      channel.onmessage = (event: MessageEvent) => {
        if (callbackState(event.data) === state) channel.postMessage(callbackTaken(state));
        accept(event.data);
      };
    // what the proxy says of this attempt: its outcome, or whether it goes on
    const ask = async (): Promise<TokenSet | undefined> => {
      next = undefined;
      if (Date.now() >= expiresAt) {
        void part.abandon(state);
        throw new EsignError('login_expired', 'The sign-in took too long and expired. Start again.');
      }
      const status = await part.status?.(state);
      if (typeof status === 'object') return status;
      if (status === 'unknown') return lastLook(part, state);
      next = setTimeout(() => inTurn(ask), status === undefined ? expiresAt - Date.now() : Math.min(wait, Math.max(0, expiresAt - Date.now())));
      wait = Math.min(wait * 1.5, STATUS_MAX_MS);
      return undefined;
    };
    const askNow = (): void => {
      if (next === undefined) return;
      clearTimeout(next);
      next = undefined;
      inTurn(ask);
    };
    const afterClose = async (): Promise<TokenSet | undefined> => {
      const status = await part.status?.(state);
      if (typeof status === 'object') return status;
      // nothing heard: the mode's last look (the default mode asks the proxy whether this sign-in finished)
      if (seenAway || status === 'unknown') return lastLook(part, state);
      watch.continuing?.();
      window.addEventListener('focus', askNow);
      next = setTimeout(() => inTurn(ask), status === undefined ? expiresAt - Date.now() : wait);
      return undefined;
    };
    const timer = setInterval(() => {
      if (!popup.closed) {
        // a popup being severed reads as another origin for a moment before it reads as closed: only a page shown for
        // a while counts as the person's
        awaySince = showsAnotherOrigin(popup) ? awaySince || Date.now() : 0;
        seenAway ||= awaySince > 0 && Date.now() - awaySince >= SEEN_AWAY_MS;
        return;
      }
      closedAt ||= Date.now();
      if (Date.now() - closedAt < POPUP_CLOSE_GRACE_MS) return;
      clearInterval(timer);
      inTurn(afterClose);
    }, 100);
    window.addEventListener('message', onMessage);
    cancel = giveUp;
  });
  return { done, cancel: (error) => cancel(error) };
}

/** Whether the popup shows a page of another origin (its address cannot be read from here). */
function showsAnotherOrigin(popup: Window): boolean {
  try {
    return typeof popup.location.href !== 'string';
  } catch {
    return true;
  }
}

/** What a document's callback became: relayed to the tab that opened this popup, completed here, or not ours. */
export type CallbackOutcome = 'relayed' | 'completed' | 'not-ours';

/** The callback parameters a document was loaded with, read once and removed from its address bar; one claim each. */
const callbacks = new WeakMap<Document, CallbackEntry>();
interface CallbackEntry {
  params: URLSearchParams | null;
  claimed: boolean;
  /** The answer offered on this origin's channel (a popup without an opener): whether a tab took it. */
  handedOver?: Promise<boolean>;
}
const CALLBACK_KEYS = ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'session_state'];
/** The default mode's return: the token proxy sends this tab back with the outcome of its sign-in (no secret). */
const OUTCOME_KEYS: Record<string, string> = { esign_login: 'attempt', esign_outcome: 'outcome', esign_error: 'error' };
/** How long a popup's callback page without an opener waits for the tab that holds the attempt to take the answer. */
const HANDOVER_MS = 1500;

function takeCallback(): CallbackEntry {
  let entry = callbacks.get(document);
  if (entry) return entry;
  const url = new URL(location.href);
  const query = url.searchParams;
  entry = { params: null, claimed: false };
  const kind = callbackKind(query);
  if (kind === 'proxy') {
    entry.params = new URLSearchParams();
    for (const [key, name] of Object.entries(OUTCOME_KEYS)) {
      const value = query.get(key);
      if (value !== null) entry.params.set(name, value);
      url.searchParams.delete(key);
    }
    history.replaceState(history.state, '', url.href);
  } else if (kind === 'authorization') {
    entry.params = new URLSearchParams();
    for (const key of CALLBACK_KEYS) {
      const value = query.get(key);
      if (value !== null) entry.params.set(key, value);
      url.searchParams.delete(key);
    }
    // the code must not stay in history, bookmarks or Referer headers
    history.replaceState(history.state, '', url.href);
  }
  callbacks.set(document, entry);
  return entry;
}

/**
 * Completes or relays the callback this document was loaded with. In a popup opened by a same-origin page, the
 * answer goes to the opener (which holds the attempt) and the popup closes; a popup whose sign-in page severed it from
 * its opener (Cross-Origin-Opener-Policy) offers it on this origin's channel, and closes once the tab that holds the
 * attempt took it. Else the manager that holds the attempt completes it (rejecting with its EsignError). A callback no
 * manager here started is left to the others.
 */
export async function handlePageCallback(manager: SessionManager): Promise<CallbackOutcome> {
  const entry = takeCallback();
  const params = entry.params;
  if (!params) return 'not-ours';
  const state = params.get('state') ?? params.get('attempt') ?? '';
  const part = await loginPartOf(manager);
  const attempt = await part.find(state);
  const opener = safeOpener();
  if (!attempt || attempt.mode === 'popup') {
    if (opener) {
      // this is the popup: hand the answer to the tab that opened it, which holds the attempt
      opener.postMessage(callbackMessage(manager.key, params), location.origin);
      setTimeout(() => window.close(), 50);
      return 'relayed';
    }
    if (params.has('state')) {
      entry.handedOver ??= handOver(callbackMessage(manager.key, params), state);
      if (await entry.handedOver) {
        setTimeout(() => window.close(), 50);
        return 'relayed';
      }
    }
  }
  if (!attempt && entry.claimed) return 'not-ours';
  entry.claimed = true;
  await manager.adopt(await part.complete(params));
  return 'completed';
}

/** Offers a callback on this origin's channel; true once the tab that holds its attempt said it took it. */
function handOver(message: CallbackMessage, state: string): Promise<boolean> {
  if (typeof BroadcastChannel === 'undefined' || !state) return Promise.resolve(false);
  return new Promise((resolve) => {
    const channel = new BroadcastChannel(LOGIN_CHANNEL);
    const finish = (taken: boolean): void => {
      clearTimeout(timer);
      channel.close();
      resolve(taken);
    };
    const timer = setTimeout(() => finish(false), HANDOVER_MS);
    channel.onmessage = (event: MessageEvent) => {
      if (isCallbackTaken(event.data, state)) finish(true);
    };
    channel.postMessage(message);
  });
}

/**
 * The token proxy's outcome after a callback that did not know this browser's sign-in (no pre-login cookie came back:
 * the sign-in started at another host name than the proxy's public one, an old link) names no attempt, and comes from
 * the proxy's public origin, which may not be the origin the sign-in started at: from this sign-in's own popup, it is
 * this sign-in's error (an error only: no session is taken from it). Else undefined.
 */
function unknownToProxy(data: unknown, state: string): unknown {
  const m = data as { source?: unknown; type?: unknown; attempt?: unknown; outcome?: unknown } | null;
  const attemptless =
    typeof m === 'object' && m !== null && m.source === 'esign-token-proxy' && m.type === 'login' && m.attempt === '' && m.outcome === 'error';
  return attemptless ? { ...m, attempt: state } : undefined;
}

function safeOpener(): Window | null {
  try {
    const opener = window.opener as Window | null;
    // only a same-origin opener is ours to answer (cross-origin access throws)
    if (opener && !opener.closed && opener.location.origin === location.origin) return opener;
  } catch {
    // cross-origin opener
  }
  return null;
}

/**
 * The sign-in page's report that it cannot send the user back, as an EsignError naming the address used (and the
 * registered ones when the page lists them). The emulator sends `{source: 'esign', type: 'oauth-error', ...}`
 * (docs/emulator.md); anything else is ignored.
 */
function refusedRedirect(data: unknown): EsignError | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const message = data as { source?: unknown; type?: unknown; error?: unknown; redirectUri?: unknown; registered?: unknown };
  if (message.source !== 'esign' || message.type !== 'oauth-error' || typeof message.error !== 'string') return undefined;
  const used = typeof message.redirectUri === 'string' ? message.redirectUri.slice(0, 500) : '';
  const registered = Array.isArray(message.registered) ? message.registered.filter((r): r is string => typeof r === 'string').slice(0, 20) : [];
  const text =
    message.error === 'invalid_redirect_uri'
      ? `The service refused the redirect address ${used || '(none)'}: it is not registered for this app.` +
        (registered.length
          ? ` Registered: ${registered.join(', ')}. Set redirect-uri to one of them, or register this page's address.`
          : " Register this page's address, or set redirect-uri to a registered one.")
      : `The sign-in page reported ${message.error.slice(0, 100)}.`;
  return new EsignError('oauth_error', text, { serviceCode: message.error.slice(0, 100) });
}
