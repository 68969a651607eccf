/**
 * The look of the embedded views: their styles, and their first states (empty, connect first, loading) that the
 * element shows before the view's controller is loaded. The later states (error, expired, sent, popup, the frame)
 * and the frame's styles are in states.ts, loaded with the controller.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import type { EsignError } from '../../core/errors.js';
import type { EmbeddedViewTerms } from './embedded-view.messages.js';
import type { SVGTemplateResult } from 'lit';
import { alertIcon, icon, linkIcon } from '../shared/icons.js';
import { buttonStyles, stateStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { liveRegions } from '../shared/a11y.js';
import type { ViewDisplay, ViewStatus } from './rules.js';

export const embeddedViewStyles = [
  buttonStyles,
  stateStyles,
  visuallyHiddenStyles,
  css`
    :host {
      display: flex;
      flex-direction: column;
      position: relative;
      color: var(--_text);
    }
    [part~='base'] {
      position: relative;
      display: flex;
      flex-direction: column;
      flex: 1 1 auto;
      box-sizing: border-box;
    }
    .state {
      flex: 1 1 auto;
      min-height: 14rem;
    }
    [part~='spinner'] {
      width: 1.75rem;
      height: 1.75rem;
      border-width: 3px;
      color: var(--_accent);
    }
    [part~='error'] .title {
      color: var(--_danger);
    }
  `,
];

/** What the first states read: the element's own, before the controller is loaded (then the controller's). */
export interface FirstState {
  readonly status: ViewStatus;
  readonly error: EsignError | undefined;
  readonly hasSession: boolean;
  readonly hasFiles: boolean;
}

/** What the later states read: the controller's state. */
export interface ViewState extends FirstState {
  readonly status: ViewStatus;
  readonly error: EsignError | undefined;
  readonly origin: string | undefined;
  readonly shownIn: ViewDisplay | undefined;
  readonly framePending: boolean;
  readonly framePrebuilt: boolean;
  readonly viewId: number;
  readonly frameHeight: number | undefined;
  readonly hasSession: boolean;
  readonly hasFiles: boolean;
  readonly onFrameLoad: () => void;
  focusPopup(): void;
}

/** The element: the settings the templates read, and its action. */
export interface ViewHost {
  readonly auto: boolean;
  readonly display: ViewDisplay;
  open(options?: { display?: ViewDisplay }): Promise<void>;
}

export interface ViewText {
  /** The iframe's title. */
  title: string;
  /** The heading of the element's empty state ("New envelope", "Your contracts"). */
  heading: string;
  /** The icon of the element's empty state. */
  icon: SVGTemplateResult;
  /** The button that opens the page. */
  open: string;
  /** The empty state when there is a session but nothing to show (no FileIds). */
  empty: string;
  /** The shared terms. */
  term: (key: keyof EmbeddedViewTerms & string, params?: Record<string, string | number>) => string;
  /** The "start another" action of the sent state (signing frame only). */
  startAnother?: () => void;
}

/** A state card: a badge with an icon, a title, an optional line of help and actions. */
export function card(options: {
  part: string;
  tone?: string;
  icon: TemplateResult;
  title: unknown;
  text?: unknown;
  actions?: unknown;
  slot?: string;
  cls?: string;
  code?: string;
}) {
  const body = html`<span class="badge" aria-hidden="true">${options.icon}</span>
    <p class="title" tabindex="-1" data-focus-target>${options.title}</p>
    ${options.text ? options.text : nothing}
    ${options.actions ? html`<div class="actions">${options.actions}</div>` : nothing}`;
  return html`<div part=${options.part} class="state ${options.tone ?? ''} ${options.cls ?? ''}" data-code=${options.code ?? nothing}>
    ${options.slot ? html`<slot name=${options.slot}>${body}</slot>` : body}
  </div>`;
}

/** An open action for a button: `open(display)` of the element, its rejection shown by the element's state. */
export const opener = (host: ViewHost) => (display?: ViewDisplay) => () => void host.open(display ? { display } : {}).catch(() => undefined);

/** Whether `auto` is about to open the page: shown as loading, not as the idle card. */
export const autoPending = (view: FirstState, host: ViewHost): boolean =>
  view.status === 'idle' && host.auto && host.display !== 'popup' && view.hasSession && view.hasFiles;

/** The spinner state. */
export const loadingState = (text: ViewText, overlay = false) =>
  html`<div part="loading" class="state accent ${overlay ? 'overlay' : ''}">
    <slot name="loading"><span part="spinner" class="spinner" aria-hidden="true"></span><p class="title" tabindex="-1" data-focus-target>${text.term('loading')}</p></slot>
  </div>`;

/**
 * The element before its controller is loaded: idle (empty, or connect first), loading when `auto` will open the
 * page, or the error of a failed load with a button that tries again.
 */
export function renderFirstState(view: FirstState, host: ViewHost, text: ViewText): TemplateResult {
  const pending = autoPending(view, host);
  return layout(
    '',
    pending ? loadingState(text) : nothing,
    view.status === 'error'
      ? card({
          part: 'error',
          tone: 'danger',
          slot: 'error',
          code: view.error?.code ?? '',
          icon: icon(alertIcon),
          title: text.term('errorGeneric'),
          text: html`<p class="text">${view.error?.message}</p>`,
          actions: html`<button part="button retry" @click=${opener(host)()}>${text.term('retry')}</button>`,
        })
      : pending
        ? nothing
        : renderIdle(view, host, text, opener(host)),
    nothing,
    [pending ? text.term('loading') : '', view.status === 'error' ? text.term('errorGeneric') : ''],
  );
}

/**
 * The one outer template of both renders (the first states here, the later ones in states.ts): the DOM of an idle
 * card or of the spinner stays in place when the controller arrives.
 */
export const layout = (cls: string, loading: unknown, state: unknown, frame: unknown, [polite, assertive]: [string, string]): TemplateResult =>
  html`<div part="base" class=${cls}>${loading}${state}${frame}${liveRegions(polite, assertive)}</div>`;

export function renderIdle(view: FirstState, host: ViewHost, text: ViewText, open: (display?: ViewDisplay) => () => void) {
  if (!view.hasSession) {
    return card({ part: 'empty', slot: 'empty', icon: icon(linkIcon), title: text.heading, text: html`<p class="text">${text.term('noSession')}</p>` });
  }
  if (!view.hasFiles) return card({ part: 'empty', slot: 'empty', icon: icon(text.icon), title: text.heading, text: html`<p class="text">${text.empty}</p>` });
  return card({
    part: 'empty',
    tone: 'accent',
    icon: icon(text.icon),
    title: text.heading,
    actions: html`<button part="button" @click=${open(host.display === 'popup' ? 'popup' : undefined)}>${text.open}</button>`,
  });
}
