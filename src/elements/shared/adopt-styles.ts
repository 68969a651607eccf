/**
 * Styles a lazily loaded part brings with it (the uploader's list, the embedded views' frame): the part adds them to
 * the element's shadow root when it loads, so they arrive with the code that renders what they style, not at the
 * first render.
 */
import { supportsAdoptingStyleSheets, type CSSResult } from 'lit';

/** The styles added to a root as `<style>` elements (where constructed stylesheets are missing). */
const styleElements = new WeakMap<ShadowRoot, WeakSet<CSSResult>>();

/**
 * Adds styles to a shadow root after its first render, as Lit adopts an element's own: a constructed stylesheet
 * (allowed by a strict style-src), else a `<style>` with the page's `litNonce`. A sheet already there is not added again.
 */
export function adoptStyles(root: ShadowRoot | null, ...styles: CSSResult[]): void {
  if (!root) return;
  if (supportsAdoptingStyleSheets) {
    const sheets = styles.map((s) => s.styleSheet).filter((s): s is CSSStyleSheet => s !== undefined && !root.adoptedStyleSheets.includes(s));
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, ...sheets];
    return;
  }
  let added = styleElements.get(root);
  if (!added) styleElements.set(root, (added = new WeakSet()));
  for (const s of styles) {
    if (added.has(s)) continue;
    added.add(s);
    const style = document.createElement('style');
    const nonce = (globalThis as { litNonce?: string }).litNonce;
    if (nonce !== undefined) style.setAttribute('nonce', nonce);
    style.textContent = s.cssText;
    root.appendChild(style);
  }
}
