/** Counted words and sizes in the host's language, for the elements that show them (the uploader). */
import { format, LocalizeController } from '../shared/localize.js';

export class CountingLocalizeController<T extends Record<string, string>> extends LocalizeController<T> {
  /**
   * A term that depends on a count: `key_one`, `key_few`, … chosen by Intl.PluralRules for the host's language,
   * else `key_other`; `{count}` is filled in (formatted for the language) with the other params.
   */
  plural(key: string, count: number, params?: Record<string, string | number>): string {
    const category = new Intl.PluralRules(this.locale).select(count);
    const table = this.localized();
    const english = this.messages.en as Record<string, string>;
    const term = table?.[`${key}_${category}`] ?? table?.[`${key}_other`] ?? english[`${key}_${category}`] ?? english[`${key}_other`] ?? key;
    return format(term, { ...params, count: new Intl.NumberFormat(this.locale).format(count) });
  }

  /**
   * Bytes as a person reads them, in the host's language. Binary units with their binary names (1 KiB = 1024 bytes,
   * 20 MiB), so the number and its unit always agree; below 1 KiB, "598 bytes".
   */
  bytes(value: number): string {
    const locale = this.locale;
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
}
