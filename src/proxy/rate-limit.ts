/** Fixed-window request counter per key, in memory (one process). */

export interface RateLimitOptions {
  windowMs: number;
  max: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the key's window resets (for Retry-After). */
  retryAfterSeconds: number;
}

export class FixedWindowLimiter {
  readonly #windowMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastSweep = 0;

  constructor(options: RateLimitOptions, now: () => number = Date.now) {
    this.#windowMs = options.windowMs;
    this.#max = options.max;
    this.#now = now;
  }

  hit(key: string): RateLimitDecision {
    const now = this.#now();
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.#windowMs - now) / 1000));
    return { allowed: window.count <= this.#max, retryAfterSeconds };
  }

  /** Drops expired windows now and then so spoofed keys cannot grow the map without bound. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#windowMs && this.#windows.size < 10_000) return;
    this.#lastSweep = now;
    for (const [key, window] of this.#windows) {
      if (now - window.start >= this.#windowMs) this.#windows.delete(key);
    }
  }
}
