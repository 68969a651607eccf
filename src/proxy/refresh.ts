/**
 * One refresh per refresh token, across requests and replicas, and the lost-answer replay.
 *
 * Refresh tokens rotate, and the service treats a rotated one presented again as theft and revokes the
 * grant. So: requests of one session that present the same refresh token at the same time share one call to
 * the service (in this process through a promise, across replicas through a claim in the store that the
 * others wait on), and for `replayMs` after a success the same session presenting the old token again (its
 * answer was lost) gets the same new tokens. The entry is keyed by a SHA-256 of the refresh token and bound
 * to its owner (the session id; in browser-held mode the client address and Origin): any other presentation
 * of an old token, and any after the window, goes to the service, which sees reuse.
 *
 * Store entries: `p:<owner>` while a call is in flight (its TTL bounds a replica that died mid-call),
 * `d:<owner>:<sealed>` after a success, the tokens sealed with the cookie key (never plaintext in a store).
 */
import type { Sealer } from './seal.js';
import { MemoryStore, type ProxyStore } from './store.js';
import { unavailable, type TokenResult } from './upstream.js';

export interface RefreshCoordinatorOptions {
  store: ProxyStore;
  /** Seals replay entries for a shared store (the cookie keys) and hashes refresh tokens. */
  sealer: Sealer;
  replayMs: number;
  /** The longest an upstream call can take (the proxy's timeoutMs). */
  callMs: number;
  /** Store key prefix, e.g. 'rf:'. */
  prefix?: string;
  /** How often a waiting replica looks at the claim. Default 20 ms. */
  pollMs?: number;
}

export interface RefreshRun {
  result: TokenResult;
  /** Answered from another request's call (shared in flight, or replayed), not a call of its own. */
  replayed: boolean;
}

export class RefreshCoordinator {
  readonly #o: Required<RefreshCoordinatorOptions>;
  readonly #local = new Map<string, { owner: string; promise: Promise<RefreshRun> }>();
  /** The store is this process's memory: replay entries need no sealing. */
  readonly #local_: boolean;

  constructor(options: RefreshCoordinatorOptions) {
    this.#o = { prefix: 'rf:', pollMs: 20, ...options };
    this.#local_ = options.store instanceof MemoryStore;
  }

  async run(refreshToken: string, scope: string | undefined, owner: string, call: () => Promise<TokenResult>): Promise<RefreshRun> {
    const key = this.#o.prefix + (await this.#o.sealer.sha256url(`${scope ?? ''}\u0000${refreshToken}`));
    // a session id is random and says nothing: kept as it is; an address + Origin (browser-held) is hashed
    const ownerId = owner.startsWith('session:') ? owner : `h:${(await this.#o.sealer.sha256url(owner)).slice(0, 22)}`;
    const local = this.#local.get(key);
    if (local) {
      if (local.owner !== ownerId) return { result: await call(), replayed: false };
      const shared = await local.promise;
      return { result: shared.result, replayed: true };
    }
    const promise = this.#coordinate(key, ownerId, call);
    this.#local.set(key, { owner: ownerId, promise });
    try {
      return await promise;
    } finally {
      if (this.#local.get(key)?.promise === promise) this.#local.delete(key);
    }
  }

  async #coordinate(key: string, owner: string, call: () => Promise<TokenResult>): Promise<RefreshRun> {
    const { store, replayMs, callMs, pollMs } = this.#o;
    // a claim outlives the longest call by a margin; a replica that died mid-call frees it at that point
    const claimMs = callMs + 1_000;
    const deadline = Date.now() + claimMs + 1_000;
    for (;;) {
      if (await store.claim(key, `p:${owner}`, claimMs)) {
        let result: TokenResult;
        try {
          result = await call();
        } catch (error) {
          await store.delete(key).catch(() => undefined);
          throw error;
        }
        try {
          if (result.ok && replayMs > 0) {
            // sealed with the cookie key for a shared store; one process's memory needs no sealing
            const tokens = JSON.stringify(result.tokens);
            await store.set(key, `d:${owner}:${this.#local_ ? `m${tokens}` : `s${await this.#o.sealer.seal(tokens, key)}`}`, replayMs);
          } else {
            await store.delete(key);
          }
        } catch {
          // the answer is still this request's; only the replay for a later one is lost
        }
        return { result, replayed: false };
      }
      const value = await store.get(key);
      if (value === undefined) continue;
      const state = value.slice(0, 2);
      const entryOwner = value.slice(2, 2 + owner.length);
      if (entryOwner !== owner || (value.length > 2 + owner.length && value[2 + owner.length] !== ':')) {
        // another session presents this token: the service decides (reuse)
        return { result: await call(), replayed: false };
      }
      if (state === 'd:') {
        const stored = value.slice(`d:${owner}:`.length);
        const text = stored.startsWith('m') ? stored.slice(1) : await this.#o.sealer.open(stored.slice(1), key);
        if (text !== undefined) return { result: { ok: true, tokens: JSON.parse(text) as Record<string, unknown> }, replayed: true };
        return { result: await call(), replayed: false };
      }
      if (Date.now() > deadline) {
        return { result: { ok: false, answer: unavailable(504, 'Another replica is still refreshing this session; retry.', '1') }, replayed: false };
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}
