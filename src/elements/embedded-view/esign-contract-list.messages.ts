/** Text of <esign-contract-list>; the states and errors it shares with the signing frame are in embedded-view.messages.ts. */
import type { Messages } from '../shared/messages.js';

export interface ContractListTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}

export const contractListMessages: Messages<ContractListTerms> = {
  id: 'contractList',
  en: {
    title: 'E-signature: your contracts',
    heading: 'Your contracts',
    open: 'Show my contracts',
    empty: 'Connect your e-signature account to see your contracts.',
  },
};
