import type { Messages } from '../shared/messages.js';

/** What <esign-connect> says to the user. Error codes without a term here show the error's own message. */
export interface ConnectTerms extends Record<string, string> {
  connect: string;
  connecting: string;
  connectingLive: string;
  cancel: string;
  connected: string;
  connectedAs: string;
  inSpace: string;
  invalid_redirect_uri: string;
  connectedLive: string;
  disconnect: string;
  retry: string;
  continueHere: string;
  signedInClose: string;
  /** A sign-in page severed the popup from this page (Cross-Origin-Opener-Policy): the sign-in goes on there. */
  signInContinues: string;
  sessionExpired: string;
  groupLabel: string;
  somethingWrong: string;
  popup_blocked: string;
  popup_closed: string;
  access_denied: string;
  state_mismatch: string;
  login_expired: string;
  network_error: string;
  csp_blocked: string;
  cookie_blocked: string;
  token_exchange_failed: string;
  origin_not_allowed: string;
  /** Inside another site's frame, with a token proxy not set up for it (`--framed-by`). */
  framing_not_allowed: string;
  session_expired: string;
  refresh_interrupted: string;
  offline: string;
  /** Beside the account while a refresh cannot reach the token proxy (or the service); it goes by itself. */
  errorProxy: string;
  errorService: string;
}

export const connectMessages: Messages<ConnectTerms> = {
  id: 'connect',
  en: {
    connect: 'Connect e-signature account',
    connecting: 'Connecting…',
    connectingLive: 'Connecting to your e-signature account…',
    cancel: 'Cancel',
    connected: 'Connected',
    connectedAs: 'Connected as {name}',
    inSpace: 'Space: {space}',
    invalid_redirect_uri:
      'The e-signature service refused this page as a return address. Register the address below for your app, or set redirect-uri to a registered one.',
    connectedLive: 'E-signature account connected.',
    disconnect: 'Disconnect',
    retry: 'Try again',
    continueHere: 'Continue in this tab',
    signedInClose: 'Signed in. You can close this window.',
    signInContinues: 'The sign-in continues in its own window. Finish it there, or cancel if you closed that window.',
    sessionExpired: 'The session expired. Connect again to continue.',
    groupLabel: 'E-signature account',
    somethingWrong: 'Something went wrong.',
    popup_blocked: 'The browser blocked the sign-in window. Allow popups for this site, or continue in this tab.',
    popup_closed: 'The sign-in window was closed before finishing.',
    access_denied: 'You declined to connect the account.',
    state_mismatch: 'This sign-in response does not match a sign-in started here, or it was already used. Start again.',
    login_expired: 'The sign-in took too long and expired. Start again.',
    network_error: 'Could not reach the sign-in service. Check your connection and try again.',
    csp_blocked: 'The Content-Security-Policy connect-src blocks the sign-in service.',
    cookie_blocked: 'This browser does not send the sign-in cookie back to the token proxy, so the sign-in cannot finish.',
    token_exchange_failed: 'The service did not accept the sign-in. Start again.',
    origin_not_allowed: 'The token proxy does not accept sign-ins from this page. Its settings must name this page’s origin.',
    framing_not_allowed:
      'This page is shown inside another site, and its sign-in service is not set up for that, so connecting cannot work here. Open the page on its own, or ask the site’s administrator.',
    session_expired: 'The session expired. Connect again to continue.',
    refresh_interrupted: 'The connection to your e-signature account was interrupted and could not be renewed. Connect again to continue.',
    offline: 'You are offline.',
    errorProxy: 'The token proxy cannot be reached.',
    errorService: 'The e-signature service cannot be reached.',
  },
};
