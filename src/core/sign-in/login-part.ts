/**
 * The sign-in part of a session's mode, made from its settings: the token proxy's (default) or the browser-held
 * one's, each loaded only when chosen, once per session manager. The flow (login-flow.ts) drives it and hands the
 * tokens it returns to the manager.
 */
import { popupClosed } from '@esign-elements/shared/errors';
import type { SessionManager } from '../session/session-manager.js';
import type { TokenSet } from '../session/tokens.js';
import type { LoginPart } from '../session/types.js';

const parts = new WeakMap<SessionManager, Promise<LoginPart>>();

export function loginPartOf(manager: SessionManager): Promise<LoginPart> {
  let part = parts.get(manager);
  if (!part) {
    const { config, key } = manager;
    part =
      (config.refreshTokens ?? 'proxy') === 'proxy'
        ? import('./proxy-login.js').then(({ ProxyLogin }) => new ProxyLogin(config, key))
        : import('./login.js').then(({ LoginAttempts }) => new LoginAttempts(config, key));
    // a failed load (e.g. offline while fetching the chunk) may be tried again
    part.catch(() => parts.delete(manager));
    parts.set(manager, part);
  }
  return part;
}

/** The popup closed with nothing heard: the mode's last look (the default mode asks the proxy), else `popup_closed`. */
export async function lastLook(part: LoginPart, state: string): Promise<TokenSet> {
  if (part.afterClose) return part.afterClose(state);
  await part.abandon(state);
  throw popupClosed();
}
