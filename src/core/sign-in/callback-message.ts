/**
 * The browser-held mode's relay from a popup's callback page to the tab that opened it: the one message format, sent
 * by the login flow (login-flow.ts) on the callback page and read by the sign-in (login.ts) in the opener.
 */
const CALLBACK_MESSAGE = 'esign-oauth-callback';

/** What a popup's callback page posts to the tab that opened it. */
export interface CallbackMessage {
  type: typeof CALLBACK_MESSAGE;
  sessionKey: string;
  params: string;
}

/** The message a popup's callback page posts to its opener: the authorization response's parameters. */
export function callbackMessage(sessionKey: string, params: URLSearchParams): CallbackMessage {
  return { type: CALLBACK_MESSAGE, sessionKey, params: params.toString() };
}

export function isCallbackMessage(value: unknown): value is CallbackMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as CallbackMessage).type === CALLBACK_MESSAGE &&
    typeof (value as CallbackMessage).params === 'string' &&
    typeof (value as CallbackMessage).sessionKey === 'string'
  );
}

/**
 * The channel of this origin's pages for a sign-in whose popup lost its opener (a sign-in page that sends
 * Cross-Origin-Opener-Policy): the token proxy's done page (on the page's origin) and a popup's callback page post
 * the answer there, and the tab that holds the attempt takes it.
 */
export const LOGIN_CHANNEL = 'esign-login';

const CALLBACK_TAKEN = 'esign-oauth-callback-taken';

/** The `state` of a callback message, or undefined. */
export function callbackState(value: unknown): string | undefined {
  return isCallbackMessage(value) ? (new URLSearchParams(value.params).get('state') ?? undefined) : undefined;
}

/** What the tab that holds the attempt answers a callback page on the channel: it took the answer. */
export function callbackTaken(state: string): { type: typeof CALLBACK_TAKEN; state: string } {
  return { type: CALLBACK_TAKEN, state };
}

export function isCallbackTaken(value: unknown, state: string): boolean {
  const m = value as { type?: unknown; state?: unknown } | null;
  return typeof m === 'object' && m !== null && m.type === CALLBACK_TAKEN && m.state === state;
}
