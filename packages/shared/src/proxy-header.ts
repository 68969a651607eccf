/**
 * The request header the token proxy requires on its token calls, and that the elements send: a cross-site HTML
 * form cannot set it, and a cross-origin page must pass a CORS preflight to. One definition for both sides.
 */

/** The header's name. */
export const PROXY_HEADER = 'X-Esign-Proxy';

/** The header's value. */
export const PROXY_HEADER_VALUE = '1';
