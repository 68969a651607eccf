/** Text of <esign-signing-frame>; the states and errors it shares with the contract list are in embedded-view.messages.ts. */
import type { Messages } from '../shared/messages.js';

export interface SigningFrameTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}

export const signingFrameMessages: Messages<SigningFrameTerms> = {
  id: 'signingFrame',
  en: {
    title: 'E-signature: new envelope',
    heading: 'New envelope',
    open: 'Start signing',
    empty: 'Upload the files to sign, then start the envelope here.',
  },
};
