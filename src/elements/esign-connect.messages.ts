import type { Translations } from './localize.js';

/** What <esign-connect> says to the user. Error codes without a term here show the error's own message. */
export const connectMessages: Translations<{
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
  sessionExpired: string;
  groupLabel: string;
  somethingWrong: string;
  popup_blocked: string;
  popup_closed: string;
  access_denied: string;
  state_mismatch: string;
  login_expired: string;
  network_error: string;
  session_expired: string;
  offline: string;
}> = {
  en: {
    connect: 'Connect e-signature account',
    connecting: 'Connecting…',
    connectingLive: 'Connecting to your e-signature account…',
    cancel: 'Cancel',
    connected: 'Connected',
    connectedAs: 'Connected as {name}',
    inSpace: 'Space: {space}',
    invalid_redirect_uri: 'The e-signature service refused this page as a return address. Register the address below for your app, or set redirect-uri to a registered one.',
    connectedLive: 'E-signature account connected.',
    disconnect: 'Disconnect',
    retry: 'Try again',
    continueHere: 'Continue in this tab',
    signedInClose: 'Signed in. You can close this window.',
    sessionExpired: 'The session expired. Connect again to continue.',
    groupLabel: 'E-signature account',
    somethingWrong: 'Something went wrong.',
    popup_blocked: 'The browser blocked the sign-in window. Allow popups for this site, or continue in this tab.',
    popup_closed: 'The sign-in window was closed before finishing.',
    access_denied: 'You declined to connect the account.',
    state_mismatch: 'This sign-in response does not match a sign-in started here, or it was already used. Start again.',
    login_expired: 'The sign-in took too long and expired. Start again.',
    network_error: 'Could not reach the sign-in service. Check your connection and try again.',
    session_expired: 'The session expired. Connect again to continue.',
    offline: 'You are offline.',
  },
  'zh-CN': {
    connect: '连接电子签名账户',
    connecting: '正在连接…',
    connectingLive: '正在连接您的电子签名账户…',
    cancel: '取消',
    connected: '已连接',
    connectedAs: '已连接：{name}',
    inSpace: '空间：{space}',
    invalid_redirect_uri: '电子签名服务拒绝将此页面作为返回地址。请为您的应用注册下面的地址，或将 redirect-uri 设为已注册的地址。',
    connectedLive: '电子签名账户已连接。',
    disconnect: '断开连接',
    retry: '重试',
    continueHere: '在此标签页中继续',
    signedInClose: '已登录。您可以关闭此窗口。',
    sessionExpired: '会话已过期。请重新连接以继续。',
    groupLabel: '电子签名账户',
    somethingWrong: '出现了问题。',
    popup_blocked: '浏览器拦截了登录窗口。请允许此网站弹出窗口，或在此标签页中继续。',
    popup_closed: '登录窗口在完成前被关闭。',
    access_denied: '您已拒绝连接该账户。',
    state_mismatch: '此登录响应与此处发起的登录不匹配，或已被使用。请重新开始。',
    login_expired: '登录耗时过长，已过期。请重新开始。',
    network_error: '无法连接登录服务。请检查网络后重试。',
    session_expired: '会话已过期。请重新连接以继续。',
    offline: '您已离线。',
  },
  ms: {
    connect: 'Sambungkan akaun e-tandatangan',
    connecting: 'Menyambung…',
    connectingLive: 'Menyambung ke akaun e-tandatangan anda…',
    cancel: 'Batal',
    connected: 'Disambungkan',
    connectedAs: 'Disambungkan sebagai {name}',
    inSpace: 'Ruang: {space}',
    invalid_redirect_uri: 'Perkhidmatan e-tandatangan menolak halaman ini sebagai alamat kembali. Daftarkan alamat di bawah untuk aplikasi anda, atau tetapkan redirect-uri kepada alamat yang berdaftar.',
    connectedLive: 'Akaun e-tandatangan disambungkan.',
    disconnect: 'Putuskan sambungan',
    retry: 'Cuba lagi',
    continueHere: 'Teruskan dalam tab ini',
    signedInClose: 'Telah log masuk. Anda boleh menutup tetingkap ini.',
    sessionExpired: 'Sesi telah tamat tempoh. Sambungkan semula untuk meneruskan.',
    groupLabel: 'Akaun e-tandatangan',
    somethingWrong: 'Sesuatu tidak kena.',
    popup_blocked: 'Pelayar menyekat tetingkap log masuk. Benarkan tetingkap timbul untuk laman ini, atau teruskan dalam tab ini.',
    popup_closed: 'Tetingkap log masuk ditutup sebelum selesai.',
    access_denied: 'Anda menolak untuk menyambungkan akaun.',
    state_mismatch: 'Respons log masuk ini tidak sepadan dengan log masuk yang dimulakan di sini, atau telah digunakan. Mulakan semula.',
    login_expired: 'Log masuk mengambil masa terlalu lama dan telah tamat tempoh. Mulakan semula.',
    network_error: 'Tidak dapat mencapai perkhidmatan log masuk. Semak sambungan anda dan cuba lagi.',
    session_expired: 'Sesi telah tamat tempoh. Sambungkan semula untuk meneruskan.',
    offline: 'Anda di luar talian.',
  },
};
