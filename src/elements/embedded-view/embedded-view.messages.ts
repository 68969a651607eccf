/** Text shared by <esign-signing-frame> and <esign-contract-list>: states, errors and buttons. */
import type { Messages } from '../shared/messages.js';

/** The words of the first states (empty, connect first, loading), and of a failed load of the rest. */
export interface FirstStateTerms extends Record<string, string> {
  loading: string;
  noSession: string;
  errorGeneric: string;
  retry: string;
}

/** The words of the states that follow, loaded with the view's controller (embedded-view/states.ts). */
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
  errorSetup: string;
  requestId: string;
  sentTitle: string;
  sentText: string;
  /** Said in the polite live region after Send: other words than the visible card's, so the card's text is found once. */
  sentLive: string;
  startAnother: string;
  /** The close button of the phone sheet (embedded-view/sheet.ts). */
  closeSheet: string;
}

/** All of the embedded views' shared words (the `embeddedView` table of a locale). */
export interface EmbeddedViewTerms extends FirstStateTerms, StateTerms {}

export const embeddedViewMessages: Messages<FirstStateTerms> = {
  id: 'embeddedView',
  en: {
    loading: 'Loading the e-signature page…',
    noSession: 'Connect your e-signature account to continue.',
    retry: 'Try again',
    errorGeneric: 'Something went wrong.',
  },
};
