/**
 * Whether a page was loaded back from a sign-in, and how: the token proxy's outcome (`esign_login` with
 * `esign_outcome`, default mode) or an authorization response (`state` with `code` or `error`, browser-held mode).
 * `<esign-connect>` asks at its first render (to load the login flow on such a page); the login flow reads the answer.
 */
export function callbackKind(query: URLSearchParams): 'proxy' | 'authorization' | undefined {
  if (query.has('esign_login') && query.has('esign_outcome')) return 'proxy';
  if (query.has('state') && (query.has('code') || query.has('error'))) return 'authorization';
  return undefined;
}
