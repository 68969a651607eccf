/**
 * Host-side text in the user's language: the `lang` of the nearest ancestor, then the document's.
 * Each element keeps its own small typed table per language (see `*.messages.ts`).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export const SUPPORTED_LANGUAGES = ['en', 'zh-CN', 'ms'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** A table per language; English is complete, the others fall back to it term by term. */
export type Translations<T extends Record<string, string>> = { en: T } & Partial<Record<Exclude<Language, 'en'>, Partial<T>>>;

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

function watchDocumentLang(): void {
  if (observer || typeof MutationObserver === 'undefined' || typeof document === 'undefined') return;
  // a page that switches language re-renders every element
  observer = new MutationObserver(() => hosts.forEach((host) => host.requestUpdate()));
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
}

export class LocalizeController<T extends Record<string, string>> implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #table: Translations<T>;

  constructor(host: ReactiveControllerHost & HTMLElement, table: Translations<T>) {
    this.#host = host;
    this.#table = table;
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
    const tagged = this.#host.closest('[lang]');
    return matchLanguage(tagged?.getAttribute('lang') ?? document.documentElement.lang);
  }

  /** The term in the host's language, with `{params}` filled in. */
  term(key: keyof T & string, params?: Record<string, string | number>): string {
    const localized = this.#table[this.lang as Exclude<Language, 'en'>]?.[key];
    return format(localized ?? this.#table.en[key], params);
  }

  /**
   * A term that depends on a count: `key_one`, `key_few`, … chosen by Intl.PluralRules for the host's language,
   * else `key_other`; `{count}` is filled in (formatted for the language) with the other params.
   */
  plural(key: string, count: number, params?: Record<string, string | number>): string {
    const category = new Intl.PluralRules(this.#locale()).select(count);
    const table = this.#table[this.lang as Exclude<Language, 'en'>] as Partial<Record<string, string>> | undefined;
    const english = this.#table.en as Record<string, string>;
    const term = table?.[`${key}_${category}`] ?? table?.[`${key}_other`] ?? english[`${key}_${category}`] ?? english[`${key}_other`] ?? key;
    return format(term, { ...params, count: new Intl.NumberFormat(this.#locale()).format(count) });
  }

  /**
   * Bytes as a person reads them, in the host's language. Binary units with their binary names (1 KiB = 1024 bytes,
   * 20 MiB), so the number and its unit always agree; below 1 KiB, "598 bytes".
   */
  bytes(value: number): string {
    const locale = this.#locale();
    if (!(value >= 1024)) return new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(Math.max(0, value || 0));
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let unit = 0;
    let size = value / 1024;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit++;
    }
    return `${new Intl.NumberFormat(locale, { maximumFractionDigits: size < 10 ? 1 : 0 }).format(size)}\u00a0${units[unit]}`;
  }

  /** A date and time in the host's language. */
  dateTime(value: Date | string): string {
    return new Intl.DateTimeFormat(this.#locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(typeof value === 'string' ? new Date(value) : value);
  }

  #locale(): string {
    return this.lang === 'ms' ? 'ms-MY' : this.lang;
  }
}
