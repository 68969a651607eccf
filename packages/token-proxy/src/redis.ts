/**
 * A `ProxyStore` on Redis (or Valkey) for several proxy replicas: rate-limit counters, the refresh
 * in-flight claim and the replay entries, under one key prefix, each with a TTL. Atomic operations in Lua
 * scripts (EVALSHA, loaded once per server): the counter is INCR + PEXPIRE (on the first hit) + PTTL; a
 * refresh's first step (`claimOrGet`) counts the caller's hit and claims with SET NX PX (setting the refresh's
 * "outcome unknown" mark), or reads the value another replica left, in one round trip; while the call runs, its
 * replica renews the claim's short lease (`renew`); its last (`settle`) writes the replay entry and, only when a
 * request waits for it, publishes the key on a channel that a second connection of each replica listens to
 * (`settled`), so waiters need not poll.
 *
 * Standalone Redis, a primary, or a Redis Cluster (`redis-cluster://host:port[,host:port…]`, through
 * `@redis/client`'s `createCluster`): the keys one script touches share a hash tag (the session's,
 * `{session:<sid>}`, or in browser-held mode the caller's address), so each operation is one round trip to
 * one node; a PUBLISH reaches every node of a cluster. TLS (`rediss://`, `rediss-cluster://`) with a CA of
 * one's own and the server's name checked; an ACL user and password from the URL or the options.
 * Exported as `@esign-elements/token-proxy/redis`; needs the optional peer dependency `@redis/client`
 * (node-redis's client: maintained by Redis, no dependencies of its own).
 *
 * When Redis cannot be reached, every call fails at once (no offline queue) or after `commandTimeoutMs`
 * with `StoreUnavailableError`, which the proxy answers with 503 and `Retry-After` (the session cookie is
 * kept); the client reconnects in the background (a cluster also asks for its new layout after a
 * failover) and the proxy recovers by itself. A server that answers but cannot hold the store (a cluster node by a
 * plain URL, a replica, a Sentinel, an ACL user short of rights) is a configuration mistake, found at connect and
 * after each reconnection (redis-checks.ts); the connections themselves are in redis-backend.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { cluster, parseClusterUrl, SOCKET, standalone, type Backend, type RedisConnectionOptions } from './redis-backend.js';
import { infoMistake, mistakeOf, PROBE_SCRIPT, targetOf, type Mistake, type Target } from './redis-checks.js';
import { StoreUnavailableError, type ClaimResult, type Mark, type ProxyStore, type RateHit } from './store.js';

/** Where the store's server is and how to reach it (redis-backend.ts), and how the store uses it. */
export interface RedisStoreOptions extends RedisConnectionOptions {
  /** Prefix of every key. Default `esign-proxy:`. */
  prefix?: string;
  /** A command not answered within this is a failure (503). Default 1 000 ms. */
  commandTimeoutMs?: number;
  /** Retry-After (s) given to clients while Redis is unreachable. Default 1. */
  retryAfterSeconds?: number;
  /**
   * Called with the sentence when a mistake shows after `connect` (Redis was not up at start, or a reconnection
   * reached a replica, a cluster node, a Sentinel or a changed ACL): meanwhile `/ready` answers 503 with it.
   */
  onMistake?: (sentence: string) => void;
}

export { parseClusterUrl, type RedisConnectionOptions } from './redis-backend.js';

/**
 * A store that cannot work as configured (a refused password, an untrusted certificate, a malformed URL, a cluster
 * node by a plain URL, a replica, a Sentinel, an ACL user short of rights; see redis-checks.ts): one sentence, no secret.
 */
export class RedisConfigError extends Error {
  override readonly name = 'RedisConfigError';
}

/** INCR; PEXPIRE on the first hit of a window; the count and the ms left. */
const HIT_SCRIPT = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * KEYS: the claim, its waiters' flag[, the rate counter][, the mark]; ARGV: value, ttl ms, window ms, max (both ''
 * without a counter), mark value, mark ttl ms (both '' without a mark).
 * The hit (when given) first: over max, nothing else. Then SET NX PX (and the mark set, its value before returned),
 * or the value found (the waiters' flag set, so the settle publishes).
 * Returns {count, ms left, 0 = found | 1 = claimed | 2 = over the limit, value found or mark before}.
 */
const CLAIM_SCRIPT = `local n, ttl = 0, 0
local k = 3
if ARGV[3] ~= '' then
  n = redis.call('INCR', KEYS[k])
  ttl = redis.call('PTTL', KEYS[k])
  if n == 1 or ttl < 0 then
    redis.call('PEXPIRE', KEYS[k], ARGV[3])
    ttl = tonumber(ARGV[3])
  end
  if n > tonumber(ARGV[4]) then return {n, ttl, 2, ''} end
  k = 4
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if ARGV[5] == '' then return {n, ttl, 1, ''} end
  local before = redis.call('GET', KEYS[k])
  redis.call('SET', KEYS[k], ARGV[5], 'PX', ARGV[6])
  if not before then return {n, ttl, 1, ''} end
  return {n, ttl, 1, '=' .. before}
end
local v = redis.call('GET', KEYS[1])
if not v then return {n, ttl, 0, ''} end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return {n, ttl, 0, '=' .. v}`;

/**
 * KEYS: the key, its waiters' flag[, a mark to remove]; ARGV: value ('' removes), ttl ms, channel. Publishes the key
 * only if someone waits.
 */
const SETTLE_SCRIPT = `if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
if KEYS[3] then redis.call('DEL', KEYS[3]) end
if redis.call('DEL', KEYS[2]) == 1 then redis.call('PUBLISH', ARGV[3], KEYS[1]) end
return 1`;

/** KEYS: the claim; ARGV: its holder's value, ttl ms. A new TTL only while the value is still the holder's. */
const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

interface Script {
  text: string;
  sha: string;
}

const script = (text: string): Script => ({ text, sha: createHash('sha1').update(text).digest('hex') });
const HIT = script(HIT_SCRIPT);
const CLAIM = script(CLAIM_SCRIPT);
const SETTLE = script(SETTLE_SCRIPT);
const RENEW = script(RENEW_SCRIPT);
const PROBE = script(PROBE_SCRIPT);

export class RedisStore implements ProxyStore {
  readonly #backend: Backend;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #retryAfter: number;
  readonly #target: Target;
  readonly #onMistake: ((sentence: string) => void) | undefined;
  /** The configuration mistake last seen after connect (see redis-checks.ts), until a check finds none. */
  #mistake: Mistake | undefined;
  /** Waiters of this process by full key. */
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  private constructor(backend: Backend, options: RedisStoreOptions) {
    this.#backend = backend;
    this.#prefix = options.prefix ?? 'esign-proxy:';
    this.#channel = `${this.#prefix}settled`;
    this.#timeoutMs = options.commandTimeoutMs ?? 1_000;
    this.#retryAfter = options.retryAfterSeconds ?? 1;
    this.#target = targetOf(options.url, options, parseClusterUrl(options.url) !== undefined);
    this.#onMistake = options.onMistake;
  }

  /**
   * Connects (waiting for the first attempt's outcome, at most the 2 s connect limit plus `commandTimeoutMs`; if Redis is not there yet, the
   * store starts anyway, answers 503 meanwhile, and connects as soon as Redis is up). A server that answers
   * but refuses the user name or password, or whose TLS certificate is not trusted (or not for its name),
   * is a configuration mistake: `connect` rejects with `RedisConfigError` (one sentence, no secret). So is a server
   * that cannot hold the store (a Redis Cluster node by a plain URL, a read-only replica, a Sentinel, an ACL user
   * that may not run the store's commands): checked once connected, and again after each reconnection (then
   * `/ready` answers 503 with the sentence and `onMistake` is called).
   */
  static async connect(options: RedisStoreOptions | string): Promise<RedisStore> {
    const resolved = typeof options === 'string' ? { url: options } : options;
    const parsed = parseClusterUrl(resolved.url);
    if (/^(redis|rediss|valkey|valkeys)-cluster:/i.test(resolved.url) && !parsed)
      throw new RedisConfigError('A cluster URL is redis-cluster://[user:password@]host:port[,host:port…] (or rediss-cluster://).');
    const backend = parsed ? cluster(resolved, parsed) : standalone(resolved);
    const store = new RedisStore(backend, resolved);
    let failure: unknown;
    const connecting = backend
      .connect(store.#channel, (message) => {
        for (const wake of [...(store.#waiters.get(message) ?? [])]) wake();
      })
      .catch((error: unknown) => {
        failure = error;
      });
    // wait for the first attempt's outcome (connected, or an error to read), not a fixed time: on a loaded machine
    // the answer to a wrong password can take longer than a command may; bounded by the connect and command limits
    const limit = SOCKET.connectTimeout + (resolved.commandTimeoutMs ?? 1_000);
    const outcome = new Promise<void>((resolve) => {
      const deadline = Date.now() + limit;
      const check = setInterval(() => {
        if (backend.lastError() !== undefined || Date.now() > deadline) {
          clearInterval(check);
          resolve();
        }
      }, 20);
      void connecting.then(() => {
        clearInterval(check);
        resolve();
      });
    });
    await outcome;
    // the connection's own error may be a generic one ("All the root nodes are unavailable") after the telling one
    const mistake = backend.ready()
      ? (mistakeOf(failure, store.#target) ?? (await store.#check()))
      : (mistakeOf(failure, store.#target) ?? mistakeOf(backend.lastError(), store.#target));
    if (mistake) {
      backend.destroy();
      throw new RedisConfigError(mistake.sentence);
    }
    // Redis not up yet, or a reconnection (perhaps to another server behind the same name): check what answers
    backend.onReconnect(() => void store.#recheck());
    return store;
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const reply = (await this.#run(() => this.#script(HIT, [this.#prefix + key], [String(Math.ceil(windowMs))]))) as [number, number];
    return { count: Number(reply[0]), resetMs: Math.max(0, Number(reply[1])) };
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#run(() => this.#backend.set(this.#prefix + key, value, Math.ceil(ttlMs), true));
    return reply === 'OK';
  }

  async claimOrGet(key: string, value: string, ttlMs: number, hit?: RateHit, mark?: Mark): Promise<ClaimResult> {
    const full = this.#prefix + key;
    const keys = [full, `${full}:w`];
    const args = [value, String(Math.ceil(ttlMs)), '', '', '', ''];
    if (hit) {
      keys.push(this.#prefix + hit.key);
      args[2] = String(Math.ceil(hit.windowMs));
      args[3] = String(hit.max);
    }
    if (mark) {
      keys.push(this.#prefix + mark.key);
      args[4] = mark.value;
      args[5] = String(Math.max(1, Math.ceil(mark.ttlMs)));
    }
    const reply = (await this.#run(() => this.#script(CLAIM, keys, args))) as [number, number, number, string];
    const result: ClaimResult = { claimed: Number(reply[2]) === 1 };
    if (hit) result.hit = { count: Number(reply[0]), resetMs: Math.max(0, Number(reply[1])) };
    const found = String(reply[3]);
    if (found.startsWith('=')) {
      if (result.claimed) result.mark = found.slice(1);
      else result.value = found.slice(1);
    }
    return result;
  }

  async settle(key: string, value: string | undefined, ttlMs: number, dropMark?: string): Promise<void> {
    const full = this.#prefix + key;
    const keys = [full, `${full}:w`];
    if (dropMark !== undefined) keys.push(this.#prefix + dropMark);
    await this.#run(() => this.#script(SETTLE, keys, [value ?? '', String(Math.max(1, Math.ceil(ttlMs))), this.#channel]));
  }

  async renew(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#run(() => this.#script(RENEW, [this.#prefix + key], [value, String(Math.max(1, Math.ceil(ttlMs)))]));
    return Number(reply) === 1;
  }

  settled(key: string, timeoutMs: number): Promise<void> {
    // without the subscription (connecting, Redis away) a notification could be missed: look again soon
    const ms = this.#backend.subscribed() ? timeoutMs : Math.min(timeoutMs, 20);
    const full = this.#prefix + key;
    return new Promise((resolve) => {
      let waiters = this.#waiters.get(full);
      if (!waiters) this.#waiters.set(full, (waiters = new Set()));
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(full) === waiters) this.#waiters.delete(full);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  async get(key: string): Promise<string | undefined> {
    const reply = await this.#run(() => this.#backend.get(this.#prefix + key));
    return reply === null ? undefined : String(reply);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#run(() => this.#backend.set(this.#prefix + key, value, Math.ceil(ttlMs), false));
  }

  async delete(key: string): Promise<void> {
    await this.#run(() => this.#backend.del(this.#prefix + key));
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#backend.ping());
    if (this.#mistake === undefined) return;
    // fixed since (an ACL granted)? else /ready says what is wrong
    await this.#recheck();
    if (this.#mistake !== undefined) throw new StoreUnavailableError(this.#mistake.sentence, this.#retryAfter);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#backend.destroy();
    for (const waiters of [...this.#waiters.values()]) for (const wake of [...waiters]) wake();
  }

  /** EVALSHA; EVAL once when the server does not have the script yet (a restart, SCRIPT FLUSH). */
  async #script(s: Script, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#backend.evalSha(s.sha, keys, args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.#backend.eval(s.text, keys, args);
    }
  }

  /** The mistake the server shows (INFO, then the probe script), or undefined: none, or Redis away or slow (not a mistake). */
  async #check(): Promise<Mistake | undefined> {
    try {
      // a user may lack INFO: not a mistake, the probe tries what the store needs
      const info = await this.#timed(() => this.#backend.info()).catch((error: unknown) => {
        if (error instanceof Error && /^NOPERM/.test(error.message)) return undefined;
        throw error;
      });
      const seen = info === undefined ? undefined : infoMistake(info, this.#target);
      if (seen !== undefined) return seen;
      await this.#timed(() => this.#script(PROBE, [`${this.#prefix}probe:{${randomUUID()}}`], [this.#channel]));
      return undefined;
    } catch (error) {
      return mistakeOf(error, this.#target);
    }
  }

  async #recheck(): Promise<void> {
    this.#noted(await this.#check(), true);
  }

  /** Keeps the mistake seen (undefined: none; a check's sentence, which may say more, over a command's); says each new kind once. */
  #noted(mistake: Mistake | undefined, checked: boolean): void {
    const changed = mistake?.kind !== this.#mistake?.kind;
    if (changed || checked) this.#mistake = mistake;
    if (changed && mistake !== undefined) this.#onMistake?.(mistake.sentence);
  }

  /** The command, or StoreUnavailableError after commandTimeoutMs; its own error as it is. */
  async #timed<T>(command: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError('Redis did not answer in time.', this.#retryAfter)), this.#timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.#backend.ready()) throw new StoreUnavailableError('Redis is not connected.', this.#retryAfter);
    try {
      return await this.#timed(command);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      // a replica, a cluster node by a plain URL, an ACL changed: /ready says so until a check finds it fixed
      const mistake = mistakeOf(error, this.#target);
      if (mistake !== undefined) {
        this.#noted(mistake, false);
        throw new StoreUnavailableError(mistake.sentence, this.#retryAfter);
      }
      // a cluster that lost a primary says CLUSTERDOWN until its replica takes over; a node away fails to connect
      const message =
        error instanceof Error && error.message.startsWith('CLUSTERDOWN') ? 'The Redis Cluster is down (a primary is being replaced).' : 'Redis failed.';
      throw new StoreUnavailableError(message, this.#retryAfter);
    }
  }
}
