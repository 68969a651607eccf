/**
 * A `ProxyStore` on Redis (or Valkey) for several proxy replicas: rate-limit counters, the refresh
 * in-flight claim and the replay entries, under one key prefix, each with a TTL. Atomic operations: the
 * counter is INCR + PEXPIRE (on the first hit) + PTTL in one Lua script, the claim is SET NX PX.
 * Exported as `esign-elements/proxy/redis`; needs the optional peer dependency `@redis/client`
 * (node-redis's client: maintained by Redis, no dependencies of its own).
 *
 * When Redis cannot be reached, every call fails at once (no offline queue) or after `commandTimeoutMs`
 * with `StoreUnavailableError`, which the proxy answers with 503 and `Retry-After` (the session cookie is
 * kept); the client reconnects in the background and the proxy recovers by itself.
 */
import { createClient } from '@redis/client';
import { StoreUnavailableError, type ProxyStore } from './store.js';

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

// the client as created here (RESP3, no modules)
type Client = ReturnType<typeof createClient<{}, {}, {}, 3, {}>>;

export class RedisStore implements ProxyStore {
  readonly #client: Client;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #retryAfter: number;
  #closed = false;

  private constructor(client: Client, options: RedisStoreOptions) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'esign-proxy:';
    this.#timeoutMs = options.commandTimeoutMs ?? 1_000;
    this.#retryAfter = options.retryAfterSeconds ?? 1;
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
      socket: {
        connectTimeout: 2_000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1_000),
      },
    });
    // errors are reported to the callers of commands; the client reconnects on its own
    client.on('error', () => undefined);
    const store = new RedisStore(client, resolved);
    const connecting = client.connect().catch(() => undefined);
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, resolved.commandTimeoutMs ?? 1_000))]);
    return store;
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const reply = (await this.#run(() => this.#client.eval(HIT_SCRIPT, { keys: [this.#prefix + key], arguments: [String(Math.ceil(windowMs))] }))) as [number, number];
    return { count: Number(reply[0]), resetMs: Math.max(0, Number(reply[1])) };
  }

  async claim(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#run(() => this.#client.set(this.#prefix + key, value, { condition: 'NX', expiration: { type: 'PX', value: Math.ceil(ttlMs) } }));
    return reply === 'OK';
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

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.isOpen) this.#client.destroy();
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
