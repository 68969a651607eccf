/** Text of <esign-signing-frame>; the states and errors it shares with the contract list are in embedded-view.messages.ts. */
import type { Translations } from './localize.js';

export interface SigningFrameTerms extends Record<string, string> {
  title: string;
  heading: string;
  open: string;
  empty: string;
}

export const signingFrameMessages: Translations<SigningFrameTerms> = {
  en: {
    title: 'E-signature: new envelope',
    heading: 'New envelope',
    open: 'Start signing',
    empty: 'Upload the files to sign, then start the envelope here.',
  },
  'zh-CN': {
    title: '电子签名：新信封',
    heading: '新信封',
    open: '开始签署',
    empty: '请上传要签署的文件，然后在此发起信封。',
  },
  ms: {
    title: 'E-tandatangan: sampul baharu',
    heading: 'Sampul baharu',
    open: 'Mula menandatangani',
    empty: 'Muat naik fail untuk ditandatangani, kemudian mulakan sampul di sini.',
  },
};
