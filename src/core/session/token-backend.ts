/**
 * The token backend of a session's mode, from its settings alone: the token proxy's cookie session (default) or the
 * browser-held tokens (opt-in), each loaded only when chosen. The session manager refreshes and revokes with it; a
 * sign-in part redeems its answer with it.
 */
import { defaultRevocationEndpoint } from './config.js';
import type { TokenBackend } from './tokens.js';
import type { SessionConfig } from './types.js';

export async function loadTokenBackend(config: Readonly<SessionConfig>): Promise<TokenBackend> {
  const revocationEndpoint = config.revocationEndpoint ?? defaultRevocationEndpoint(config.tokenEndpoint);
  if ((config.refreshTokens ?? 'proxy') === 'proxy') {
    const { proxySlot, ProxyTokens } = await import('./proxy-tokens.js');
    return new ProxyTokens({
      clientId: config.clientId,
      tokenEndpoint: config.tokenEndpoint,
      revocationEndpoint,
      slot: proxySlot(config.spaceId),
      spaceId: config.spaceId,
    });
  }
  const { BrowserTokens } = await import('./browser-tokens.js');
  return new BrowserTokens({ clientId: config.clientId, tokenEndpoint: config.tokenEndpoint, revocationEndpoint });
}
