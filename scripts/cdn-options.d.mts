import type { OutputChunk, Plugin } from 'rolldown';

/** Minifies the literal text of Lit `css` and `html` tagged templates in src/ (a Rolldown plugin). */
export function minifyLitTemplates(): Plugin;
/** The source with the literal parts of `css`/`html` templates (imported from 'lit') minified. */
export function minifyTemplatesIn(path: string, text: string): string;

export interface BundleOptions {
  /** Output name -> source file (relative to the repository). */
  entries?: Record<string, string>;
  /** Or a page's script (TypeScript), bundled as a file at the repository's root: output `page.js`. */
  page?: string;
  external?: string[];
  define?: Record<string, string>;
  sourcemap?: boolean;
  /** Keep `@license` / `/*!` comments (the CDN build moves them to a licence file). Default false. */
  legalComments?: boolean;
  /** Minify Lit template text (default true). */
  templates?: boolean;
  chunkFileNames?: string;
  /** One file per entry, every dynamic import() inlined (default false: split at each). */
  singleFile?: boolean;
}
/** Bundles for the browser as the CDN build and the size budgets do: Rolldown, ESM, es2022, minified, split at import(). */
export function bundleForBrowser(options: BundleOptions): Promise<OutputChunk[]>;
