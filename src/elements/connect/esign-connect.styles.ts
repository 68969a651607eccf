import { css } from 'lit';

/** <esign-connect>'s own look: the bar, the status, the error. */
export const connectStyles = css`
  :host {
    display: block;
  }
  [part~='bar'] {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: var(--_space) calc(var(--_space) * 1.5);
    min-height: 2.25rem;
  }
  [part~='status'] {
    display: inline-flex;
    align-items: center;
    gap: var(--_space);
    min-width: 0;
  }
  [part~='status'] .icon {
    color: var(--_success);
  }
  .who {
    display: grid;
    line-height: 1.3;
    min-width: 0;
  }
  [part~='account'] {
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  [part~='space'] {
    font-size: 0.875em;
    color: color-mix(in srgb, currentColor 74%, transparent);
    overflow-wrap: anywhere;
  }
  [part~='error'] {
    display: flex;
    gap: var(--_space);
    align-items: flex-start;
    color: var(--_danger);
    margin: 0;
    flex-basis: 100%;
  }
  [part~='error'] .detail {
    display: block;
    font-size: 0.875em;
    overflow-wrap: anywhere;
  }
  [part~='offline'],
  [part~='unreachable'] {
    display: inline-flex;
    align-items: center;
    gap: calc(var(--_space) / 2);
    font-size: 0.875em;
  }
  /* the elements inside it stand apart from the bar and from each other (a page's own margins win) */
  ::slotted(:not([slot])) {
    margin-block-start: calc(var(--_space) * 2);
  }
`;
