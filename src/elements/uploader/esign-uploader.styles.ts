import { css } from 'lit';

/** <esign-uploader>'s own look: the drop zone, the setup error, the offline note; then the file list's. */
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

/** A styled `<progress>`: a thin accent bar on a tinted track; without a value, a calm sweeping stripe. */
export const progressStyles = css`
  progress {
    appearance: none;
    display: block;
    width: 100%;
    height: 0.375rem;
    border: 0;
    border-radius: 999px;
    overflow: hidden;
    background: var(--_border);
    color: var(--_accent);
  }
  progress::-webkit-progress-bar {
    background: var(--_border);
    border-radius: 999px;
  }
  progress::-webkit-progress-value {
    background: var(--_accent);
    border-radius: 999px;
    transition: inline-size var(--_duration) linear;
  }
  progress::-moz-progress-bar {
    background: var(--_accent);
    border-radius: 999px;
  }
  progress:indeterminate {
    background: linear-gradient(90deg, transparent 0 30%, var(--_accent) 30% 60%, transparent 60%) var(--_border);
    background-size: 200% 100%;
    animation: esign-sweep 1.4s ease-in-out infinite;
  }
  /* the stripe runs the way the page reads */
  progress:indeterminate:dir(rtl) {
    animation-direction: reverse;
  }
  progress:indeterminate::-webkit-progress-bar {
    background: transparent;
  }
  @keyframes esign-sweep {
    from {
      background-position: 100% 0;
    }
    to {
      background-position: -100% 0;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    progress:indeterminate {
      animation: none;
      background: color-mix(in srgb, var(--_accent) 45%, var(--_border));
    }
  }
`;

/** The list's look, added to the element's shadow root when the list loads (the drop zone's is the element's own). */
export const listStyles = css`
      [part~='file-status'],
      .meta {
        color: var(--_muted);
        font-size: 0.875em;
        font-weight: 400;
      }
      [part~='list'] {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: var(--_space);
      }
      [part~='file'] {
        display: grid;
        grid-template-columns: auto minmax(0, 1fr) auto;
        align-items: center;
        gap: calc(var(--_space) / 2) calc(var(--_space) * 1.5);
        padding: var(--_space) calc(var(--_space) * 1.5);
        background: var(--_surface);
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
      }
      .file-icon {
        display: grid;
        place-items: center;
        width: 2rem;
        height: 2rem;
        border-radius: calc(var(--_radius) * 0.75);
        background: var(--_tint);
        color: var(--_muted);
      }
      .file-icon svg {
        width: 1.125rem;
        height: 1.125rem;
      }
      .body {
        display: grid;
        gap: calc(var(--_space) / 2);
        min-width: 0;
      }
      .no-progress {
        height: 0.375rem;
      }
      [part~='file-name'] {
        font-weight: 550;
        overflow-wrap: anywhere;
      }
      [part~='file-done'] .file-icon,
      [part~='file-sent'] .file-icon {
        background: var(--_success-tint);
        color: var(--_success);
      }
      [part~='file-done'] [part~='file-status'],
      [part~='file-sent'] [part~='file-status'] {
        color: var(--_success);
      }
      [part~='file-failed'] .file-icon,
      [part~='file-rejected'] .file-icon {
        background: var(--_danger-tint);
        color: var(--_danger);
      }
      [part~='file-failed'] [part~='file-status'],
      [part~='file-rejected'] [part~='file-status'] {
        color: var(--_danger);
      }
      [part~='file-failed'],
      [part~='file-rejected'] {
        border-color: color-mix(in srgb, var(--_danger) 45%, var(--_surface));
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        justify-content: flex-end;
        gap: calc(var(--_space) / 2);
      }
      [part~='summary'] {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        align-items: center;
        gap: calc(var(--_space) / 2) calc(var(--_space) * 1.5);
      }
      [part~='offline'] {
        background: var(--_tint);
        font-weight: 550;
      }
      /* as narrow as the list's space in the element's styles reckons with (its container is the element's base) */
      @container (max-width: 30rem) {
        [part~='file'] {
          grid-template-columns: auto minmax(0, 1fr);
        }
        [part~='file'] .actions {
          grid-column: 2;
          justify-content: flex-start;
        }
      }
`;
