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
  [part~='drop-zone'][aria-disabled='true'] {
    cursor: not-allowed;
  }
  [part~='drop-zone'][aria-disabled='true'] .badge {
    background: var(--_tint);
    color: var(--_muted);
  }
  [part~='label'] {
    font-weight: 600;
  }
  /* narrow, the label takes two lines either way: "connect first" turning into "choose files" does not move the page */
  [part~='base'] {
    container-type: inline-size;
  }
  @container (max-width: 30rem) {
    [part~='label'] {
      min-height: 2lh;
    }
  }
  /*
   * The list's space, kept from the start: a file row's height (name, progress bar, status; narrow, its buttons on a
   * line of their own), so the first file takes it without moving the page below, whatever its state.
   */
  .files {
    --_row: calc(2.8125em + 0.375rem + var(--_space) * 3 + 2px);
    display: grid;
    gap: calc(var(--_space) * 1.5);
    align-content: start;
    min-height: var(--esign-uploader-list-min-height, var(--_row));
  }
  @container (max-width: 30rem) {
    .files {
      --_row: calc(2.8125em + 0.375rem + 1.875rem + var(--_space) * 3.5 + 2px);
    }
  }
  [part~='empty'] {
    box-sizing: border-box;
    display: grid;
    place-items: center;
    min-height: var(--esign-uploader-list-min-height, var(--_row));
    margin: 0;
    padding: var(--_space) calc(var(--_space) * 1.5);
    border: 1px dashed var(--_border);
    border-radius: var(--_radius);
    color: var(--_muted);
  }
  [part~='empty'] span {
    font-size: 0.875em;
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
