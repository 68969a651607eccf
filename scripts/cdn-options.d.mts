import type { BuildOptions, Plugin } from 'esbuild';

/** Minifies the literal text of Lit `css` and `html` tagged templates in src/. */
export function minifyLitTemplates(): Plugin;
/** The source with the literal parts of `css`/`html` templates (imported from 'lit') minified. */
export function minifyTemplatesIn(path: string, text: string): string;
/** The esbuild options of the CDN bundle, everything but the entry point and the output. */
export const cdnOptions: BuildOptions;
