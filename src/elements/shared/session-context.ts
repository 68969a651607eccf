/**
 * How elements find their session: nested inside an <esign-connect> (context) or `connect="ID"`.
 *
 * The context is @lit/context's (the community context protocol, https://github.com/webcomponents-cg/community-protocols):
 * <esign-connect> provides itself with a `ContextProvider`, and `SessionController` asks with a `ContextConsumer`.
 * The value never changes, it is the <esign-connect> element itself, whose own events say when its session changes.
 */
import { createContext } from '@lit/context';
import type { SessionInfo } from '../../core/session/session-manager.js';
import type { TokenSource } from '../../core/service/service-client.js';

/**
 * What an <esign-connect> offers the elements that use it. It is an EventTarget that fires
 * `esign-connected`, `esign-disconnected` and `esign-session-refreshed`.
 */
export interface SessionProvider extends EventTarget, TokenSource {
  /** The service base URL of this session. */
  readonly baseUrl: string;
  /** The current session, or undefined when not connected. */
  readonly session: SessionInfo | undefined;
  /** The member user id sent as X-Operator-User-Id, when configured. */
  readonly operatorUserId: string | undefined;
}

/**
 * A string key, not a Symbol: an element from a second copy of the library on the page (the CDN build beside the npm
 * package, or two versions) still finds the <esign-connect> of the first.
 */
export const sessionContext = createContext<SessionProvider | undefined>('esign-session');
