/**
 * A `ProxyStore` on Redis (or Valkey) for several proxy replicas: rate-limit counters, the refresh
 * in-flight claim and the replay entries, under one key prefix, each with a TTL. Atomic operations in Lua
 * scripts (EVALSHA, loaded once per server): the counter is INCR + PEXPIRE (on the first hit) + PTTL; a
 * refresh's first step (`claimOrGet`) counts the caller's hit and claims with SET NX PX, or reads the value
 * another replica left, in one round trip; its last (`settle`) writes the replay entry and, only when a
 * request waits for it, publishes the key on a channel that a second connection of each replica listens to
 * (`settled`), so waiters need not poll. Standalone Redis or a primary (the scripts touch two keys: not
 * Redis Cluster).
 * Exported as `esign-elements/proxy/redis`; needs the optional peer dependency `@redis/client`
 * (node-redis's client: maintained by Redis, no dependencies of its own).
 *
 * When Redis cannot be reached, every call fails at once (no offline queue) or after `commandTimeoutMs`
 * with `StoreUnavailableError`, which the proxy answers with 503 and `Retry-After` (the session cookie is
 * kept); the client reconnects in the background and the proxy recovers by itself.
 */
import { createHash } from 'node:crypto';
import { createClient } from '@redis/client';
import { StoreUnavailableError, type ClaimResult, type ProxyStore, type RateHit } from './store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Prefix of every key. Default `esign-proxy:`. */
  prefix?: string;
  /** A command not answered within this is a failure (503). Default 1 000 ms. */
  commandTimeoutMs?: number;
  /** Retry-After (s) given to clients while Redis is unreachable. Default 1. */
  retryAfterSeconds?: number;
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
 * KEYS: the claim, its waiters' flag[, the rate counter]; ARGV: value, ttl ms[, window ms, max].
 * The hit (when given) first: over max, nothing else. Then SET NX PX, or the value found (the waiters' flag
 * set, so the settle publishes). Returns {count, ms left, 0 = found | 1 = claimed | 2 = over the limit, value}.
 */
const CLAIM_SCRIPT = `local n, ttl = 0, 0
if KEYS[3] then
  n = redis.call('INCR', KEYS[3])
  ttl = redis.call('PTTL', KEYS[3])
  if n == 1 or ttl < 0 then
    redis.call('PEXPIRE', KEYS[3], ARGV[3])
    ttl = tonumber(ARGV[3])
  end
  if n > tonumber(ARGV[4]) then return {n, ttl, 2, ''} end
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {n, ttl, 1, ''} end
local v = redis.call('GET', KEYS[1])
if not v then return {n, ttl, 0, ''} end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return {n, ttl, 0, '=' .. v}`;

/** KEYS: the key, its waiters' flag; ARGV: value ('' removes), ttl ms, channel. Publishes the key only if someone waits. */
const SETTLE_SCRIPT = `if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
if redis.call('DEL', KEYS[2]) == 1 then redis.call('PUBLISH', ARGV[3], KEYS[1]) end
return 1`;

interface Script {
  text: string;
  sha: string;
}

const script = (text: string): Script => ({ text, sha: createHash('sha1').update(text).digest('hex') });
const HIT = script(HIT_SCRIPT);
const CLAIM = script(CLAIM_SCRIPT);
const SETTLE = script(SETTLE_SCRIPT);

// the client as created here (RESP3, no modules); `{}` is what createClient's own defaults say for "none"
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- createClient's generic parameters
type Client = ReturnType<typeof createClient<{}, {}, {}, 3, {}>>;

export class RedisStore implements ProxyStore {
  readonly #client: Client;
  /** A second connection, subscribed to the channel on which settles are announced. */
  readonly #subscriber: Client;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #retryAfter: number;
  /** Waiters of this process by full key. */
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  private constructor(client: Client, options: RedisStoreOptions) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'esign-proxy:';
    this.#channel = `${this.#prefix}settled`;
    this.#timeoutMs = options.commandTimeoutMs ?? 1_000;
    this.#retryAfter = options.retryAfterSeconds ?? 1;
    // its offline queue holds only the SUBSCRIBE; the client subscribes again after a reconnect
    this.#subscriber = client.duplicate({ disableOfflineQueue: false });
    this.#subscriber.on('error', () => undefined);
  }

  /**
   * Connects (waiting up to `commandTimeoutMs` for a first connection; if Redis is not there yet, the
   * store starts anyway, answers 503 meanwhile, and connects as soon as Redis is up).
   */
  static async connect(options: RedisStoreOptions | string): Promise<RedisStore> {
    const resolved = typeof options === 'string' ? { url: options } : options;
    const client: Client = createClient({
      url: resolved.url,
      // fail fast while disconnected instead of queueing (the caller gets a 503 and retries)
      disableOfflineQueue: true,
      // no AbortSignal timer per command: the client's timeout only covers the wait before a command is
      // written, which disableOfflineQueue makes moot; #run times the whole command, reply included
      commandOptions: { timeout: 0 },
      socket: {
        connectTimeout: 2_000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1_000),
      },
    });
    // errors are reported to the callers of commands; the client reconnects on its own
    client.on('error', () => undefined);
    const store = new RedisStore(client, resolved);
    const connecting = Promise.all([client.connect().catch(() => undefined), store.#subscribe()]);
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, resolved.commandTimeoutMs ?? 1_000))]);
    return store;
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const reply = (await this.#run(() => this.#script(HIT, [this.#prefix + key], [String(Math.ceil(windowMs))]))) as [number, number];
    return { count: Number(reply[0]), resetMs: Math.max(0, Number(reply[1])) };
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#run(() => this.#client.set(this.#prefix + key, value, { condition: 'NX', expiration: { type: 'PX', value: Math.ceil(ttlMs) } }));
    return reply === 'OK';
  }

  async claimOrGet(key: string, value: string, ttlMs: number, hit?: RateHit): Promise<ClaimResult> {
    const full = this.#prefix + key;
    const keys = [full, `${full}:w`];
    const args = [value, String(Math.ceil(ttlMs))];
    if (hit) {
      keys.push(this.#prefix + hit.key);
      args.push(String(Math.ceil(hit.windowMs)), String(hit.max));
    }
    const reply = (await this.#run(() => this.#script(CLAIM, keys, args))) as [number, number, number, string];
    const result: ClaimResult = { claimed: Number(reply[2]) === 1 };
    if (hit) result.hit = { count: Number(reply[0]), resetMs: Math.max(0, Number(reply[1])) };
    const found = String(reply[3]);
    if (found.startsWith('=')) result.value = found.slice(1);
    return result;
  }

  async settle(key: string, value: string | undefined, ttlMs: number): Promise<void> {
    const full = this.#prefix + key;
    await this.#run(() => this.#script(SETTLE, [full, `${full}:w`], [value ?? '', String(Math.max(1, Math.ceil(ttlMs))), this.#channel]));
  }

  settled(key: string, timeoutMs: number): Promise<void> {
    // without the subscription (connecting, Redis away) a notification could be missed: look again soon
    const ms = this.#subscriber.isReady ? timeoutMs : Math.min(timeoutMs, 20);
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
    const reply = await this.#run(() => this.#client.get(this.#prefix + key));
    return reply === null ? undefined : String(reply);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#run(() => this.#client.set(this.#prefix + key, value, { expiration: { type: 'PX', value: Math.ceil(ttlMs) } }));
  }

  async delete(key: string): Promise<void> {
    await this.#run(() => this.#client.del(this.#prefix + key));
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#client.ping());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.isOpen) this.#client.destroy();
    if (this.#subscriber.isOpen) this.#subscriber.destroy();
    for (const waiters of [...this.#waiters.values()]) for (const wake of [...waiters]) wake();
  }

  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.connect();
      await this.#subscriber.subscribe(this.#channel, (message) => {
        for (const wake of [...(this.#waiters.get(message) ?? [])]) wake();
      });
    } catch {
      // Redis not there yet: the client keeps reconnecting; waiters look again every 20 ms meanwhile
    }
  }

  /** EVALSHA; EVAL once when the server does not have the script yet (a restart, SCRIPT FLUSH). */
  async #script(s: Script, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(s.sha, { keys, arguments: args });
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.#client.eval(s.text, { keys, arguments: args });
    }
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.#client.isReady) throw new StoreUnavailableError('Redis is not connected.', this.#retryAfter);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError('Redis did not answer in time.', this.#retryAfter)), this.#timeoutMs);
        }),
      ]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError('Redis failed.', this.#retryAfter);
    } finally {
      clearTimeout(timer);
    }
  }
}
