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
