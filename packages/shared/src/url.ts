/**
 * URL rules shared by the API client, the token proxy and the elements.
 * Plain module: no Node-only imports, runs in browsers and any Fetch runtime.
 */

import { EsignError } from './errors.js';
import { API_PREFIX } from './service-types.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for the loopback host names the design allows plain http on: localhost, 127.0.0.1, [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  // A trailing dot names the same host ("localhost." is localhost).
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return LOOPBACK_HOSTS.has(host);
}

export interface AllowedServiceUrlOptions {
  /** Accept `http:` on loopback hosts (local development against the emulator). Default true. */
  allowLoopbackHttp?: boolean;
}

/**
 * True when `url` may be used to talk to the service or be shown to the user: `https:`, or `http:` on a
 * loopback host when allowed. URLs carrying user:password are refused (they leak into logs and history).
 */
export function isAllowedServiceUrl(url: string | URL, options: AllowedServiceUrlOptions = {}): boolean {
  const allowLoopbackHttp = options.allowLoopbackHttp ?? true;
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '') return false;
  if (parsed.protocol === 'https:') return parsed.hostname !== '';
  if (parsed.protocol === 'http:') return allowLoopbackHttp && isLoopbackHost(parsed.hostname);
  return false;
}

/**
 * `baseUrl` + `/openapi/v1` + `path`. A base that already ends in `/openapi/v1` is not doubled, and a path
 * that already starts with it is not either. Refuses absolute or protocol-relative paths and `..` segments,
 * so a path can never move a Bearer token to another host or endpoint family.
 */
export function joinApiPath(baseUrl: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//') || path.includes('\\')) {
    throw new EsignError('invalid_argument', `API path must be relative to ${API_PREFIX}: ${JSON.stringify(path)}`);
  }
  const pathOnly = path.split(/[?#]/, 1)[0] ?? '';
  if (pathOnly.split('/').some((segment) => /^(%2e|\.){1,2}$/i.test(segment))) {
    throw new EsignError('invalid_argument', `API path must not contain dot segments: ${JSON.stringify(path)}`);
  }
  let base = baseUrl.replace(/\/+$/, '');
  if (base.endsWith(API_PREFIX)) base = base.slice(0, -API_PREFIX.length);
  let rest = path.startsWith('/') ? path : `/${path}`;
  if (rest === API_PREFIX || rest.startsWith(`${API_PREFIX}/`) || rest.startsWith(`${API_PREFIX}?`)) {
    rest = rest.slice(API_PREFIX.length);
  }
  return `${base}${API_PREFIX}${rest}`;
}
