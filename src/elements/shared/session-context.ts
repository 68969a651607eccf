/**
 * How elements find their session: nested inside an <esign-connect> (context) or `connect="ID"`.
 *
 * The context is the community context protocol (https://github.com/webcomponents-cg/community-protocols), with the
 * event and key of @lit/context. Its ContextProvider and ContextConsumer are not used: they keep subscriptions for a
 * value that changes (and a consumer registry to hand over to a nearer provider), and ours never changes, it is the
 * <esign-connect> element itself, whose own events say when its session changes. Answering the request is the
 * whole of it here.
 */
import { ContextEvent, createContext, type ContextType } from '@lit/context';
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

type SessionRequest = ContextEvent<typeof sessionContext>;

/** A subscriber is never called again (the value never changes), so letting go of it has nothing to do. */
const unsubscribe = (): void => undefined;

/** Makes `provider` answer the session requests of the elements inside it (not its own), as a context provider. */
export function answerSessionRequests(provider: HTMLElement & SessionProvider): void {
  provider.addEventListener('context-request', (event) => {
    const request = event as SessionRequest;
    if (request.context !== sessionContext) return;
    // a request of the provider itself goes on to the providers above it
    if ((request.contextTarget ?? request.composedPath()[0]) === provider) return;
    request.stopPropagation();
    request.callback(provider, request.subscribe ? unsubscribe : undefined);
  });
}

/** Asks the nearest provider around `host` for the session; `callback` hears the answer, if any, at once. */
export function requestSession(host: HTMLElement, callback: (provider: ContextType<typeof sessionContext>) => void): void {
  host.dispatchEvent(new ContextEvent(sessionContext, host, callback));
}
