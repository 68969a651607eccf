/**
 * The session record a window keeps (IndexedDB, or memory), read without the session manager: `<esign-connect>`
 * shows a returning user's "connected" state from it at first render, while the manager's code is still on its way.
 * The manager reads and writes the same record through these functions (one home for its key and its format).
 */
import { openStore, type KeyValueStore } from '../kv.js';
import type { SessionConfig, SessionInfo } from './types.js';
import type { RefreshTokenHolder } from './tokens.js';

/**
 * A session as this window knows it. In the default mode only the non-secret part is ever written to
 * storage (so a reload knows there is a session to resume); the access token lives in memory only.
 */
export interface StoredSession {
  v: 2;
  holder: RefreshTokenHolder;
  /** In memory only, unless the browser holds the tokens. */
  accessToken: string | undefined;
  /** Only when the browser holds the tokens. */
  refreshToken: string | undefined;
  scope: string;
  spaceId: string | undefined;
  spaceName: string | undefined;
  userName: string | undefined;
  userEmail: string | undefined;
  /** ms since epoch, computed from expires_in when the response arrived (0: no access token yet). */
  expiresAt: number;
  /** expires_in of the last token response, in seconds. */
  lifetime?: number;
  connectedAt: number;
  generation: number;
}

/** Sessions never mix across base URLs or client ids; a Designated Space Mode session is kept apart from the Open Mode one. */
export function sessionKeyOf(config: Pick<SessionConfig, 'baseUrl' | 'clientId' | 'spaceId'>): string {
  const base = `${new URL(config.baseUrl).href.replace(/\/+$/, '')}|${config.clientId}`;
  return config.spaceId ? `${base}|space:${config.spaceId}` : base;
}

/** Where the session of `key` is kept in the window's key-value store. */
export const sessionRecordKey = (key: string): string => `${key}|session`;

/** The record under `key` when it is a session of `holder`'s mode; undefined for none, or another mode's. */
export async function readSessionRecord(store: KeyValueStore, key: string, holder: RefreshTokenHolder): Promise<StoredSession | undefined> {
  const stored = await store.get<StoredSession>(sessionRecordKey(key));
  return stored?.v === 2 && stored.holder === holder ? stored : undefined;
}

/** The stored session as integrators may read it (never a token), without the manager; a read failure is no session. */
export async function peekSession(
  config: Pick<SessionConfig, 'baseUrl' | 'clientId' | 'spaceId' | 'storage' | 'refreshTokens'>,
): Promise<SessionInfo | undefined> {
  const holder = config.refreshTokens ?? 'proxy';
  const key = sessionKeyOf(config);
  const stored = await readSessionRecord(openStore(config.storage, key), key, holder).catch(() => undefined);
  // in the default mode the record carries no token and expiresAt 0 (the manager's #save): shown as it is
  return stored && sessionInfoOf(stored);
}

export function sessionInfoOf(session: StoredSession): SessionInfo {
  const info: SessionInfo = {
    scope: session.scope.split(/\s+/).filter(Boolean),
    spaceId: session.spaceId,
    refreshTokens: session.holder,
    expiresAt: new Date(session.expiresAt),
    connectedAt: new Date(session.connectedAt),
  };
  if (session.spaceName) info.spaceName = session.spaceName;
  if (session.userName) info.userName = session.userName;
  if (session.userEmail) info.userEmail = session.userEmail;
  return info;
}
