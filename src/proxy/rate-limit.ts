/** Fixed-window request counter per key, in memory (one process). */

export interface RateLimitOptions {
  windowMs: number;
  max: number;
  /** Most keys held at once; past it the oldest window is forgotten. Default 100 000. */
  maxKeys?: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the key's window resets (for Retry-After). */
  retryAfterSeconds: number;
}

const DEFAULT_MAX_KEYS = 100_000;

export class FixedWindowLimiter {
  readonly #windowMs: number;
  readonly #max: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  /** Kept in order of window start (a new window is re-inserted at the end), so expired ones are at the front. */
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(options: RateLimitOptions, now: () => number = Date.now) {
    this.#windowMs = options.windowMs;
    this.#max = options.max;
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.#now = now;
  }

  /** Number of keys currently held (for tests). */
  get size(): number {
    return this.#windows.size;
  }

  hit(key: string): RateLimitDecision {
    const now = this.#now();
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      this.#windows.delete(key);
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
      // Bounded memory under a flood of distinct keys: forget the oldest window (that key starts afresh).
      if (this.#windows.size > this.#maxKeys) this.#windows.delete(this.#windows.keys().next().value!);
    }
    window.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.#windowMs - now) / 1000));
    return { allowed: window.count <= this.#max, retryAfterSeconds };
  }

  /** Drops expired windows from the front only: amortized O(1) per hit, however many keys are live. */
  #sweep(now: number): void {
    for (const [key, window] of this.#windows) {
      if (now - window.start < this.#windowMs) break;
      this.#windows.delete(key);
    }
  }
}
