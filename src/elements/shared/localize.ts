/**
 * Host-side text in the user's language: the `lang` of the nearest ancestor, then the document's.
 * Each element keeps its English table inline (see `*.messages.ts`); the other languages are one module each
 * (`locales/<lang>.ts`, the tables of every element), loaded the first time a `lang` asks for them. Until it
 * arrives the element speaks English, then re-renders; import the module up front to have it at the first render.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { LocaleTables } from './locale-tables.js';
import type { Messages } from './messages.js';

export type { LocaleTables } from './locale-tables.js';
export type { Messages } from './messages.js';

export const SUPPORTED_LANGUAGES = ['en', 'zh-CN', 'ms'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
type OtherLanguage = Exclude<Language, 'en'>;

/** Picks the supported language for a BCP 47 tag: `zh`, `zh-Hans`, `zh-SG` → `zh-CN`; `ms-MY` → `ms`. */
export function matchLanguage(tag: string | null | undefined): Language {
  const lower = (tag ?? '').toLowerCase();
  if (lower.startsWith('zh')) return lower.includes('hant') || lower === 'zh-tw' || lower === 'zh-hk' ? 'en' : 'zh-CN';
  if (lower.startsWith('ms')) return 'ms';
  return 'en';
}

/** Replaces `{name}` in a term with `params.name`. */
export function format(term: string, params?: Record<string, string | number>): string {
  if (!params) return term;
  return term.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

const hosts = new Set<ReactiveControllerHost>();
let observer: MutationObserver | undefined;
const locales = new Map<OtherLanguage, LocaleTables>();
const loading = new Set<OtherLanguage>();

/**
 * Adds a language's tables (`tables` of `esign-elements/locales/<lang>.js`); every element on the page re-renders in it.
 * The elements do this themselves when a `lang` asks for the language; call it up front to have the text at the first render.
 */
export function registerLocale(lang: OtherLanguage, tables: LocaleTables): void {
  locales.set(lang, tables);
  hosts.forEach((host) => host.requestUpdate());
}

/** Starts loading a language's module once; a failed load is tried again at the next render that asks for it. */
function load(lang: OtherLanguage): void {
  if (locales.has(lang) || loading.has(lang)) return;
  loading.add(lang);
  // two literal specifiers, so every bundler makes one chunk per language
  void (lang === 'zh-CN' ? import('../locales/zh-CN.js') : import('../locales/ms.js')).then(
    ({ tables }) => registerLocale(lang, tables),
    () => loading.delete(lang),
  );
}

function watchDocumentLang(): void {
  if (observer || typeof MutationObserver === 'undefined' || typeof document === 'undefined') return;
  // a page that switches language re-renders every element
  observer = new MutationObserver(() => hosts.forEach((host) => host.requestUpdate()));
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
}

export class LocalizeController<T extends Record<string, string>> implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  protected readonly messages: Messages<T>;

  constructor(host: ReactiveControllerHost & HTMLElement, messages: Messages<T>) {
    this.#host = host;
    this.messages = messages;
    host.addController(this);
  }

  hostConnected(): void {
    hosts.add(this.#host);
    watchDocumentLang();
  }

  hostDisconnected(): void {
    hosts.delete(this.#host);
  }

  /** The language in force for the host. */
  get lang(): Language {
    const host = this.#host as Partial<HTMLElement>;
    // rendered on a server (Lit SSR) there is no tree to walk: the host's own lang, else English
    const tagged = typeof host.closest === 'function' ? host.closest('[lang]') : host;
    return matchLanguage(tagged?.getAttribute?.('lang') ?? (typeof document === 'undefined' ? undefined : document.documentElement?.lang));
  }

  /** The host language's table for this element, or undefined for English or while its module loads. */
  protected localized(): Partial<Record<string, string>> | undefined {
    const lang = this.lang;
    if (lang === 'en') return undefined;
    const tables = locales.get(lang);
    if (!tables) load(lang);
    return tables?.[this.messages.id] as Partial<Record<string, string>> | undefined;
  }

  /** The term in the host's language, with `{params}` filled in. */
  term(key: keyof T & string, params?: Record<string, string | number>): string {
    return format(this.localized()?.[key] ?? this.messages.en[key], params);
  }

  /** The Intl locale of the host's language. */
  get locale(): string {
    return this.lang === 'ms' ? 'ms-MY' : this.lang;
  }
}
