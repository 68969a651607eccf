/**
 * Whether the browser says it is online, for an element while it is in the page: the one place the elements
 * listen to `online` and `offline`. The host re-renders on a change, and `onChange` hears it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

const isOnline = (): boolean => typeof navigator === 'undefined' || navigator.onLine !== false;

export class OnlineController implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #onChange: ((online: boolean) => void) | undefined;
  #online = isOnline();

  constructor(host: ReactiveControllerHost, onChange?: (online: boolean) => void) {
    this.#host = host;
    this.#onChange = onChange;
    host.addController(this);
  }

  /** True unless the browser says it has no network. */
  get online(): boolean {
    return this.#online;
  }

  hostConnected(): void {
    window.addEventListener('online', this.#update);
    window.addEventListener('offline', this.#update);
    // it may have changed while the element was out of the page
    this.#update();
  }

  hostDisconnected(): void {
    window.removeEventListener('online', this.#update);
    window.removeEventListener('offline', this.#update);
  }

  readonly #update = (): void => {
    const online = isOnline();
    if (online === this.#online) return;
    this.#online = online;
    this.#host.requestUpdate();
    this.#onChange?.(online);
  };
}
