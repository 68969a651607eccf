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
  /* with files listed below, the zone gives up its badge and some padding for the first row: the uploader hardly grows */
  [part~='drop-zone'].compact {
    padding-block: calc(var(--_space) * 1.5);
  }
  [part~='drop-zone'].compact .badge {
    display: none;
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
