/** CSS shared by the elements: one CSSResult each, so one stylesheet adopted by all of them. */
import { css } from 'lit';

/** `hidden` hides the host; buttons: accent-filled, `.secondary` outlined, and a visible focus ring. */
export const buttonStyles = css`
  :host([hidden]) {
    display: none;
  }
  button {
    font: inherit;
    cursor: pointer;
    border: 1px solid transparent;
    border-radius: var(--esign-radius, 6px);
    padding: 0.5em 1em;
    background: var(--esign-accent, #2557d6);
    color: var(--esign-accent-contrast, #ffffff);
  }
  button.secondary {
    background: transparent;
    color: inherit;
    border-color: currentColor;
  }
  button:focus-visible {
    outline: 3px solid var(--esign-focus, #8ab4ff);
    outline-offset: 2px;
  }
`;

/** Text for screen readers only (live regions): in the accessibility tree, not on screen. */
export const visuallyHiddenStyles = css`
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
