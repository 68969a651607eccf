/**
 * <esign-connect>'s settings as the session reads them: which ones it takes from the element, which are required,
 * and how they become a session configuration (URLs resolved against the page, defaults filled in) or a refusal.
 */
import type { ReactiveControllerHost } from 'lit';
import { EsignError } from '@esign-elements/shared/errors';
import type { StorageKind } from '../../core/kv.js';
import type { ConnectMode, RefreshTokenHolder, SessionConfig } from '../../core/session/session-manager.js';

/** What the session reads on its element: the settings. The state it renders is the session's. */
export interface ConnectHost extends ReactiveControllerHost, HTMLElement {
  /** The settings of `<esign-connect>` of the same names (docs/elements.md); these three are required. */
  clientId: string;
  baseUrl: string;
  tokenEndpoint: string;
  revocationEndpoint?: string | undefined;
  loginEndpoint?: string | undefined;
  authorizationEndpoint?: string | undefined;
  issuer?: string | undefined;
  /** Default `proxy`. */
  refreshTokens?: RefreshTokenHolder | undefined;
  redirectUri?: string | undefined;
  /** Default `envelope:create envelope:read`. */
  scope?: string | undefined;
  spaceId?: string | undefined;
  loginHint?: string | undefined;
  /** Default `popup`. */
  mode?: ConnectMode | undefined;
  /** Default `indexeddb`. */
  storage?: StorageKind | undefined;
}

export const DEFAULT_SCOPE = 'envelope:create envelope:read';

/** The settings without which there is no session, and their attribute names. */
const REQUIRED = [
  ['clientId', 'client-id'],
  ['baseUrl', 'base-url'],
  ['tokenEndpoint', 'token-endpoint'],
] as const;

/** The settings read at one moment. */
export interface Settings {
  /** Equal for equal settings: a new key sets the session up again. */
  key: string;
  /** Complete and valid settings. */
  config?: SessionConfig;
  /** Why Connect refuses them: a missing or refused setting (or one the session manager refused). */
  refused?: EsignError;
  /** A refused setting, shown and reported as it is read (a missing one is only said when Connect is asked). */
  error?: EsignError;
}

/** The settings as they are now: complete (a config), missing one, or refused (an invalid_config error). */
export function readSettings(host: ConnectHost): Settings {
  const missing = REQUIRED.find(([property]) => !host[property]);
  if (missing) {
    const refused = new EsignError('invalid_config', `${missing[1]} is required.`);
    return { key: `missing ${missing[1]}`, refused };
  }
  try {
    const config = sessionConfig(host);
    return { key: JSON.stringify(config), config };
  } catch (error) {
    const refused = EsignError.from(error, 'invalid_config');
    return { key: `refused ${refused.message}`, refused, error: refused };
  }
}

/** The session configuration of the host's settings; throws `invalid_config` for a refused one. */
function sessionConfig(host: ConnectHost): SessionConfig {
  const resolve = (value: string, name: string): string => {
    if (!value) throw new EsignError('invalid_config', `${name} is required.`);
    try {
      return new URL(value, document.baseURI).href;
    } catch {
      throw new EsignError('invalid_config', `${name} is not a valid URL: ${value}`);
    }
  };
  const mode = host.mode ?? 'popup';
  if (mode !== 'popup' && mode !== 'redirect') {
    throw new EsignError('invalid_config', `mode must be "popup" or "redirect", not "${String(mode)}".`);
  }
  const here = new URL(location.href);
  here.search = '';
  here.hash = '';
  const config: SessionConfig = {
    clientId: host.clientId,
    baseUrl: resolve(host.baseUrl, 'base-url'),
    tokenEndpoint: resolve(host.tokenEndpoint, 'token-endpoint'),
    redirectUri: host.redirectUri ? resolve(host.redirectUri, 'redirect-uri') : here.href,
    scope: host.scope || DEFAULT_SCOPE,
    storage: host.storage ?? 'indexeddb',
    refreshTokens: host.refreshTokens ?? 'proxy',
  };
  if (host.revocationEndpoint) config.revocationEndpoint = resolve(host.revocationEndpoint, 'revocation-endpoint');
  if (host.loginEndpoint) config.loginEndpoint = resolve(host.loginEndpoint, 'login-endpoint');
  if (host.authorizationEndpoint) config.authorizationEndpoint = resolve(host.authorizationEndpoint, 'authorization-endpoint');
  // compared exactly, as the server states it (a trailing slash is part of an issuer)
  if (host.issuer) config.issuer = host.issuer;
  if (host.spaceId) config.spaceId = host.spaceId;
  if (host.loginHint) config.loginHint = host.loginHint;
  return config;
}
