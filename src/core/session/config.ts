/** The session's settings: their checks, and the token proxy's routes beside its token route. */
import { EsignError } from '@esign-elements/shared/errors';
import { API_PREFIX } from '@esign-elements/shared/service-types';
import { isLoopbackHost } from '@esign-elements/shared/url';
import type { SessionConfig } from './types.js';

/** Where a sign-in starts in the browser-held mode: the service's authorization page (or the configured one). */
export function authorizationEndpointOf(config: Readonly<SessionConfig>): string {
  return config.authorizationEndpoint ?? `${config.baseUrl.replace(/\/+$/, '')}${API_PREFIX}/oauth/auth`;
}

/** Where a sign-in starts in the default mode: the token proxy's login route. */
export function loginEndpointOf(config: Readonly<SessionConfig>): string {
  return config.loginEndpoint ?? siblingRoute(config.tokenEndpoint, 'login');
}

/** The issuer an `iss` in an authorization answer must name (RFC 9207). */
export function issuerOf(config: Readonly<SessionConfig>): string {
  return config.issuer ?? config.baseUrl.replace(/\/+$/, '');
}

export function defaultRevocationEndpoint(tokenEndpoint: string): string {
  return siblingRoute(tokenEndpoint, 'revoke');
}

/** A route of the token proxy beside its token route (`…/token` -> `…/login`). */
export function siblingRoute(tokenEndpoint: string, route: string): string {
  const url = new URL(tokenEndpoint);
  url.pathname = url.pathname.replace(/[^/]*$/, route);
  url.search = '';
  return url.href;
}

/** Schemes a redirect URI may never use: they run script, embed data or name local files. */
const FORBIDDEN_REDIRECT_SCHEMES = new Set(['javascript:', 'data:', 'blob:', 'file:', 'vbscript:', 'about:', 'filesystem:']);

/** Rejects settings that would make the flow insecure or impossible, with a clear reason. */
export function validateConfig(config: SessionConfig): void {
  if (!config.clientId) throw new EsignError('invalid_config', 'client-id is required.');
  const urls: Array<[string, string | undefined]> = [
    ['base-url', config.baseUrl],
    ['token-endpoint', config.tokenEndpoint],
    ['redirect-uri', config.redirectUri],
  ];
  if (config.revocationEndpoint !== undefined) urls.push(['revocation-endpoint', config.revocationEndpoint]);
  if (config.loginEndpoint !== undefined) urls.push(['login-endpoint', config.loginEndpoint]);
  if (config.authorizationEndpoint !== undefined) urls.push(['authorization-endpoint', config.authorizationEndpoint]);
  if (config.issuer !== undefined) urls.push(['issuer', config.issuer]);
  for (const [name, value] of urls) {
    if (!value) throw new EsignError('invalid_config', `${name} is required.`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new EsignError('invalid_config', `${name} is not a valid URL: ${value}`);
    }
    if (url.username || url.password) {
      // never quote the URL: it holds a password
      throw new EsignError('invalid_config', `${name} must not carry credentials (user:password@); give the proxy its secret on the server.`);
    }
    if (name === 'redirect-uri' && FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol)) {
      throw new EsignError('invalid_config', `redirect-uri must not use the ${url.protocol} scheme: ${value}`);
    }
    const custom = name === 'redirect-uri' && !/^https?:$/.test(url.protocol);
    if (url.protocol !== 'https:' && !custom && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
      throw new EsignError('invalid_config', `${name} must use https (plain http is accepted only for localhost development): ${value}`);
    }
  }
  if (config.storage !== 'indexeddb' && config.storage !== 'memory') {
    throw new EsignError('invalid_config', `storage must be "indexeddb" or "memory", not "${String(config.storage)}".`);
  }
  if (config.refreshTokens !== undefined && config.refreshTokens !== 'proxy' && config.refreshTokens !== 'browser') {
    throw new EsignError('invalid_config', `refresh-tokens must be "proxy" or "browser", not "${String(config.refreshTokens)}".`);
  }
  if (!config.scope.trim()) throw new EsignError('invalid_config', 'scope must name at least one scope.');
}
