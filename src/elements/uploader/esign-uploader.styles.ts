import { css } from 'lit';

/** <esign-uploader>'s own look: the drop zone, the setup error, the offline note (the list's is in list.styles.ts). */
export const uploaderStyles = css`
  :host {
    display: block;
    color: var(--_text);
  }
  [part~='base'] {
    display: grid;
    gap: calc(var(--_space) * 1.5);
  }
  [part~='drop-zone'] {
    font: inherit;
    color: var(--_text);
    display: grid;
    gap: calc(var(--_space) / 2);
    justify-items: center;
    width: 100%;
    padding: calc(var(--_space) * 3) calc(var(--_space) * 2);
    background: var(--_tint);
    border: 1.5px dashed var(--_border-strong);
    border-radius: var(--_radius);
    cursor: pointer;
    text-align: center;
    transition:
      border-color var(--_duration) ease,
      background-color var(--_duration) ease;
  }
  [part~='drop-zone'] .badge {
    display: grid;
    place-items: center;
    width: 2.5rem;
    height: 2.5rem;
    margin-block-end: calc(var(--_space) / 2);
    border-radius: 50%;
    background: var(--_accent-tint);
    color: var(--_accent);
  }
  [part~='drop-zone'] .badge svg {
    width: 1.25rem;
    height: 1.25rem;
  }
  /* its own tint, under the ordinary text: as specific as the button family's hover (button:hover:not(…):not(:disabled)), and later */
  button[part~='drop-zone']:hover:not([aria-disabled='true']):not(:disabled),
  button[part~='drop-zone'].dragging {
    border-color: var(--_accent);
    border-style: solid;
    background: var(--_accent-tint);
    color: var(--_text);
  }
  [part~='drop-zone']:focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  /* taking no files, it stays legible (no faded opacity): the muted text keeps 4.5:1 */
  button[part~='drop-zone'][aria-disabled='true'],
  button[part~='drop-zone']:disabled {
    cursor: not-allowed;
    opacity: 1;
  }
  [part~='drop-zone'][aria-disabled='true'] .badge {
    background: var(--_tint);
    color: var(--_muted);
  }
  [part~='label'] {
    font-weight: 600;
  }
  [part~='hint'] {
    color: var(--_muted);
    font-size: 0.875em;
    font-weight: 400;
  }
  [part~='error'],
  [part~='offline'] {
    display: flex;
    align-items: flex-start;
    gap: var(--_space);
    margin: 0;
    padding: var(--_space) calc(var(--_space) * 1.5);
    border-radius: var(--_radius);
  }
  [part~='error'] {
    color: var(--_danger);
    background: var(--_danger-tint);
  }
`;
