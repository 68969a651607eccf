/**
 * The emulator's embedded pages in the browser's language (Accept-Language): English, Simplified Chinese, Malay,
 * the languages of the elements. One small table per language, one term per concept.
 */

export type PageLang = 'en' | 'zh-CN' | 'ms';

const en = {
  newEnvelope: 'New envelope',
  files: 'Files',
  subject: 'Subject',
  signers: 'Signers',
  signer: 'Signer {n}',
  name: 'Name',
  email: 'Email',
  addSigner: 'Add signer',
  send: 'Send',
  allContracts: 'All contracts',
  contracts: 'Contracts',
  inSpace: '{user} in {space}',
  noContracts: 'No contracts yet.',
  noContractsHint: 'Envelopes you send or are asked to sign appear here.',
  colSubject: 'Subject',
  colStatus: 'Status',
  colRole: 'Your role',
  colCreated: 'Created',
  colUpdated: 'Updated',
  colSigned: 'Signed',
  sender: 'Sender',
  signerRole: 'Signer',
  noSubject: '(no subject)',
  status: 'Status',
  envelope: 'Envelope',
  sentBy: 'Sent by {name} on {created}; updated {updated}.',
  unknown: 'unknown',
  signingAs: 'Signing as {name}.',
  sign: 'Sign',
  decline: 'Decline',
  voidEnvelope: 'Void envelope',
  cannotOpen: 'Cannot open this page',
  'status.draft': 'Draft',
  'status.sent': 'Awaiting signatures',
  'status.completed': 'Completed',
  'status.declined': 'Declined',
  'status.voided': 'Voided',
  'status.pending': 'Pending',
  'status.signed': 'Signed',
  'error.url_invalid': 'This page address is not valid.',
  'error.url_used': 'This page address was already used. Ask the app for a new one.',
  'error.url_expired': 'This page address has expired. Ask the app for a new one.',
  'error.session_expired': 'This page has expired. Ask the app for a new one.',
  'error.forbidden': 'You are no longer a member of this Space.',
  'error.not_found': 'There is nothing here.',
  'error.noName': 'Enter a name for {email}.',
  'error.badEmail': 'Enter a valid email for {name}.',
  'error.theSigner': 'the signer',
  'error.noSigner': 'Add at least one signer.',
};

export type PageTerm = keyof typeof en;

const tables: Record<PageLang, Record<PageTerm, string>> = {
  en,
  'zh-CN': {
    newEnvelope: '新信封',
    files: '文件',
    subject: '主题',
    signers: '签署人',
    signer: '签署人 {n}',
    name: '姓名',
    email: '电子邮件',
    addSigner: '添加签署人',
    send: '发送',
    allContracts: '全部合同',
    contracts: '合同',
    inSpace: '{user}，空间：{space}',
    noContracts: '还没有合同。',
    noContractsHint: '您发送的或需要您签署的信封会显示在这里。',
    colSubject: '主题',
    colStatus: '状态',
    colRole: '您的角色',
    colCreated: '创建时间',
    colUpdated: '更新时间',
    colSigned: '签署时间',
    sender: '发送人',
    signerRole: '签署人',
    noSubject: '（无主题）',
    status: '状态',
    envelope: '信封',
    sentBy: '由 {name} 于 {created} 发送；更新于 {updated}。',
    unknown: '未知',
    signingAs: '以 {name} 的身份签署。',
    sign: '签署',
    decline: '拒绝',
    voidEnvelope: '作废信封',
    cannotOpen: '无法打开此页面',
    'status.draft': '草稿',
    'status.sent': '等待签署',
    'status.completed': '已完成',
    'status.declined': '已拒绝',
    'status.voided': '已作废',
    'status.pending': '待签署',
    'status.signed': '已签署',
    'error.url_invalid': '此页面地址无效。',
    'error.url_used': '此页面地址已被使用。请向应用获取新的地址。',
    'error.url_expired': '此页面地址已过期。请向应用获取新的地址。',
    'error.session_expired': '此页面已过期。请向应用获取新的地址。',
    'error.forbidden': '您已不是此空间的成员。',
    'error.not_found': '这里没有内容。',
    'error.noName': '请为 {email} 输入姓名。',
    'error.badEmail': '请为 {name} 输入有效的电子邮件。',
    'error.theSigner': '签署人',
    'error.noSigner': '请至少添加一位签署人。',
  },
  ms: {
    newEnvelope: 'Sampul baharu',
    files: 'Fail',
    subject: 'Subjek',
    signers: 'Penandatangan',
    signer: 'Penandatangan {n}',
    name: 'Nama',
    email: 'E-mel',
    addSigner: 'Tambah penandatangan',
    send: 'Hantar',
    allContracts: 'Semua kontrak',
    contracts: 'Kontrak',
    inSpace: '{user} dalam {space}',
    noContracts: 'Belum ada kontrak.',
    noContractsHint: 'Sampul yang anda hantar atau perlu anda tandatangani dipaparkan di sini.',
    colSubject: 'Subjek',
    colStatus: 'Status',
    colRole: 'Peranan anda',
    colCreated: 'Dicipta',
    colUpdated: 'Dikemas kini',
    colSigned: 'Ditandatangani',
    sender: 'Pengirim',
    signerRole: 'Penandatangan',
    noSubject: '(tiada subjek)',
    status: 'Status',
    envelope: 'Sampul',
    sentBy: 'Dihantar oleh {name} pada {created}; dikemas kini {updated}.',
    unknown: 'tidak diketahui',
    signingAs: 'Menandatangani sebagai {name}.',
    sign: 'Tandatangan',
    decline: 'Tolak',
    voidEnvelope: 'Batalkan sampul',
    cannotOpen: 'Halaman ini tidak dapat dibuka',
    'status.draft': 'Draf',
    'status.sent': 'Menunggu tandatangan',
    'status.completed': 'Selesai',
    'status.declined': 'Ditolak',
    'status.voided': 'Dibatalkan',
    'status.pending': 'Belum ditandatangani',
    'status.signed': 'Ditandatangani',
    'error.url_invalid': 'Alamat halaman ini tidak sah.',
    'error.url_used': 'Alamat halaman ini telah digunakan. Minta alamat baharu daripada aplikasi.',
    'error.url_expired': 'Alamat halaman ini telah tamat tempoh. Minta alamat baharu daripada aplikasi.',
    'error.session_expired': 'Halaman ini telah tamat tempoh. Minta alamat baharu daripada aplikasi.',
    'error.forbidden': 'Anda bukan lagi ahli Ruang ini.',
    'error.not_found': 'Tiada apa-apa di sini.',
    'error.noName': 'Masukkan nama untuk {email}.',
    'error.badEmail': 'Masukkan e-mel yang sah untuk {name}.',
    'error.theSigner': 'penandatangan',
    'error.noSigner': 'Tambah sekurang-kurangnya seorang penandatangan.',
  },
};

/** The best supported language of an Accept-Language header (q-values honoured); English when none fits. */
export function pageLang(acceptLanguage: string | undefined | null): PageLang {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((entry) => entry.tag && Number.isFinite(entry.q) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
    if (tag.startsWith('zh')) {
      if (/hant|-tw|-hk|-mo/.test(tag)) continue;
      return 'zh-CN';
    }
    if (tag === 'ms' || tag.startsWith('ms-')) return 'ms';
  }
  return 'en';
}

export interface PageText {
  lang: PageLang;
  t(term: PageTerm, params?: Record<string, string | number>): string;
  /** The term when this language has one by that name. */
  maybe(term: string): string | undefined;
  /** A status word of an envelope or a signer, in this language (the raw value when unknown). */
  status(value: string): string;
  /** A date and time in this language, in UTC. */
  time(ms: number): string;
}

export function pageText(lang: PageLang): PageText {
  const table = tables[lang];
  const locale = lang === 'ms' ? 'ms-MY' : lang;
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  return {
    lang,
    t: (term, params) => table[term].replace(/\{(\w+)\}/g, (whole, name: string) => (params && name in params ? String(params[name]) : whole)),
    maybe: (term) => (table as Record<string, string>)[term],
    status: (value) => (table as Record<string, string>)[`status.${value}`] ?? value,
    time: (ms) => `${dates.format(ms)} UTC`,
  };
}
