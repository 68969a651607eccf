import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Listens for an event on the element's tree root (the document, or the shadow root the element is in) while the
 * element is in the page and `when()` holds: the other elements' events bubble and are composed, so the root sees
 * them all. Call `listen()` again when what `when()` reads changes.
 */
export class RootListener implements ReactiveController {
  #root: Node | undefined;
  readonly #host: ReactiveControllerHost & Element;
  readonly #type: string;
  readonly #listener: (event: Event) => void;
  readonly #when: () => unknown;

  constructor(host: ReactiveControllerHost & Element, type: string, listener: (event: Event) => void, when: () => unknown = () => true) {
    (this.#host = host).addController(this);
    this.#type = type;
    this.#listener = listener;
    this.#when = when;
  }

  hostConnected(): void {
    this.listen();
  }

  hostDisconnected(): void {
    this.#root?.removeEventListener(this.#type, this.#listener);
    this.#root = undefined;
  }

  listen(): void {
    this.hostDisconnected();
    if (this.#host.isConnected && this.#when()) (this.#root = this.#host.getRootNode()).addEventListener(this.#type, this.#listener);
  }
}
