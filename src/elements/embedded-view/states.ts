/** The later states of the embedded views (loading, popup, error, expired, sent) and the frame, loaded with the controller. */
import { css, html, nothing, svg, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { alertIcon, checkIcon, icon } from '../shared/icons.js';
import { autoPending, card, layout, loadingState, opener, renderIdle, type ViewHost, type ViewState, type ViewText } from './render.js';
import type { ViewDisplay } from './rules.js';
import { FRAME_ALLOW, FRAME_SANDBOX_BLANK } from './page-rules.js';

/** The frame's styles (and the loading state over it), added to the element's own when the controller loads. */
export const frameStyles = css`
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
`;

const clockIcon = svg`<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>`;
const windowIcon = svg`<rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 9h18"/>`;

/**
 * Both elements' template once the controller is loaded: states with their slots, then the frame, around the first
 * states' templates (render.ts), which the later states keep in place.
 */
export function renderEmbeddedView(view: ViewState, host: ViewHost, text: ViewText): TemplateResult {
  const { status } = view;
  // idle, a blank frame may wait for the next Url (pre-built); while requesting, the blank frame waits for its Url
  // (hidden); the Url only ever arrives by navigation
  const prebuilt = view.framePrebuilt;
  const shownFrame = (status === 'requesting' && view.framePending) || (view.shownIn === 'inline' && (status === 'loading' || status === 'loaded'));
  const inline = prebuilt || shownFrame;
  const popupOpen = view.shownIn === 'popup' && (status === 'loading' || status === 'loaded');
  const pending = autoPending(view, host);
  const open = opener(host);
  const loading = status === 'requesting' || (status === 'loading' && !popupOpen) || pending;
  return layout(
    shownFrame ? (view.frameHeight ? 'framed sized' : 'framed') : '',
    loading ? loadingState(text, shownFrame) : nothing,
    popupOpen
      ? card({
          part: 'popup',
          tone: 'accent',
          icon: icon(windowIcon),
          title: text.term('openedInPopup'),
          actions: html`<button part="button" class="secondary" @click=${() => view.focusPopup()}>${text.term('showPopup')}</button>`,
        })
      : status === 'error'
        ? renderError(view, text, open)
        : status === 'expired'
          ? card({
              part: 'expired',
              slot: 'expired',
              icon: icon(clockIcon),
              title: text.term('expired'),
              actions: html`<button part="button" @click=${open()}>${text.term('reload')}</button>`,
            })
          : status === 'sent'
            ? card({
                part: 'sent',
                tone: 'success',
                slot: 'sent',
                icon: icon(checkIcon),
                title: text.term('sentTitle'),
                text: html`<p class="text">${text.term('sentText')}</p>`,
                actions: text.startAnother ? html`<button part="button" @click=${text.startAnother}>${text.term('startAnother')}</button>` : nothing,
              })
            : status === 'idle' && !pending
              ? renderIdle(view, host, text, open)
              : nothing,
    inline
      ? keyed(
          view.viewId,
          html`<iframe
            part=${prebuilt ? nothing : 'frame'}
            class=${prebuilt ? 'prebuilt' : status === 'loaded' ? '' : 'pending'}
            title=${text.title}
            tabindex=${prebuilt ? '-1' : nothing}
            aria-hidden=${prebuilt ? 'true' : nothing}
            ?inert=${prebuilt}
            sandbox=${FRAME_SANDBOX_BLANK}
            allow=${FRAME_ALLOW}
            @load=${view.onFrameLoad}
          ></iframe>`,
        )
      : nothing,
    [
      popupOpen
        ? text.term('openedInPopup')
        : status === 'expired'
          ? text.term('expired')
          : status === 'sent'
            ? text.term('sentLive')
            : loading
              ? text.term('loading')
              : '',
      status === 'error' ? errorTexts(view, text)[0] : '',
    ],
  );
}

/** The error state's title and detail, by the error's code. */
function errorTexts(view: ViewState, text: ViewText): [string, unknown] {
  switch (view.error?.code) {
    case 'url_rejected':
      return [text.term('errorUrlRejected'), nothing];
    case 'frame_blocked':
      return [
        text.term('errorFrameBlocked'),
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
    case 'network_error':
      return [text.term('errorOffline'), nothing];
    case 'invalid_config':
      // a setup mistake: the integrator needs the exact reason
      return [text.term('errorSetup'), html`<p class="text">${view.error?.message}</p>`];
    default:
      return [text.term('errorGeneric'), view.error?.message ? html`<p class="text">${view.error.message}</p>` : nothing];
  }
}

function renderError(view: ViewState, text: ViewText, open: (display?: ViewDisplay) => () => void) {
  const code = view.error?.code;
  const [title, detail] = errorTexts(view, text);
  const canRetry = code !== 'no_session' && code !== 'no_files' && code !== 'url_rejected' && code !== 'invalid_config';
  return card({
    part: 'error',
    tone: 'danger',
    slot: 'error',
    code: code ?? '',
    icon: icon(alertIcon),
    title,
    text: detail,
    actions: canRetry
      ? html`${canRetry ? html`<button part="button retry" @click=${open()}>${text.term('retry')}</button>` : nothing}
          ${code === 'frame_blocked' || (code === 'csp_blocked' && view.error?.directive === 'frame-src') ? html`<button part="button fallback" class="secondary" @click=${open('popup')}>${text.term('openInPopup')}</button>` : nothing}`
      : nothing,
  });
}
