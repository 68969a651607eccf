/**
 * The look of the embedded views: their styles (states, frame, phone sheet) and their one template, markup over what
 * `connect()` (connect.ts) makes of the view's state (before the lazy part loads, of the state where a view starts:
 * empty, connect first, loading, or a failed load), and the phone sheet as its controller (`SheetController`, sheet.ts) says: while it is open,
 * `[part~=base]` is the full-screen dialog (`data-sheet`, `role`, `aria-label`, a manual `popover` where the browser
 * has popovers) and its first child is the bar with the close button. The bar is a child part of its own before the
 * frame's, so opening or closing the sheet never moves or re-creates the iframe (a moved iframe reloads).
 */
import { css, html, nothing, svg, type SVGTemplateResult, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import type { EmbeddedViewTerms } from './embedded-view.messages.js';
import { alertIcon, checkIcon, icon, linkIcon } from '../shared/icons.js';
import { buttonStyles, stateStyles } from '../shared/styles.js';
import { visuallyHiddenStyles } from '../shared/visually-hidden.js';
import { liveRegions } from '../shared/a11y.js';
import { FRAME_ALLOW, FRAME_SANDBOX_BLANK } from './rules.js';
import type { ViewApi } from './connect.js';

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

  [part~='base'].framed {
    min-height: var(--esign-frame-min-height, 32rem);
  }
  /* the page said how tall it is: fit it (a short contract list is not a tall empty panel); a host height still fills */
  [part~='base'].framed.sized {
    min-height: 12rem;
  }
  [part~='frame'] {
    display: block;
    flex: 1 0 auto;
    width: 100%;
    min-height: inherit;
    box-sizing: border-box;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_surface);
  }
  [part~='frame'].pending {
    visibility: hidden;
  }
  /* built ahead of need: out of the flow (no layout shift), unseen, untouchable; it has no part, so no page style reaches it */
  iframe.prebuilt {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    border: 0;
    visibility: hidden;
    pointer-events: none;
  }
  [part~='loading'].overlay {
    position: absolute;
    inset: 0;
  }

  /* :host raises the specificity over the frame's own rules (min-height), whichever were added first */
  :host [part~='base'][data-sheet] {
    position: fixed;
    inset: 0;
    z-index: var(--esign-sheet-z-index, 2147483000);
    width: auto;
    height: auto;
    max-width: none;
    max-height: none;
    min-height: 0;
    margin: 0;
    border: 0;
    overflow: hidden;
    box-sizing: border-box;
    padding: env(safe-area-inset-top, 0px) env(safe-area-inset-right, 0px) env(safe-area-inset-bottom, 0px) env(safe-area-inset-left, 0px);
    background: var(--esign-sheet-background, var(--_surface));
    color: var(--_text);
  }
  [part~='base'][data-sheet]::backdrop {
    background: var(--esign-sheet-background, var(--_surface));
  }
  [part~='sheet-bar'] {
    display: flex;
    flex: 0 0 auto;
    justify-content: flex-end;
    padding: var(--_space);
    border-bottom: 1px solid var(--_border);
    /* over the loading state, which covers the rest of the sheet while the page loads */
    position: relative;
    z-index: 1;
    background: var(--esign-sheet-background, var(--_surface));
  }
  [part~='sheet-close'] {
    display: inline-flex;
    align-items: center;
    gap: var(--_space);
  }
  [part~='sheet-close'] svg {
    width: 1.25rem;
    height: 1.25rem;
  }
  /* the page fills what is left of the screen, whatever height it reported */
  [data-sheet] > [part~='frame'] {
    flex: 1 1 0 !important;
    height: auto !important;
    min-height: 0;
    border: 0;
    border-radius: 0;
  }
  `,
];

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
function card(options: {
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

/** The spinner state. */
const loadingState = (text: ViewText, overlay = false) =>
  html`<div part="loading" class="state accent ${overlay ? 'overlay' : ''}">
    <slot name="loading"><span part="spinner" class="spinner" aria-hidden="true"></span><p class="title" tabindex="-1" data-focus-target>${text.term('loading')}</p></slot>
  </div>`;

/** The idle card: waiting for a session or FileIds, or ready to open. */
function renderIdle(view: ViewApi, text: ViewText) {
  if (view.card === 'no-session') {
    return card({ part: 'empty', slot: 'empty', icon: icon(linkIcon), title: text.heading, text: html`<p class="text">${text.term('noSession')}</p>` });
  }
  if (view.card === 'no-files')
    return card({ part: 'empty', slot: 'empty', icon: icon(text.icon), title: text.heading, text: html`<p class="text">${text.empty}</p>` });
  return card({
    part: 'empty',
    tone: 'accent',
    icon: icon(text.icon),
    title: text.heading,
    actions: html`<button part="button" @click=${() => view.open(view.opensPopup ? 'popup' : undefined)}>${text.open}</button>`,
  });
}

/** Whether this browser has popovers: there the sheet is a manual popover, in the top layer. */
const popovers = typeof HTMLElement === 'function' && 'showPopover' in HTMLElement.prototype;

const closeIcon = svg`<path d="M6 6l12 12M18 6 6 18"/>`;
const clockIcon = svg`<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>`;
const windowIcon = svg`<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 9h18"/>`;

/**
 * Both elements' template, markup over `connect()` (connect.ts): the states with their slots, then the frame, and the
 * live regions; `sheet`: the phone sheet is open (its controller's state; closed before that is loaded).
 */
export function renderView(view: ViewApi, text: ViewText, sheet = false): TemplateResult {
  const { status, frame } = view;
  const state =
    view.card === 'popup'
      ? card({
          part: 'popup',
          tone: 'accent',
          icon: icon(windowIcon),
          title: text.term('openedInPopup'),
          actions: html`<button part="button" class="secondary" @click=${() => view.focusPopup()}>${text.term('showPopup')}</button>`,
        })
      : view.card === 'error'
        ? renderError(view, text)
        : view.card === 'expired'
          ? card({
              part: 'expired',
              slot: 'expired',
              icon: icon(clockIcon),
              title: text.term('expired'),
              actions: html`<button part="button" @click=${() => view.open()}>${text.term('reload')}</button>`,
            })
          : view.card === 'sent'
            ? card({
                part: 'sent',
                tone: 'success',
                slot: 'sent',
                icon: icon(checkIcon),
                title: text.term('sentTitle'),
                text: html`<p class="text">${text.term('sentText')}</p>`,
                actions: text.startAnother ? html`<button part="button" @click=${text.startAnother}>${text.term('startAnother')}</button>` : nothing,
              })
            : view.card
              ? renderIdle(view, text)
              : nothing;
  // idle, a blank frame may wait for the next Url (pre-built); while requesting, the blank frame waits for its Url
  // (hidden); the Url only ever arrives by navigation
  const iframe = frame
    ? keyed(
        frame.key,
        html`<iframe
            part=${frame.prebuilt ? nothing : 'frame'}
            class=${frame.prebuilt ? 'prebuilt' : frame.pending ? 'pending' : ''}
            title=${text.title}
            tabindex=${frame.prebuilt ? '-1' : nothing}
            aria-hidden=${frame.prebuilt ? 'true' : nothing}
            ?inert=${frame.prebuilt}
            sandbox=${FRAME_SANDBOX_BLANK}
            allow=${FRAME_ALLOW}
            @load=${view.frameLoaded}
          ></iframe>`,
      )
    : nothing;
  const polite =
    view.card === 'popup'
      ? text.term('openedInPopup')
      : status === 'expired'
        ? text.term('expired')
        : status === 'sent'
          ? text.term('sentLive')
          : view.loading
            ? text.term('loading')
            : '';
  // the phone sheet's bar: a child part of its own, before the frame's, so it comes and goes without touching the iframe
  const bar = sheet
    ? html`<div part="sheet-bar">
        <button part="button sheet-close" class="secondary" type="button" @click=${() => view.close()}>${icon(closeIcon)}${text.term('closeSheet')}</button>
      </div>`
    : nothing;
  return html`<div
    part="base"
    class=${view.frameShown ? (view.sized ? 'framed sized' : 'framed') : ''}
    ?data-sheet=${sheet}
    role=${sheet ? 'dialog' : nothing}
    aria-label=${sheet ? text.title : nothing}
    popover=${sheet && popovers ? 'manual' : nothing}
  >
    ${bar}${view.loading ? loadingState(text, view.frameShown) : nothing}${state}${iframe}${liveRegions(polite, status === 'error' ? errorTexts(view, text)[0] : '')}
  </div>`;
}

/** The error state's title and detail, by the error's code. */
function errorTexts(view: ViewApi, text: ViewText): [string, unknown] {
  // what could not be reached first: the words name it, and promise a return only where one runs
  const hop = view.unreachable;
  const again = view.retrying;
  if (hop === 'offline') return [text.term('errorOffline'), nothing];
  if (hop === 'token-proxy' || hop === 'service') {
    return [text.term(hop === 'service' ? 'errorService' : 'errorProxy'), again ? html`<p class="text">${text.term('retryingItself')}</p>` : nothing];
  }
  switch (view.error?.code) {
    case 'url_rejected':
      return [text.term('errorUrlRejected'), nothing];
    case 'frame_blocked':
      return [
        text.term(view.slow ? 'errorSlow' : 'errorFrameBlocked'),
        html`<ul class="text">
          <li>${text.term('causeCsp', { origin: view.origin ?? '' })}</li>
          <li>${text.term('causeFrameAncestors')}</li>
          <li>${text.term('causeNetwork')}</li>
        </ul>`,
      ];
    case 'csp_blocked':
      // a setup mistake: the integrator needs the origin to add, in the error's own words
      return [text.term('errorCspBlocked', { directive: view.error?.directive ?? '' }), html`<p class="text">${view.error?.message}</p>`];
    case 'popup_blocked':
      return [text.term('errorPopupBlocked'), nothing];
    case 'no_session':
      return [text.term('errorNoSession'), nothing];
    case 'no_files':
      return [text.term('errorNoFiles'), nothing];
    case 'view_failed':
      return [
        text.term('errorViewFailed'),
        view.error?.requestId ? html`<p class="text">${text.term('requestId', { id: view.error.requestId })}</p>` : nothing,
      ];
    case 'invalid_config':
      // a setup mistake: the integrator needs the exact reason
      return [text.term('errorSetup'), html`<p class="text">${view.error?.message}</p>`];
    default:
      return [text.term('errorGeneric'), view.error?.message ? html`<p class="text">${view.error.message}</p>` : nothing];
  }
}

function renderError(view: ViewApi, text: ViewText) {
  const [title, detail] = errorTexts(view, text);
  return card({
    part: 'error',
    tone: 'danger',
    slot: 'error',
    code: view.error?.code ?? '',
    icon: icon(alertIcon),
    title,
    text: detail,
    actions: view.canRetry
      ? html`<button part="button retry" @click=${() => view.open()}>${text.term('retry')}</button>
          ${view.offerPopup ? html`<button part="button fallback" class="secondary" @click=${() => view.open('popup')}>${text.term('openInPopup')}</button>` : nothing}`
      : nothing,
  });
}
