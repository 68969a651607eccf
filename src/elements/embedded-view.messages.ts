/** Text shared by <esign-signing-frame> and <esign-contract-list>: states, errors and buttons. */
import type { Translations } from './localize.js';

export interface EmbeddedViewTerms extends Record<string, string> {
  loading: string;
  openedInPopup: string;
  showPopup: string;
  noSession: string;
  expired: string;
  reload: string;
  retry: string;
  openInPopup: string;
  errorUrlRejected: string;
  errorFrameBlocked: string;
  causeCsp: string;
  causeFrameAncestors: string;
  causeNetwork: string;
  errorPopupBlocked: string;
  errorNoSession: string;
  errorNoFiles: string;
  errorViewFailed: string;
  errorGeneric: string;
  errorOffline: string;
  errorSetup: string;
  requestId: string;
  sentTitle: string;
  sentText: string;
  startAnother: string;
}

export const embeddedViewMessages: Translations<EmbeddedViewTerms> = {
  en: {
    loading: 'Loading the e-signature page…',
    openedInPopup: 'The e-signature page is open in another window.',
    showPopup: 'Show the window',
    noSession: 'Connect your e-signature account to continue.',
    expired: 'This page has expired.',
    reload: 'Load it again',
    retry: 'Try again',
    openInPopup: 'Open in a new window',
    errorUrlRejected: 'The e-signature service sent a page address this site does not trust, so it was not opened.',
    errorFrameBlocked: 'The e-signature page did not load here. Likely causes:',
    causeCsp: "this site's Content-Security-Policy (frame-src) does not allow {origin};",
    causeFrameAncestors: 'the e-signature service does not allow this site to show its pages (frame-ancestors);',
    causeNetwork: 'the network is slow or offline.',
    errorPopupBlocked: 'The browser blocked the new window. Allow popups for this site and try again.',
    errorNoSession: 'Connect your e-signature account first.',
    errorNoFiles: 'Upload the files to sign first.',
    errorViewFailed: 'The e-signature service could not open the page.',
    errorGeneric: 'Something went wrong.',
    errorOffline: 'You are offline. The page opens again by itself when the connection returns.',
    errorSetup: 'This element is not set up correctly.',
    requestId: 'Request ID {id}',
    sentTitle: 'Envelope sent',
    sentText: 'The signers get an email with a link to sign. Follow the envelope in your contracts.',
    startAnother: 'Start another envelope',
  },
  'zh-CN': {
    loading: '正在加载电子签名页面…',
    openedInPopup: '电子签名页面已在另一个窗口中打开。',
    showPopup: '显示窗口',
    noSession: '请先连接您的电子签名账户。',
    expired: '此页面已过期。',
    reload: '重新加载',
    retry: '重试',
    openInPopup: '在新窗口中打开',
    errorUrlRejected: '电子签名服务返回的页面地址不受本站信任，因此未打开。',
    errorFrameBlocked: '电子签名页面未能在此加载。可能的原因：',
    causeCsp: '本站的内容安全策略（frame-src）不允许 {origin}；',
    causeFrameAncestors: '电子签名服务不允许本站嵌入其页面（frame-ancestors）；',
    causeNetwork: '网络缓慢或已断开。',
    errorPopupBlocked: '浏览器阻止了新窗口。请允许本站弹出窗口后重试。',
    errorNoSession: '请先连接您的电子签名账户。',
    errorNoFiles: '请先上传要签署的文件。',
    errorViewFailed: '电子签名服务无法打开该页面。',
    errorGeneric: '出现了问题。',
    errorOffline: '您已离线。网络恢复后页面会自动重新打开。',
    errorSetup: '此组件配置有误。',
    requestId: '请求 ID {id}',
    sentTitle: '信封已发送',
    sentText: '签署人会收到一封带有签署链接的电子邮件。您可以在合同列表中跟进此信封。',
    startAnother: '发起另一个信封',
  },
  ms: {
    loading: 'Memuatkan halaman e-tandatangan…',
    openedInPopup: 'Halaman e-tandatangan dibuka dalam tetingkap lain.',
    showPopup: 'Tunjukkan tetingkap',
    noSession: 'Sambungkan akaun e-tandatangan anda untuk meneruskan.',
    expired: 'Halaman ini telah tamat tempoh.',
    reload: 'Muatkan semula',
    retry: 'Cuba lagi',
    openInPopup: 'Buka dalam tetingkap baharu',
    errorUrlRejected: 'Perkhidmatan e-tandatangan menghantar alamat halaman yang tidak dipercayai oleh laman ini, jadi ia tidak dibuka.',
    errorFrameBlocked: 'Halaman e-tandatangan tidak dimuatkan di sini. Kemungkinan puncanya:',
    causeCsp: 'Content-Security-Policy (frame-src) laman ini tidak membenarkan {origin};',
    causeFrameAncestors: 'perkhidmatan e-tandatangan tidak membenarkan laman ini memaparkan halamannya (frame-ancestors);',
    causeNetwork: 'rangkaian perlahan atau terputus.',
    errorPopupBlocked: 'Pelayar menyekat tetingkap baharu. Benarkan tetingkap timbul untuk laman ini dan cuba lagi.',
    errorNoSession: 'Sambungkan akaun e-tandatangan anda dahulu.',
    errorNoFiles: 'Muat naik fail untuk ditandatangani dahulu.',
    errorViewFailed: 'Perkhidmatan e-tandatangan tidak dapat membuka halaman.',
    errorGeneric: 'Sesuatu tidak kena.',
    errorOffline: 'Anda di luar talian. Halaman akan dibuka semula dengan sendirinya apabila sambungan pulih.',
    errorSetup: 'Elemen ini tidak ditetapkan dengan betul.',
    requestId: 'ID permintaan {id}',
    sentTitle: 'Sampul dihantar',
    sentText: 'Penandatangan menerima e-mel dengan pautan untuk menandatangani. Ikuti sampul ini dalam senarai kontrak anda.',
    startAnother: 'Mulakan sampul lain',
  },
};
