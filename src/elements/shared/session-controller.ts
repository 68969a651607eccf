/**
 * Finds the SessionProvider of an element (the `connect="ID"` attribute first, else the nearest
 * <esign-connect> ancestor through context) and re-renders the host when the session changes.
 */
import { ContextConsumer } from '@lit/context';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { sessionContext, type SessionProvider } from './session-context.js';

/** An element that uses a session: `connect` names an <esign-connect> by id; none, the nearest around it. */
export type SessionUserHost = ReactiveControllerHost & HTMLElement & { connect?: string | null | undefined };
type Host = SessionUserHost;

const SESSION_EVENTS = ['esign-connected', 'esign-disconnected', 'esign-session-refreshed'] as const;

export class SessionController implements ReactiveController {
  #host: Host;
  /**
   * The nearest provider, as the context's callback last gave it while the host is in the page: this controller's
   * own record (it never reads or writes the consumer's `value`, which outlives a move out of the page).
   */
  #fromContext: SessionProvider | undefined;
  #byId: SessionProvider | undefined;
  #watched: SessionProvider | undefined;
  #observer: MutationObserver | undefined;
  readonly #onChange = (): void => this.#host.requestUpdate();
  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
    // asks the nearest provider each time the host enters the page, and hears a nearer one that appears later
    new ContextConsumer(host, {
      context: sessionContext,
      subscribe: true,
      callback: (provider) => {
        this.#fromContext = provider;
        this.#sync();
      },
    });
  }

  /** The session provider in use, if any. */
  get provider(): SessionProvider | undefined {
    return this.#byId ?? (this.#host.connect ? undefined : this.#fromContext);
  }

  hostConnected(): void {
    // the consumer asks again as the element enters the page (it may have moved under another <esign-connect>)
    this.#resolveById();
    this.#sync();
  }

  hostUpdate(): void {
    // the `connect` attribute may have changed
    this.#resolveById();
  }

  hostDisconnected(): void {
    // out of the page, no session: where it comes back, the nearest provider there answers (or none does)
    this.#fromContext = undefined;
    this.#observer?.disconnect();
    this.#observer = undefined;
    this.#watch(undefined);
  }

  #resolveById(): void {
    const id = this.#host.connect;
    if (!id) {
      this.#observer?.disconnect();
      this.#observer = undefined;
      // only a change re-renders: hostUpdate runs on every update
      if (this.#byId) {
        this.#byId = undefined;
        this.#sync();
      }
      return;
    }
    const root = this.#host.getRootNode() as Document | ShadowRoot;
    const found = root.getElementById?.(id) ?? document.getElementById(id);
    const provider = found && isProvider(found) ? found : undefined;
    if (!provider) {
      // the named element may be added, upgraded or given its id later
      if (found && found.localName === 'esign-connect') void customElements.whenDefined('esign-connect').then(() => this.#host.requestUpdate());
      this.#observer ??= new MutationObserver(() => this.#host.requestUpdate());
      this.#observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['id'] });
    } else {
      this.#observer?.disconnect();
      this.#observer = undefined;
    }
    if (provider !== this.#byId) {
      this.#byId = provider;
      this.#sync();
    }
  }

  #sync(): void {
    this.#watch(this.provider);
    this.#host.requestUpdate();
  }

  #watch(provider: SessionProvider | undefined): void {
    if (provider === this.#watched) return;
    for (const name of SESSION_EVENTS) this.#watched?.removeEventListener(name, this.#onChange);
    this.#watched = provider;
    for (const name of SESSION_EVENTS) provider?.addEventListener(name, this.#onChange);
  }
}

function isProvider(element: Element): element is Element & SessionProvider {
  return typeof (element as Partial<SessionProvider>).getAccessToken === 'function' && 'baseUrl' in element;
}
