/**
 * The words of <esign-signing-frame> and <esign-contract-list>, in English (other languages: elements/locales): each
 * tag's own (`signingFrame`, `contractList` tables) and the states, errors and buttons they share (`embeddedView`).
 */
import type { Messages } from '../shared/messages.js';

/** The words of the first states (empty, connect first, loading), and of a failed load of the controller. */
export interface FirstStateTerms extends Record<string, string> {
  loading: string;
  noSession: string;
  errorGeneric: string;
  retry: string;
}

/** The words of the states that follow (popup, expired, errors, sent) and of the phone sheet. */
export interface StateTerms extends Record<string, string> {
  openedInPopup: string;
  showPopup: string;
  expired: string;
  reload: string;
  openInPopup: string;
  errorUrlRejected: string;
  errorFrameBlocked: string;
  errorCspBlocked: string;
  causeCsp: string;
  causeFrameAncestors: string;
  causeNetwork: string;
  errorPopupBlocked: string;
  errorNoSession: string;
  errorNoFiles: string;
  errorViewFailed: string;
  errorOffline: string;
  /** The token proxy or the service could not be reached; said under it when a try again runs by itself. */
  errorProxy: string;
  errorService: string;
  retryingItself: string;
  /** The page did not say ready within the load timeout; it stays, and a late ready opens it. */
  errorSlow: string;
  errorSetup: string;
  requestId: string;
  sentTitle: string;
  sentText: string;
  /** Said in the polite live region after Send: other words than the visible card's, so the card's text is found once. */
  sentLive: string;
  startAnother: string;
  /** The close button of the phone sheet (`sheet`). */
  closeSheet: string;
}

/** All of the embedded views' shared words (the `embeddedView` table of a locale). */
export interface EmbeddedViewTerms extends FirstStateTerms, StateTerms {}

export const embeddedViewMessages: Messages<EmbeddedViewTerms> = {
  id: 'embeddedView',
  en: {
    loading: 'Loading the e-signature page…',
    noSession: 'Connect your e-signature account to continue.',
    retry: 'Try again',
    errorGeneric: 'Something went wrong.',
    openedInPopup: 'The e-signature page is open in another window.',
    showPopup: 'Show the window',
    expired: 'This page has expired.',
    reload: 'Load it again',
    openInPopup: 'Open in a new window',
    errorUrlRejected: 'The e-signature service sent a page address this site does not trust, so it was not opened.',
    errorFrameBlocked: 'The e-signature page did not load here. Likely causes:',
    errorCspBlocked: "This site's Content-Security-Policy ({directive}) blocks the e-signature service.",
    causeCsp: "this site's Content-Security-Policy (frame-src) does not allow {origin};",
    causeFrameAncestors: 'the e-signature service does not allow this site to show its pages (frame-ancestors);',
    causeNetwork: 'the network is slow or offline.',
    errorPopupBlocked: 'The browser blocked the new window. Allow popups for this site and try again.',
    errorNoSession: 'Connect your e-signature account first.',
    errorNoFiles: 'Upload the files to sign first.',
    errorViewFailed: 'The e-signature service could not open the page.',
    errorOffline: 'You are offline. The page opens again by itself when the connection returns.',
    errorProxy: 'The token proxy cannot be reached.',
    errorService: 'The e-signature service cannot be reached.',
    retryingItself: 'The page opens by itself when it answers again.',
    errorSlow: 'The e-signature page is slow to load. If it never opens, likely causes:',
    errorSetup: 'This element is not set up correctly.',
    requestId: 'Request ID {id}',
    sentTitle: 'Envelope sent',
    sentText: 'The signers get an email with a link to sign. Follow the envelope in your contracts.',
    sentLive: 'Your envelope has gone out for signature; the signers get an email with a link.',
    startAnother: 'Start another envelope',
    closeSheet: 'Close',
  },
};

/** The words of one tag: its frame's title, its heading, its open button and its empty state. */
export interface ViewTagTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}
export type SigningFrameTerms = ViewTagTerms;
export type ContractListTerms = ViewTagTerms;

export const signingFrameMessages: Messages<SigningFrameTerms> = {
  id: 'signingFrame',
  en: {
    title: 'E-signature: new envelope',
    heading: 'New envelope',
    open: 'Start signing',
    empty: 'Upload the files to sign, then start the envelope here.',
  },
};

export const contractListMessages: Messages<ContractListTerms> = {
  id: 'contractList',
  en: {
    title: 'E-signature: your contracts',
    heading: 'Your contracts',
    open: 'Show my contracts',
    empty: 'Connect your e-signature account to see your contracts.',
  },
};
