/** English of the embedded views' later states, loaded with the view's controller; the other languages have them in the same `embeddedView` table. */
import type { StateTerms } from './embedded-view.messages.js';
import type { Messages } from '../shared/messages.js';

export const embeddedViewStateMessages: Messages<StateTerms> = {
  id: 'embeddedView',
  en: {
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
    errorSetup: 'This element is not set up correctly.',
    requestId: 'Request ID {id}',
    sentTitle: 'Envelope sent',
    sentText: 'The signers get an email with a link to sign. Follow the envelope in your contracts.',
    sentLive: 'Your envelope has gone out for signature; the signers get an email with a link.',
    startAnother: 'Start another envelope',
    closeSheet: 'Close',
  },
};
