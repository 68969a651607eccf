/** Text of <esign-contract-list>; the states and errors it shares with the signing frame are in embedded-view.messages.ts. */
import type { Translations } from './localize.js';

export interface ContractListTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}

export const contractListMessages: Translations<ContractListTerms> = {
  en: {
    title: 'E-signature: your contracts',
    heading: 'Your contracts',
    open: 'Show my contracts',
    empty: 'Connect your e-signature account to see your contracts.',
  },
  'zh-CN': {
    title: '电子签名：您的合同',
    heading: '您的合同',
    open: '查看我的合同',
    empty: '连接您的电子签名账户以查看您的合同。',
  },
  ms: {
    title: 'E-tandatangan: kontrak anda',
    heading: 'Kontrak anda',
    open: 'Tunjukkan kontrak saya',
    empty: 'Sambungkan akaun e-tandatangan anda untuk melihat kontrak anda.',
  },
};
