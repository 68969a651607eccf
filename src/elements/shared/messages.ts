/** The name of an element's table in the locale modules (`LocaleTables`). */
export type TableId = 'connect' | 'uploader' | 'embeddedView' | 'signingFrame' | 'contractList';

/** An element's English table (complete) and the name of its table in the locale modules. */
export interface Messages<T extends Record<string, string>> {
  id: TableId;
  en: T;
}
