/**
 * Whether this page runs inside a frame of another site (Shopify admin, a Microsoft Teams tab, …). There the token
 * proxy's `SameSite=Strict` cookies never come back: the proxy must be set up for framed pages (`--framed-by`), and
 * the sign-in hands its session to this page through a one-time handoff (docs/guides/inside-another-sites-frame.md).
 *
 * Known for sure from `location.ancestorOrigins` (Chromium, WebKit): an ancestor whose scheme or registrable domain
 * differs. The registrable domain is not computed (no public-suffix list): two hosts whose last two labels differ are
 * on different sites, and hosts that share them are taken as one site (a frame of `a.example.co.uk` in
 * `b.example.co.uk`… and also `x.co.uk` in `y.co.uk`: the page then works as before, never worse). Without
 * `ancestorOrigins` (Firefox): a frame of another origin without unpartitioned storage (`document.hasStorageAccess()`).
 */

/** Undefined on a top-level page or in a frame of its own site; else the framing page's origin when the browser says it. */
export async function framedBy(): Promise<{ top?: string } | undefined> {
  if (window.top === window) return undefined;
  try {
    // readable only in a frame of this origin: no other site's frame
    if (window.top!.location.origin === location.origin) return undefined;
  } catch {
    // another origin
  }
  const ancestors = location.ancestorOrigins as DOMStringList | undefined;
  if (ancestors && ancestors.length > 0) {
    const all = Array.from({ length: ancestors.length }, (_, i) => ancestors.item(i)!);
    return all.some((origin) => crossSite(origin, location.origin)) ? { top: all[all.length - 1]! } : undefined;
  }
  if (typeof document.hasStorageAccess !== 'function') return undefined;
  try {
    return (await document.hasStorageAccess()) ? undefined : {};
  } catch {
    return undefined;
  }
}

/** True only when the two origins are surely on different sites (schemeful; see above for the domain). */
export function crossSite(a: string, b: string): boolean {
  let x: URL;
  let y: URL;
  try {
    x = new URL(a);
    y = new URL(b);
  } catch {
    return false;
  }
  if (x.protocol !== y.protocol) return true;
  const site = (host: string): string => (/^[\d.]+$|^\[|^[^.]+$/.test(host) ? host : host.split('.').slice(-2).join('.'));
  return site(x.hostname) !== site(y.hostname);
}
