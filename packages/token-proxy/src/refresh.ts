/**
 * One refresh per refresh token, across requests and replicas, and the lost-answer replay.
 *
 * Refresh tokens rotate, and the service treats a rotated one presented again as theft and revokes the
 * grant. So: requests of one session that present the same refresh token at the same time share one call to
 * the service (in this process through a promise, across replicas through a claim in the store that the
 * others wait on), and for `replayMs` after a success the retry of the same request (its answer was lost) gets
 * the same new tokens. The entry is keyed by the refresh token's id (a session's: the random `rk` its cookie holds
 * beside the refresh token, new with each one; in browser-held mode a SHA-256 of the token) and bound to its owner
 * (the session id; in browser-held mode the client address and Origin) and, for a session, to the request's retry id
 * (a random id the page keeps in memory for the retries of one refresh): only that retry gets the new refresh token
 * (the new cookie). Any other request of the session presenting the old token within the window (a page that lost the race,
 * through any replica) gets the new access token only (`latecomer`: no cookie, so no copy of an old cookie ever gets
 * the rotated refresh token) and nothing goes to the service: one refresh per session for any number of pages.
 * After the window an old token goes to the service, which sees reuse and ends the grant.
 *
 * Store entries: `p:<owner>:<nonce>` while a call is in flight, `d:<owner>:e<sealed>` after a success: the retry tag
 * and the tokens sealed together with the cookie key (`d:<owner>:m<plain>` only in this process's memory; an unsealed
 * entry read from a shared store is ignored, so a store writer cannot inject tokens).
 *
 * A replica that dies mid-call (SIGKILL, OOM, a lost node) is noticed in seconds: on a shared store that can `renew`, the
 * in-flight claim is a lease of `leaseMs` (2 s) that its replica renews while it waits for the service; when it
 * lapses, a waiting request (the page's retry through another replica) claims the token and calls the service
 * itself. Beside the claim, the same step sets a mark `<key>:i` ("started, outcome unknown") that only a settled
 * outcome removes: it stays when the replica died, or when the call's outcome is unknown (no answer in time, the
 * connection lost). A request that claims and finds the mark knows its refresh token may have been rotated already:
 * a service with a reuse grace honours it once more (the session goes on); one without answers `invalid_grant`,
 * which the page then gets as `refresh_interrupted` ("sign in again"), not as the service's bare refusal.
 *
 * Round trips to a shared store per refresh: one before the call (the caller's rate-limit hit and the claim,
 * or the value another request left, in one `claimOrGet`), and one after it that the answer does not wait
 * for (`settle`: the replay entry, or the claim removed). Until the settle lands the claim is still there,
 * so a request presenting the same token meanwhile waits for it like any other waiter: nothing is lost by
 * answering first. Waiters wake on the store's `settled` notification (Redis: pub/sub), else look again
 * every `pollMs`.
 */
import type { Sealer } from './seal.js';
import { claimOrGet, MemoryStore, settle, type ProxyStore, type RateHit } from './store.js';
import { unavailable, type Answer, type TokenResult } from './upstream-answer.js';

export interface RefreshCoordinatorOptions {
  store: ProxyStore;
  /** Seals replay entries for a shared store (the cookie keys) and hashes a browser-held owner. */
  sealer: Sealer;
  replayMs: number;
  /** The longest an upstream call can take (the proxy's timeoutMs). */
  callMs: number;
  /** Store key prefix, e.g. 'rf:'. */
  prefix?: string;
  /** How often a waiting replica looks at the claim when the store cannot notify (`settled`). Default 20 ms. */
  pollMs?: number;
  /** How often it looks anyway when the store notifies (a notification lost in a reconnect). Default 250 ms. */
  notifiedPollMs?: number;
  /** Given each store write the answer does not wait for (a shutdown waits for them). */
  background?: (write: Promise<unknown>) => void;
  /** The in-flight claim's lease on a store that can `renew`, renewed every third of it. Default 2 000 ms. */
  leaseMs?: number;
  /** How long the "started, outcome unknown" mark of a refresh lives. Default 60 000 ms. */
  markMs?: number;
}

export interface RefreshRun {
  result: TokenResult;
  /** Answered from another request's call (shared in flight, or replayed), not a call of its own. */
  replayed: boolean;
  /**
   * Replayed to a request of the session that neither shared the call nor is its retry (it came just after): the
   * caller hands out the access token only, never the refresh token, and writes no cookie.
   */
  latecomer?: true;
}

/** The caller's rate-limit hit put the counter over its max: nothing was claimed or called. */
export interface RateLimitedRun {
  limitedMs: number;
}

export class RefreshCoordinator {
  readonly #o: Required<Omit<RefreshCoordinatorOptions, 'background'>>;
  readonly #track: ((write: Promise<unknown>) => void) | undefined;
  readonly #local = new Map<string, { owner: string; promise: Promise<RefreshRun | RateLimitedRun> }>();
  /** The store is this process's memory: replay entries need no sealing. */
  readonly #local_: boolean;

  constructor(options: RefreshCoordinatorOptions) {
    const { background: track, ...rest } = options;
    this.#o = { prefix: 'rf:', pollMs: 20, notifiedPollMs: 250, leaseMs: 2_000, markMs: 60_000, ...rest };
    this.#track = track;
    this.#local_ = options.store instanceof MemoryStore;
  }

  /**
   * Refreshes once per refresh token (see above). `tokenId`: the refresh token's id with its scope, unique to it and
   * no secret (a session's `rk`, else a SHA-256 of the token: see token.ts). `hit`: the caller's rate-limit counter, counted here in the same store step as the
   * claim; over its max the answer is `{limitedMs}` and nothing else happens. `track`: given this request's store
   * writes that its answer does not wait for (Workers: `waitUntil`).
   */
  async run(
    tokenId: string,
    owner: string,
    call: () => Promise<TokenResult>,
    hit?: RateHit,
    retryId?: string,
    track?: (write: Promise<unknown>) => void,
  ): Promise<RefreshRun | RateLimitedRun> {
    // the hash tag: the owner's rate-limit key (`session:<sid>`, or in browser-held mode `addr:<address>`), so the
    // claim, its waiters' flag and the caller's counter are one Redis Cluster slot, one script on one node
    const session = owner.startsWith('session:');
    const key = `${this.#o.prefix}{${owner.split('|')[0]}}:${tokenId}`;
    // a session id is random and says nothing: kept as it is; an address + Origin (browser-held) is hashed
    const ownerId = session ? owner : `h:${(await this.#o.sealer.sha256url(owner)).slice(0, 22)}`;
    // a session's replay answers only the retry of the same request (its retry id, sealed in the entry with the
    // tokens); the browser-held mode's, any request of its owner
    const tag = session ? (retryId ?? '-') : '*';
    const local = this.#local.get(key);
    if (local) {
      if (hit) {
        const counted = await this.#o.store.hit(hit.key, hit.windowMs);
        if (counted.count > hit.max) return { limitedMs: counted.resetMs };
      }
      if (local.owner !== ownerId) return { result: await call(), replayed: false };
      const shared = await local.promise;
      // the request this one waited for was turned away by its own rate limit: this one goes on by itself
      if ('limitedMs' in shared) return this.run(tokenId, owner, call, undefined, retryId, track);
      return { ...shared, replayed: true };
    }
    const promise = this.#coordinate(key, ownerId, tag, call, hit, track);
    this.#local.set(key, { owner: ownerId, promise });
    try {
      return await promise;
    } finally {
      if (this.#local.get(key)?.promise === promise) this.#local.delete(key);
    }
  }

  async #coordinate(
    key: string,
    owner: string,
    tag: string,
    call: () => Promise<TokenResult>,
    hit: RateHit | undefined,
    track: ((write: Promise<unknown>) => void) | undefined,
  ): Promise<RefreshRun | RateLimitedRun> {
    const { store, callMs, leaseMs, markMs } = this.#o;
    // a lease its replica renews while the call runs; without `renew`, a claim outlives the longest call by a margin
    // (a replica that died mid-call frees it at that point)
    const claimMs = this.#leased() ? leaseMs : callMs + 1_000;
    const deadline = Date.now() + callMs + claimMs + 1_000;
    const claim = `p:${owner}:${crypto.randomUUID()}`;
    const mark = { key: `${key}:i`, value: `i:${owner}`, ttlMs: markMs };
    // this request saw the call in flight: its result is this request's too (a request that came after it did not)
    let waited = false;
    for (;;) {
      const got = await claimOrGet(store, key, claim, claimMs, hit, mark);
      if (hit && got.hit && got.hit.count > hit.max) return { limitedMs: got.hit.resetMs };
      // one hit per request, however often it looks again
      hit = undefined;
      // an earlier refresh of this token by this owner started and never settled: its replica died, or its outcome is unknown
      if (got.claimed) return this.#call(key, claim, owner, tag, call, got.mark === mark.value, track);
      const value = got.value;
      if (value === undefined) continue;
      const state = value.slice(0, 2);
      const entryOwner = value.slice(2, 2 + owner.length);
      if (entryOwner !== owner || (value.length > 2 + owner.length && value[2 + owner.length] !== ':')) {
        // another session presents this token: the service decides (reuse)
        return { result: await call(), replayed: false };
      }
      if (state === 'd:') {
        const entry = await this.#replay(value.slice(`d:${owner}:`.length), key);
        if (entry === undefined) return { result: await call(), replayed: false };
        const result: TokenResult = { ok: true, tokens: entry.tokens };
        if (waited || (entry.tag === '*' && tag === '*') || (entry.tag === tag && tag !== '-')) return { result, replayed: true };
        return { result, replayed: true, latecomer: true };
      }
      waited = true;
      if (Date.now() > deadline) {
        return { result: { ok: false, answer: unavailable(504, 'Another replica is still refreshing this session; retry.', '1') }, replayed: false };
      }
      if (store.settled) await store.settled(key, Math.min(this.#o.notifiedPollMs, Math.max(1, deadline - Date.now())));
      else await new Promise((resolve) => setTimeout(resolve, this.#o.pollMs));
    }
  }

  /**
   * Whether claims are leases renewed during the call (a timer per refresh): on a shared store that can `renew`. In
   * this process's memory a claim dies with its replica anyway: it outlives the longest call instead, no timer.
   */
  #leased(): boolean {
    return this.#o.store.renew !== undefined && !this.#local_;
  }

  /**
   * A replay entry's retry tag and tokens: `m<json>` only from this process's memory (an unsealed entry in a shared
   * store is not ours), `e<sealed json>` opened with the cookie keys; undefined for anything else (an entry of an
   * older proxy, a forgery).
   */
  async #replay(stored: string, key: string): Promise<{ tag: string; tokens: Record<string, unknown> } | undefined> {
    const text = stored.startsWith('m')
      ? this.#local_
        ? stored.slice(1)
        : undefined
      : stored.startsWith('e')
        ? await this.#o.sealer.open(stored.slice(1), key)
        : undefined;
    if (text === undefined) return undefined;
    try {
      const [tag, tokens] = JSON.parse(text) as [unknown, unknown];
      return typeof tag === 'string' && typeof tokens === 'object' && tokens !== null ? { tag, tokens: tokens as Record<string, unknown> } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * This request holds the claim: the call (its lease renewed meanwhile), then the replay entry (or the claim removed)
   * without waiting for the store. `interrupted`: an earlier refresh of this token may have rotated it already.
   */
  async #call(
    key: string,
    claim: string,
    owner: string,
    tag: string,
    call: () => Promise<TokenResult>,
    interrupted: boolean,
    perRequest: ((write: Promise<unknown>) => void) | undefined,
  ): Promise<RefreshRun> {
    const { store, replayMs, leaseMs } = this.#o;
    const adapter = this.#track;
    const track = perRequest && adapter ? (write: Promise<unknown>) => (adapter(write), perRequest(write)) : (perRequest ?? adapter);
    const mark = `${key}:i`;
    let result: TokenResult;
    const lease = this.#leased() ? renewing(() => store.renew!(key, claim, leaseMs), leaseMs / 3) : undefined;
    try {
      result = await call();
    } catch (error) {
      // the outcome is unknown: the mark stays
      background(() => settle(store, key, undefined, 0), track);
      throw error;
    } finally {
      lease?.stop();
    }
    if (!result.ok && interrupted && result.answer.body.error === 'invalid_grant') {
      // the service saw a refresh token it had rotated already (for the interrupted refresh): not the page's doing
      result = { ok: false, answer: interruptedAnswer() };
    }
    // an unknown outcome keeps the mark, for the retry
    const dropMark = !result.ok && result.unknown ? undefined : mark;
    if (result.ok && replayMs > 0) {
      // the retry tag and the tokens, sealed with the cookie key for a shared store; one process's memory needs no sealing
      const entry = JSON.stringify([tag, result.tokens]);
      const sealed = this.#local_ ? `m${entry}` : this.#o.sealer.seal(entry, key).then((s) => `e${s}`);
      // the answer does not wait for the store: a request for this token meanwhile still finds the claim and
      // waits; a failure loses only the replay for a later request (the claim then runs out with its TTL)
      background(async () => settle(store, key, `d:${owner}:${await sealed}`, replayMs, dropMark), track);
    } else {
      background(() => settle(store, key, undefined, 0, dropMark), track);
    }
    return { result, replayed: false };
  }
}

/** The answer to a refresh whose earlier attempt was interrupted and whose refresh token the service no longer takes. */
export function interruptedAnswer(): Answer {
  return {
    status: 401,
    body: {
      error: 'refresh_interrupted',
      error_description:
        'An earlier refresh of this session was interrupted (a proxy replica stopped, or the service did not answer) and the service no longer accepts its refresh token; connect again.',
    },
  };
}

/** Calls `renew` every `everyMs` until stopped, one at a time (a slow store does not pile renewals up). */
function renewing(renew: () => Promise<boolean>, everyMs: number): { stop(): void } {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    // a failed renewal is tried again at the next tick; the lease covers two of them
    renew()
      .catch(() => false)
      .finally(() => (busy = false));
  }, everyMs);
  return { stop: () => clearInterval(timer) };
}

/** A store write the answer does not wait for; its failure is dropped (see #call). */
function background(write: () => Promise<void>, track: ((write: Promise<unknown>) => void) | undefined): void {
  try {
    const written = write().catch(() => undefined);
    track?.(written);
  } catch {
    // a store that threw instead of rejecting: the same
  }
}
