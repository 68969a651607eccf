/** CSS shared by <esign-connect>, <esign-signing-frame> and <esign-contract-list>: one CSSResult, so one stylesheet adopted by all of them. */
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
