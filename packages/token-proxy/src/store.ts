/**
 * The state replicas of the token proxy must share, behind one small interface: rate-limit counters and
 * the refresh in-flight/replay entries, each with a time to live. `MemoryStore` (the default) keeps them in
 * this process; `RedisStore` (`@esign-elements/token-proxy/redis`) in Redis or Valkey, for several replicas.
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

/**
 * Keys of revoked-session marks (Disconnect, or a sign-in that replaced a session): long-lived, and what ends every
 * copy of a disconnected cookie. A store must never drop one to make room for other entries (see MemoryStore).
 */
export const REVOKED_MARK_PREFIX = 'rv:';

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
  /**
   * Optional, for a remote store (one round trip instead of up to three): counts `hit` when given and,
   * unless that puts the counter over `hit.max` (then nothing else happens), claims `key` as `claim` does
   * or, when it is already set, returns its value and notes that the caller will wait for it to settle.
   * Without it the proxy calls `hit`, `claim` and `get` (see `claimOrGet` below).
   */
  claimOrGet?(key: string, value: string, ttlMs: number, hit?: RateHit, mark?: Mark): Promise<ClaimResult>;
  /**
   * Optional: replaces `key` with `value` for `ttlMs` (or removes it when `value` is undefined), removes the key
   * `dropMark` when given, and wakes the callers waiting in `settled` on any replica. Without it the proxy calls
   * `set` or `delete` (and `delete` for the mark).
   */
  settle?(key: string, value: string | undefined, ttlMs: number, dropMark?: string): Promise<void>;
  /**
   * Optional: sets `key`'s time to live to `ttlMs` if its value is still `value` (a lease kept alive); false when
   * it is not (gone, or another's). With it, an in-flight refresh's claim is a short lease that its replica renews
   * while it waits for the service, so a replica that died mid-refresh is noticed within seconds; without it the
   * claim lives as long as the longest call.
   */
  renew?(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional: resolves when `key` was settled (on any replica sharing the store) after this caller's
   * failed `claimOrGet`, or after `timeoutMs` at the latest (the caller then looks again). Without it the
   * proxy looks again every 20 ms.
   */
  settled?(key: string, timeoutMs: number): Promise<void>;
  /**
   * Optional: resolves when the store answers, rejects (or throws `StoreUnavailableError`) when it cannot: the
   * proxy's `GET {basePath}/ready`. Without it `/ready` reads a key (`get`).
   */
  ping?(): Promise<void>;
  /** Releases connections; the proxy never calls it (the owner of the store does). */
  close?(): Promise<void>;
}

/** A rate-limit hit made in the same step as a claim: the counter `key`, its window, the most it may reach. */
export interface RateHit {
  key: string;
  windowMs: number;
  max: number;
}

/**
 * Set in the same step as a successful claim: `key` becomes `value` for `ttlMs`, and the value it had is returned
 * (`ClaimResult.mark`). The refresh's "started, outcome not known yet" mark: it stays when its replica died or the
 * call's outcome is unknown, so the retry knows.
 */
export interface Mark {
  key: string;
  value: string;
  ttlMs: number;
}

export interface ClaimResult {
  /** The counter after the hit, when one was asked for. Over its max: nothing was claimed or read. */
  hit?: { count: number; resetMs: number };
  /** True when this call set the key. */
  claimed: boolean;
  /** Not claimed (and not over the limit): the value found, or undefined when it went away meanwhile. */
  value?: string;
  /** Claimed with a `mark`: the value the mark's key had before (undefined when absent). */
  mark?: string;
}

/** `store.claimOrGet` when the store has it, else the same with `hit`, `claim` and `get` (separate steps). */
export async function claimOrGet(store: ProxyStore, key: string, value: string, ttlMs: number, hit?: RateHit, mark?: Mark): Promise<ClaimResult> {
  if (store.claimOrGet) return store.claimOrGet(key, value, ttlMs, hit, mark);
  let counted: ClaimResult['hit'];
  if (hit) {
    counted = await store.hit(hit.key, hit.windowMs);
    if (counted.count > hit.max) return { hit: counted, claimed: false };
  }
  const result: ClaimResult = { claimed: await store.claim(key, value, ttlMs) };
  if (counted) result.hit = counted;
  if (!result.claimed) {
    const found = await store.get(key);
    if (found !== undefined) result.value = found;
  } else if (mark) {
    const prior = await store.get(mark.key);
    if (prior !== undefined) result.mark = prior;
    await store.set(mark.key, mark.value, mark.ttlMs);
  }
  return result;
}

/** `store.settle` when the store has it, else `set` or `delete` (and `delete` for the mark). */
export async function settle(store: ProxyStore, key: string, value: string | undefined, ttlMs: number, dropMark?: string): Promise<void> {
  if (store.settle) return store.settle(key, value, ttlMs, dropMark);
  await (value === undefined ? store.delete(key) : store.set(key, value, ttlMs));
  if (dropMark !== undefined) await store.delete(dropMark);
}

interface Entry {
  value: string;
  expiresAt: number;
}

const DEFAULT_MAX_KEYS = 100_000;

/**
 * One process's store: Maps with expiry times, swept as they are used. Three of them, each of at most its own cap,
 * so that a flood of one kind cannot push out another: rate-limit counters and short-lived entries (refresh claims
 * and replay entries, burnt sign-in states) at most `maxKeys` each (100 000), past which the oldest goes; and
 * revoked-session marks (keys `rv:`) at most `maxMarks` (100 000), past which the oldest mark goes (only another
 * Disconnect, never a flood of short-lived entries, can push one out).
 */
export class MemoryStore implements ProxyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #marks = new Map<string, Entry>();
  readonly #counters = new Map<string, { count: number; expiresAt: number }>();
  readonly #maxKeys: number;
  readonly #maxMarks: number;
  readonly #now: () => number;

  constructor(options: { maxKeys?: number; maxMarks?: number; now?: () => number } = {}) {
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#maxMarks = options.maxMarks ?? DEFAULT_MAX_KEYS;
    this.#now = options.now ?? Date.now;
  }

  /** Keys held (counters, entries and marks), for tests. */
  get size(): number {
    return this.#entries.size + this.#marks.size + this.#counters.size;
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
    this.#map(key).delete(key);
    return Promise.resolve();
  }

  renew(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.#live(key);
    if (entry?.value !== value) return Promise.resolve(false);
    entry.expiresAt = this.#now() + ttlMs;
    return Promise.resolve(true);
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#entries.clear();
    this.#marks.clear();
    this.#counters.clear();
    return Promise.resolve();
  }

  #map(key: string): Map<string, Entry> {
    return key.startsWith(REVOKED_MARK_PREFIX) ? this.#marks : this.#entries;
  }

  #live(key: string): Entry | undefined {
    const entries = this.#map(key);
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, value: string, ttlMs: number): void {
    const entries = this.#map(key);
    const max = entries === this.#marks ? this.#maxMarks : this.#maxKeys;
    entries.delete(key);
    entries.set(key, { value, expiresAt: this.#now() + ttlMs });
    if (entries.size > max) {
      const now = this.#now();
      for (const [k, e] of entries) {
        if (e.expiresAt <= now) entries.delete(k);
      }
      if (entries.size > max) entries.delete(entries.keys().next().value!);
    }
  }
}
