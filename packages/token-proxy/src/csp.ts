/**
 * The Content-Security-Policy sources a page with the elements needs, from the URLs it is configured with: the
 * page calls the service's base URL (business calls, uploads) and the token proxy (`connect-src`), and frames the
 * service's embedded pages (`frame-src`); a page shown inside other sites' frames names them (`frame-ancestors`). Pure: used by `esign-token-proxy --print-csp` and `@esign-elements/testing`.
 */

export interface CspInput {
  /** The service base URL the elements' `base-url` names. */
  baseUrl: string;
  /**
   * The origin of the service's embedded pages (their `Url`s); default the base URL's origin, as on the emulator.
   * (assumption) the real service may serve them from another host: set it to what its `Url`s use.
   */
  embedOrigin?: string;
  /** The token proxy as the page reaches it (`token-endpoint`'s origin); none or the page's own origin: `'self'`. */
  proxyOrigin?: string;
  /** The page's own origin, when known: a proxy on it is written `'self'`. */
  pageOrigin?: string;
  /** The sites allowed to frame the page (the proxy's `framedBy`): `frame-ancestors` names exactly these. */
  framedBy?: string[];
}

/** Directive -> sources, in the order a policy lists them. */
export interface CspSources {
  'connect-src': string[];
  'frame-src': string[];
  /** Only for a page shown inside other sites' frames (`framedBy`). */
  'frame-ancestors'?: string[];
}

export function cspSources(input: CspInput): CspSources {
  const service = new URL(input.baseUrl).origin;
  const embed = new URL(input.embedOrigin ?? input.baseUrl).origin;
  const proxy = input.proxyOrigin ? new URL(input.proxyOrigin).origin : undefined;
  const connect = ["'self'"];
  if (proxy && proxy !== input.pageOrigin && !connect.includes(proxy)) connect.push(proxy);
  if (!connect.includes(service)) connect.push(service);
  const ancestors = [...new Set((input.framedBy ?? []).map((origin) => new URL(origin).origin))];
  return { 'connect-src': connect, 'frame-src': [embed], ...(ancestors.length > 0 ? { 'frame-ancestors': ancestors } : {}) };
}

/** `connect-src 'self' https://…; frame-src https://…`: the part of a policy header the elements need. */
export function formatCsp(sources: CspSources): string {
  return Object.entries(sources)
    .map(([directive, list]) => `${directive} ${(list as string[]).join(' ')}`)
    .join('; ');
}
