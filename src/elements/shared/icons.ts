/**
 * A few inline icons (24×24, stroke = currentColor), decorative: hidden from assistive technology. One export per
 * icon (the shared ones here; an icon only one element draws lives in that element's module, as bundlers cannot drop
 * an unused tagged template), so a bundle carries only the icons its modules draw: `icon(checkIcon)`.
 */
import { svg, html, type SVGTemplateResult, type TemplateResult } from 'lit';

export const checkIcon = svg`<circle cx="12" cy="12" r="9"/><path d="m8 12.5 2.7 2.7L16.2 9.5"/>`;
export const alertIcon = svg`<circle cx="12" cy="12" r="9"/><path d="M12 7.5v5.5M12 16.5v.01"/>`;
export const linkIcon = svg`<path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1"/><path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"/>`;

export function icon(path: SVGTemplateResult): TemplateResult {
  return html`<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${path}</svg>`;
}
