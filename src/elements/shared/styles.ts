/**
 * The elements' small design system: tokens, one button family, focus rings, state cards. One CSSResult each,
 * so every element adopts the same stylesheets. (The progress bar is the uploader's alone, so it is in its module:
 * bundlers cannot drop an unused `css` template.)
 *
 * Theming API (documented with @cssprop on every element; few on purpose, as Stripe's Appearance API):
 *   --esign-accent, --esign-accent-contrast, --esign-text, --esign-surface, --esign-danger, --esign-success,
 *   --esign-font, --esign-radius, --esign-spacing.
 * Everything else (muted text, borders, tints, hover shades, focus ring) is derived from them.
 *
 * Light and dark follow the host page: colours are `light-dark()` pairs and system colours (`Canvas`,
 * `CanvasText`), resolved against the `color-scheme` the element inherits from the page. A page that does not
 * ask for dark (`color-scheme: dark`) gets light elements, whatever the operating system prefers.
 */
import { css } from 'lit';

/** Design tokens on :host; private `--_x` names are derived from the public `--esign-*` ones. */
export const tokenStyles = css`
  :host {
    --_accent: var(--esign-accent, light-dark(#2557d6, #8cb0ff));
    --_accent-contrast: var(--esign-accent-contrast, light-dark(#ffffff, #0b1530));
    --_text: var(--esign-text, CanvasText);
    --_surface: var(--esign-surface, Canvas);
    --_danger: var(--esign-danger, light-dark(#b3261e, #ffb4ab));
    --_success: var(--esign-success, light-dark(#1b6e3a, #8fdca6));
    --_font: var(--esign-font, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif);
    --_radius: var(--esign-radius, 8px);
    --_space: var(--esign-spacing, 0.5rem);
    /* derived: never below 4.5:1 for text on the surface with the defaults */
    --_muted: color-mix(in srgb, var(--_text) 70%, var(--_surface));
    --_border: color-mix(in srgb, var(--_text) 24%, var(--_surface));
    --_border-strong: color-mix(in srgb, var(--_text) 48%, var(--_surface));
    --_tint: color-mix(in srgb, var(--_text) 4%, var(--_surface));
    --_accent-tint: color-mix(in srgb, var(--_accent) 10%, var(--_surface));
    --_danger-tint: color-mix(in srgb, var(--_danger) 8%, var(--_surface));
    --_success-tint: color-mix(in srgb, var(--_success) 10%, var(--_surface));
    --_duration: 160ms;
    font-family: var(--_font);
    font-size: 0.9375rem;
    line-height: 1.5;
    -webkit-font-smoothing: antialiased;
  }
  :host([hidden]) {
    display: none !important;
  }
  @media (prefers-reduced-motion: reduce) {
    :host {
      --_duration: 0ms;
    }
  }
`;

/** One button family: primary (accent-filled), `.secondary` (outlined), `.quiet` (text only), `.small`. */
export const buttonStyles = css`
  ${tokenStyles}
  button {
    font: inherit;
    font-weight: 550;
    line-height: 1.25;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: calc(var(--_space) * 0.75);
    min-height: 2.25rem;
    padding: 0.375rem 0.875rem;
    border: 1px solid var(--_accent);
    border-radius: var(--_radius);
    background: var(--_accent);
    color: var(--_accent-contrast);
    cursor: pointer;
    transition:
      background-color var(--_duration) ease,
      border-color var(--_duration) ease,
      box-shadow var(--_duration) ease;
  }
  button:hover:not([aria-disabled='true']):not(:disabled) {
    background: color-mix(in srgb, var(--_accent) 88%, var(--_text));
  }
  button.secondary,
  button.quiet {
    background: var(--_surface);
    color: var(--_text);
    border-color: var(--_border-strong);
  }
  button.quiet {
    border-color: transparent;
    background: transparent;
    color: inherit;
  }
  button.secondary:hover:not([aria-disabled='true']):not(:disabled),
  button.quiet:hover:not([aria-disabled='true']):not(:disabled) {
    background: var(--_tint);
  }
  button.small {
    min-height: 1.875rem;
    padding: 0.125rem 0.625rem;
    font-size: 0.875em;
  }
  button:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  /* a busy button (Connecting…) keeps the focus and its look: only the cursor says to wait */
  button[aria-busy='true'] {
    cursor: progress;
  }
  /* a disabled one is quiet but legible (no faded opacity): muted text, 4.5:1, on the tint */
  button:disabled,
  button[aria-disabled='true']:not([aria-busy='true']) {
    cursor: not-allowed;
    background: var(--_tint);
    color: var(--_muted);
    border-color: var(--_border-strong);
  }
  svg.icon {
    width: 1.25em;
    height: 1.25em;
    flex: none;
  }
  .spinner {
    width: 1em;
    height: 1em;
    flex: none;
    border-radius: 50%;
    border: 2px solid currentColor;
    border-inline-end-color: transparent;
    animation: esign-spin 0.8s linear infinite;
  }
  @keyframes esign-spin {
    to {
      transform: rotate(1turn);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .spinner {
      animation-duration: 2.4s;
    }
  }
`;

/** A designed state: an icon in a soft circle, a title, a line of help, actions. */
export const stateStyles = css`
  .state {
    display: grid;
    justify-items: center;
    align-content: center;
    gap: var(--_space);
    padding: calc(var(--_space) * 3) calc(var(--_space) * 2);
    text-align: center;
    box-sizing: border-box;
    color: var(--_text);
    background: var(--_surface);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .state .badge {
    display: grid;
    place-items: center;
    width: 2.75rem;
    height: 2.75rem;
    border-radius: 50%;
    background: var(--_tint);
    color: var(--_muted);
  }
  .state .badge svg {
    width: 1.5rem;
    height: 1.5rem;
  }
  .state.danger .badge {
    background: var(--_danger-tint);
    color: var(--_danger);
  }
  .state.success .badge {
    background: var(--_success-tint);
    color: var(--_success);
  }
  .state.accent .badge {
    background: var(--_accent-tint);
    color: var(--_accent);
  }
  .state .title {
    margin: 0;
    font-weight: 600;
    font-size: 1.0625em;
  }
  /* a state's heading takes the focus when the control that had it goes (tabindex="-1") */
  .state .title:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
    border-radius: 2px;
  }
  .state .title:focus:not(:focus-visible) {
    outline: none;
  }
  .state .text {
    margin: 0;
    max-width: 42ch;
    color: var(--_muted);
  }
  .state ul.text {
    text-align: start;
    padding-inline-start: 1.25em;
  }
  .state .actions {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: var(--_space);
    margin-block-start: calc(var(--_space) / 2);
  }

`;
