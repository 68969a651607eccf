/**
 * How bench/size.bench.ts measures a bundle (issue 13), shared with the budget check in test/node/size-budget.test.ts:
 * the build's own bundling (scripts/cdn-options.mjs: Rolldown, Vite's bundler, ESM, browser, minified, split at every
 * dynamic import), each chunk gzip -9. What a page loads before its first render is the entry and the chunks it
 * imports statically, transitively; a chunk behind a dynamic `import()` loads later.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleForBrowser, type BundleOptions } from '../scripts/cdn-options.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** hellosign-embedded 2.12.4, which only shows a signing page, with these settings. */
export const PEER_BUDGET = 'hellosign-embedded';
/**
 * The budgets of a page with all four tags, and of the signing frame alone, before each shows its first state. Issue 37
 * set 24 and 14 KiB; putting every element's styles, words and template (the uploader's file list included) and its
 * state's owner in its own module took them to 27,973 B and 14,508 B, which no minifier setting brings back (terser on
 * top saves 172 B). Raised to 28 and 14.5 KiB as guards, then 28.5 (issues 46, 51), then 29 and 15 KiB (issue 45: the
 * views' first state through the pure connect(), one LazyPart), with the question open (docs/bundle-size.md).
 */
export const FIRST_STATE_BUDGET = 29 * 1024;
export const SIGNING_FRAME_BUDGET = 15 * 1024;

/** What may change between measures: server-side packages left out, a `define`, Lit's template text as written. */
export type MeasureOptions = Pick<BundleOptions, 'external' | 'define' | 'templates'>;

const gzip = (bytes: string | Uint8Array): number => gzipSync(bytes, { level: 9 }).byteLength;

export interface Chunk {
  file: string;
  min: number;
  gzip: number;
  /** Loaded before the first render (the entry, or imported statically from a chunk that is). */
  initial: boolean;
  /** The modules in it, biggest first, with their minified bytes in this chunk. */
  modules: Array<{ module: string; bytes: number }>;
}

export interface Measured {
  name: string;
  chunks: Chunk[];
  /** Sums over the chunks. */
  initial: { min: number; gzip: number };
  all: { min: number; gzip: number };
  error?: string;
}

const sum = (chunks: Chunk[]): { min: number; gzip: number } => ({
  min: chunks.reduce((s, c) => s + c.min, 0),
  gzip: chunks.reduce((s, c) => s + c.gzip, 0),
});

const relative = (path: string): string => path.replace(root, '').replace(/^\/+/, '');

/** Builds one entry (a file, or a page's script) with splitting; marks the chunks a page loads before the first render. */
export async function measure(name: string, entry: string | { contents: string }, options: MeasureOptions = {}): Promise<Measured> {
  try {
    const output = await bundleForBrowser({ ...options, ...(typeof entry === 'string' ? { entries: { page: entry } } : { page: entry.contents }) });
    const byName = new Map(output.map((chunk) => [chunk.fileName, chunk]));
    const initial = new Set<string>();
    const visit = (file: string): void => {
      if (initial.has(file)) return;
      initial.add(file);
      for (const imported of byName.get(file)?.imports ?? []) visit(imported);
    };
    visit('page.js');
    const chunks = output.map((chunk) => ({
      file: chunk.fileName,
      min: Buffer.byteLength(chunk.code),
      gzip: gzip(chunk.code),
      initial: initial.has(chunk.fileName),
      modules: Object.entries(chunk.modules)
        .map(([module, info]) => ({ module: relative(module), bytes: info.renderedLength }))
        .sort((a, b) => b.bytes - a.bytes),
    }));
    return { name, chunks, initial: sum(chunks.filter((c) => c.initial)), all: sum(chunks) };
  } catch (error) {
    // another engineer may be mid-edit on an element: report it, keep measuring the rest
    return { name, chunks: [], initial: { min: 0, gzip: 0 }, all: { min: 0, gzip: 0 }, error: (error as Error).message.split('\n')[0] ?? 'build failed' };
  }
}

/** A page that imports `file` for its tags, as `import 'esign-elements'` (the programmatic exports unused). */
export const sideEffectImport = (file: string): { contents: string } => ({ contents: `import './${file}';` });
