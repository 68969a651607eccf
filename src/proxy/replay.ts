/**
 * Refresh-token replay: the proxy's answer to a refresh-token grant, remembered for a short time.
 *
 * Refresh tokens rotate, and the service treats a rotated one sent again as theft and revokes the whole
 * grant. When the browser loses the answer that carried the new tokens (a dropped connection, a closed
 * tab, a timeout on a slow network) its next refresh sends the old token again and the session ends.
 * The proxy did receive that answer: it keeps it for `windowMs`, keyed by a SHA-256 of the refresh token
 * (and scope), and hands the same tokens to the same request instead of calling the service again.
 * Concurrent requests with one refresh token share one call. Only successful answers are kept.
 *
 * The cost: for `windowMs` after a rotation, the old refresh token yields the tokens it was rotated into
 * instead of revoking the grant. The answer holds tokens, so entries are few (bounded) and short-lived.
 * Runtime-free (WebCrypto only), like the rest of the proxy's rules.
 */
import type { ProxyAnswer } from './core.js';

interface Entry {
  /** Infinity while the call is on its way. */
  expiresAt: number;
  answer: Promise<ProxyAnswer>;
}

export class RefreshReplay {
  readonly #windowMs: number;
  readonly #maxEntries: number;
  /** In insertion order, which is expiry order for settled entries (one window for all). */
  readonly #entries = new Map<string, Entry>();

  constructor(windowMs: number, maxEntries = 10_000) {
    this.#windowMs = windowMs;
    this.#maxEntries = maxEntries;
  }

  /**
   * The answer for this refresh token: a remembered or pending one (`replayed: true`), or the result of
   * `call`, remembered when it is a success.
   */
  async run(refreshToken: string, scope: string | undefined, call: () => Promise<ProxyAnswer>): Promise<{ answer: ProxyAnswer; replayed: boolean }> {
    const key = await digest(`${scope ?? ''}\u0000${refreshToken}`);
    this.#sweep();
    const known = this.#entries.get(key);
    if (known) return { answer: copy(await known.answer), replayed: true };
    const entry: Entry = { expiresAt: Number.POSITIVE_INFINITY, answer: call() };
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    let answer: ProxyAnswer;
    try {
      answer = await entry.answer;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      throw error;
    }
    if (this.#entries.get(key) === entry) {
      if (answer.status >= 200 && answer.status < 300) {
        // re-inserted so the map stays in expiry order
        this.#entries.delete(key);
        entry.expiresAt = Date.now() + this.#windowMs;
        this.#entries.set(key, entry);
      } else {
        this.#entries.delete(key);
      }
    }
    return { answer: copy(answer), replayed: false };
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt === Number.POSITIVE_INFINITY) continue;
      if (entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
  }
}

/** Each caller gets its own answer object: the headers of every answer are completed in place. */
function copy(answer: ProxyAnswer): ProxyAnswer {
  return { status: answer.status, headers: { ...answer.headers }, body: answer.body };
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
