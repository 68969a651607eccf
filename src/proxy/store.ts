/**
 * The state replicas of the token proxy must share, behind one small interface: rate-limit counters and
 * the refresh in-flight/replay entries, each with a time to live. `MemoryStore` (the default) keeps them in
 * this process; `RedisStore` (`esign-elements/proxy/redis`) in Redis or Valkey, for several replicas.
 * Values are opaque strings; the proxy never puts a plaintext token in them (replay answers are sealed with
 * the cookie key). Runtime-free: no `node:` import.
 */

/** Thrown by a store that cannot answer (e.g. Redis unreachable): the proxy answers 503 with Retry-After. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** Seconds a client should wait before retrying. */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 1) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface ProxyStore {
  /**
   * Adds one to `key`'s counter, creating it with a time to live of `windowMs` (a fixed window); returns
   * the count after the increment and the milliseconds until the window ends.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  /** Sets `key` to `value` for `ttlMs` only if it is absent (an atomic claim); true when this call set it. */
  claim(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** The value of `key`, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value` for `ttlMs`, replacing any value. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Removes `key` (no error when absent). */
  delete(key: string): Promise<void>;
  /** Releases connections; the proxy never calls it (the owner of the store does). */
  close?(): Promise<void>;
}

interface Entry {
  value: string;
  expiresAt: number;
}

const DEFAULT_MAX_KEYS = 100_000;

/**
 * One process's store: a Map with expiry times, swept as it is used; at most `maxKeys` entries (past it
 * the oldest entry is dropped, so a flood of distinct keys cannot grow memory without bound).
 */
export class MemoryStore implements ProxyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #counters = new Map<string, { count: number; expiresAt: number }>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: { maxKeys?: number; now?: () => number } = {}) {
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = options.now ?? Date.now;
  }

  /** Keys held (counters and entries), for tests. */
  get size(): number {
    return this.#entries.size + this.#counters.size;
  }

  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const now = this.#now();
    // counters are kept in order of window start (a new window is re-inserted at the end): sweep from the front
    for (const [k, c] of this.#counters) {
      if (c.expiresAt > now) break;
      this.#counters.delete(k);
    }
    let counter = this.#counters.get(key);
    if (!counter || counter.expiresAt <= now) {
      this.#counters.delete(key);
      counter = { count: 0, expiresAt: now + windowMs };
      this.#counters.set(key, counter);
      if (this.#counters.size > this.#maxKeys) this.#counters.delete(this.#counters.keys().next().value!);
    }
    counter.count += 1;
    return Promise.resolve({ count: counter.count, resetMs: counter.expiresAt - now });
  }

  claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.#live(key) !== undefined) return Promise.resolve(false);
    this.#put(key, value, ttlMs);
    return Promise.resolve(true);
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.#live(key)?.value);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    this.#put(key, value, ttlMs);
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#entries.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#entries.clear();
    this.#counters.clear();
    return Promise.resolve();
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, value: string, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    if (this.#entries.size > this.#maxKeys) {
      const now = this.#now();
      for (const [k, e] of this.#entries) {
        if (e.expiresAt <= now) this.#entries.delete(k);
      }
      if (this.#entries.size > this.#maxKeys) this.#entries.delete(this.#entries.keys().next().value!);
    }
  }
}
