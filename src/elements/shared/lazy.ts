import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { partNotLoaded, type EsignError } from '@esign-elements/shared/errors';
import { emit } from './events.js';

export type LazyStatus = 'initial' | 'pending' | 'ready' | 'failed';

/**
 * An element's later part, loaded on intent (the shape of Lit's `Task`, for one `import()`): `load()` imports the module
 * once and makes what the element keeps of it (`value`); `status` is `initial`, `pending`, `ready` or `failed`. A
 * failed load keeps its `error` until a later load succeeds, is reported as `esign-error` on the element (unless the
 * element reports it within its own error), and is tried again by the next `load()`.
 */
export class LazyPart<M, T = M> {
  value: T | undefined;
  error: EsignError | undefined;
  readonly #host: ReactiveControllerHost & EventTarget;
  readonly #import: () => Promise<M>;
  readonly #make: (module: M) => T;
  readonly #report: boolean;
  #loading: Promise<T> | undefined;

  constructor(host: ReactiveControllerHost & EventTarget, load: () => Promise<M>, make = (module: M) => module as unknown as T, report = true) {
    (this.#host = host).addController(this as ReactiveController);
    this.#import = load;
    this.#make = make;
    this.#report = report;
  }

  get status(): LazyStatus {
    return this.value !== undefined ? 'ready' : this.#loading ? 'pending' : this.error ? 'failed' : 'initial';
  }

  load(): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    return (this.#loading ??= this.#import().then(
      (module) => {
        this.value = this.#make(module);
        this.error = undefined;
        this.#host.requestUpdate();
        return this.value;
      },
      (cause: unknown) => {
        this.#loading = undefined;
        this.error = partNotLoaded(cause);
        this.#host.requestUpdate();
        if (this.#report) emit(this.#host, 'esign-error', { error: this.error });
        throw this.error;
      },
    ));
  }
}
