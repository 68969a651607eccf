/** The shapes the view's controller shares with its element and its modules (types only). */
import type { ReactiveControllerHost } from 'lit';
import type { ViewDisplay, OperateType } from './rules.js';

export interface EmbeddedViewHost extends ReactiveControllerHost, HTMLElement {
  connect: string | null | undefined;
  auto: boolean;
  display: ViewDisplay;
  allowedOrigins: string;
  loadTimeout: number;
}

export interface EmbeddedViewOptions {
  operateType: OperateType;
  /** FileIds for request_signatures. */
  fileIds?: () => readonly string[];
}
