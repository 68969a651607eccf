/** The shapes the view's controller shares with its element and its modules (types only). */
import type { ReactiveControllerHost } from 'lit';
import type { ViewDisplay, OperateType } from './rules.js';
import type { ViewTemplates } from './states.js';
import type { ViewRules } from './view-guards.js';

export interface EmbeddedViewHost extends ReactiveControllerHost, HTMLElement {
  connect: string | null | undefined;
  auto: boolean;
  display: ViewDisplay;
  allowedOrigins: string;
  loadTimeout: number;
}

/**
 * The element's first-render modules this one uses too: handed over by the element, not imported. A module imported
 * both by the first render and by this lazy one would be a file of its own in a page's bundle (esbuild makes one
 * chunk per set of entry points that reach a module, and has no setting to merge them), and that split costs the
 * page with all four tags 701 B gzip at first render (rules.ts alone 246 B), measured (docs/bundle-size.md). Types
 * only are imported from them here.
 */
export interface ViewBase {
  /** Of rules.ts: the settings' check, the allowed origins, the page's origin. */
  readonly rules: ViewRules;
  /** Of render.ts: the first states' templates, which the later states keep in place. */
  readonly render: ViewTemplates;
}
export type { ViewRules } from './view-guards.js';

export interface EmbeddedViewOptions {
  operateType: OperateType;
  /** FileIds for request_signatures. */
  fileIds?: () => readonly string[];
  base: ViewBase;
}

