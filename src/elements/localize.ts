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

  /** Bytes as a person reads them, in the host's language (1.2 MB). */
  bytes(value: number): string {
    const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
    let unit = 0;
    let size = value;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit++;
    }
    return new Intl.NumberFormat(this.#locale(), { style: 'unit', unit: units[unit], unitDisplay: 'short', maximumFractionDigits: size < 10 && unit > 0 ? 1 : 0 }).format(size);
  }

  /** A date and time in the host's language. */
  dateTime(value: Date | string): string {
    return new Intl.DateTimeFormat(this.#locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(typeof value === 'string' ? new Date(value) : value);
  }

  #locale(): string {
    return this.lang === 'ms' ? 'ms-MY' : this.lang;
  }
}
