/**
 * How bench/size.bench.ts measures a bundle (issue 13), shared with the budget check in test/node/size-budget.test.ts:
 * esbuild with the CDN settings (scripts/cdn-options.mjs: bundle + minify, ESM, browser) plus code splitting, each
 * chunk gzip -9. What a page loads before its first render is the entry and the chunks it imports statically,
 * transitively; a chunk behind a dynamic `import()` loads later.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { cdnOptions } from '../scripts/cdn-options.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** hellosign-embedded 2.12.4, which only shows a signing page, with these settings. */
export const PEER_BUDGET = 'hellosign-embedded';
/**
 * 20 KiB, plus what no build setting gives back: one `status` for every element (attribute and custom state, 121 B)
 * and <esign-connect> thin over its session host controller (114 B); see those commits.
 */
export const FIRST_STATE_BUDGET = 20 * 1024 + 256;
export const SIGNING_FRAME_BUDGET = 12 * 1024;

export const OPTIONS: BuildOptions = {
  ...cdnOptions,
  logLevel: 'silent',
  absWorkingDir: root,
  write: false,
  metafile: true,
  splitting: true,
  format: 'esm',
  outdir: 'bench/tmp/size',
  // the licence texts are a separate file (legalComments: 'linked' in the CDN build); leave them out here
  legalComments: 'none',
  sourcemap: false,
};

const gzip = (bytes: Uint8Array): number => gzipSync(bytes, { level: 9 }).byteLength;

export interface Chunk {
  file: string;
  min: number;
  gzip: number;
  /** Loaded before the first render (the entry, or imported statically from a chunk that is). */
  initial: boolean;
}

export interface Measured {
  name: string;
  chunks: Chunk[];
  /** Sums over the chunks. */
  initial: { min: number; gzip: number };
  all: { min: number; gzip: number };
  metafile: Metafile | undefined;
  error?: string;
}

const sum = (chunks: Chunk[]): { min: number; gzip: number } => ({
  min: chunks.reduce((s, c) => s + c.min, 0),
  gzip: chunks.reduce((s, c) => s + c.gzip, 0),
});

/** Builds one entry with splitting; marks the chunks a page loads before the first render. */
export async function measure(name: string, entry: string | { contents: string }, options: BuildOptions = OPTIONS): Promise<Measured> {
  try {
    const result = await build({
      ...options,
      ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` } }),
    });
    const meta = result.metafile!;
    const relative = (path: string): string => path.replace(`${root}`, '').replace(/^\/+/, '');
    const outputs = new Map((result.outputFiles ?? []).filter((f) => f.path.endsWith('.js')).map((f) => [relative(f.path), f.contents]));
    // the page's entry: the stdin module, or the named file (a dynamic import's chunk is an entry point too: not it)
    const entryFile = Object.entries(meta.outputs).find(([, o]) =>
      o.entryPoint === (typeof entry === 'string' ? entry : `${name}.ts`),
    )?.[0];
    const initial = new Set<string>();
    const visit = (file: string): void => {
      if (initial.has(file)) return;
      initial.add(file);
      for (const imported of meta.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
    };
    if (entryFile) visit(entryFile);
    const chunks = [...outputs].map(([file, bytes]) => ({ file, min: bytes.byteLength, gzip: gzip(bytes), initial: initial.has(file) }));
    return { name, chunks, initial: sum(chunks.filter((c) => c.initial)), all: sum(chunks), metafile: meta };
  } catch (error) {
    // another engineer may be mid-edit on an element: report it, keep measuring the rest
    return { name, chunks: [], initial: { min: 0, gzip: 0 }, all: { min: 0, gzip: 0 }, metafile: undefined, error: (error as Error).message.split('\n')[0] ?? 'build failed' };
  }
}

/** A page that imports `file` for its tags, as `import 'esign-elements'` (the programmatic exports unused). */
export const sideEffectImport = (file: string): { contents: string } => ({ contents: `import './${file}';` });
