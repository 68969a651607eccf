/**
 * Opens a new window, blank, under a fresh name. Call it inside the user's click and before any `await`: a popup
 * blocker refuses a window opened later. Returns null when the browser refused it. `placeholder` is shown until the
 * window is sent somewhere (it is about:blank, this page's origin, so writable).
 */
export function openPopup(prefix: string, features: string, placeholder?: string): Window | null {
  const popup = window.open('about:blank', `${prefix}-${Math.random().toString(36).slice(2)}`, features);
  if (popup && placeholder) {
    try {
      popup.document.title = placeholder;
      popup.document.body.textContent = placeholder;
    } catch {
      // about:blank should be ours; what replaces it does not need this
    }
  }
  return popup;
}
