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
 * failover) and the proxy recovers by itself.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { createClient, createCluster } from '@redis/client';
import { StoreUnavailableError, type ClaimResult, type Mark, type ProxyStore, type RateHit } from './store.js';

export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]`, `rediss://…` (TLS), or a Redis Cluster:
   * `redis-cluster://[user:password@]host:port[,host:port…]` (`rediss-cluster://` with TLS; a few nodes are
   * enough, the others are found from them). `valkey…` is the same as `redis…`.
   */
  url: string;
  /** ACL user (else the URL's, else `default`). */
  username?: string;
  /** Its password (else the URL's). Never printed, also not in errors. */
  password?: string;
  /** TLS: the CA certificate(s) (PEM) the server's certificate must chain to; default the system's. */
  ca?: string | Buffer;
  /** TLS: the name the server's certificate must carry; default the host of the URL (an IP address: its IP names). */
  tlsServerName?: string;
  /** Prefix of every key. Default `esign-proxy:`. */
  prefix?: string;
  /** A command not answered within this is a failure (503). Default 1 000 ms. */
  commandTimeoutMs?: number;
  /** Retry-After (s) given to clients while Redis is unreachable. Default 1. */
  retryAfterSeconds?: number;
}

/** A store that cannot work as configured (a refused password, an untrusted certificate, a malformed URL): one sentence, no secret. */
export class RedisConfigError extends Error {
  override readonly name = 'RedisConfigError';
}

/** The configuration mistake an error of the first connection shows, if it is one (else Redis is merely not there yet). */
function configMistake(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (/^(WRONGPASS|NOAUTH|NOPERM)/.test(error.message) || /invalid (username|password)/i.test(error.message))
    return 'Redis refused the user name or password (check the store URL or ESIGN_STORE_USERNAME / ESIGN_STORE_PASSWORD).';
  if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|ALTNAME|HOSTNAME/.test(code))
    return `Redis's TLS certificate was not accepted (${code}): check the CA file and the server's name.`;
  return undefined;
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

// the clients as created here (RESP3, no modules); `{}` is what createClient's own defaults say for "none"
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- createClient's generic parameters
type Client = ReturnType<typeof createClient<{}, {}, {}, 3, {}>>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- createCluster's generic parameters
type Cluster = ReturnType<typeof createCluster<{}, {}, {}, 3, {}>>;

/** What the store needs of a standalone client or a cluster, so the rest is written once. */
interface Backend {
  ready(): boolean;
  subscribed(): boolean;
  evalSha(sha: string, keys: string[], args: string[]): Promise<unknown>;
  eval(text: string, keys: string[], args: string[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ms: number, onlyIfAbsent: boolean): Promise<unknown>;
  del(key: string): Promise<unknown>;
  /** Standalone: PING. Cluster: every primary answers and CLUSTER INFO says ok. */
  ping(): Promise<void>;
  /** Connects (the subscription on a connection of its own). */
  connect(channel: string, listener: (message: string) => void): Promise<unknown>;
  /** The last connection error seen (the client keeps reconnecting; it reports them as events). */
  lastError(): unknown;
  destroy(): void;
}

const SOCKET = {
  connectTimeout: 2_000,
  reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1_000),
};

/** The address list of a `redis-cluster://[user:password@]host:port[,host:port…]` (or `rediss-cluster://`) URL. */
export function parseClusterUrl(url: string): { tls: boolean; nodes: { host: string; port: number }[]; username?: string; password?: string } | undefined {
  const match = /^(redis|rediss|valkey|valkeys)-cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/i.exec(url);
  if (!match) return undefined;
  const [, scheme, userinfo, hosts] = match;
  const nodes = hosts!.split(',').map((address) => {
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address.trim());
    return m ? { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) } : undefined;
  });
  if (nodes.length === 0 || nodes.some((n) => n === undefined || n.port < 1 || n.port > 65_535)) return undefined;
  const result: ReturnType<typeof parseClusterUrl> = { tls: /^(rediss|valkeys)$/i.test(scheme!), nodes: nodes as { host: string; port: number }[] };
  if (userinfo) {
    const colon = userinfo.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
    if (user) result.username = user;
    if (colon >= 0) result.password = decodeURIComponent(userinfo.slice(colon + 1));
  }
  return result;
}

function standalone(options: RedisStoreOptions): Backend {
  const tls = /^(rediss|valkeys):/i.test(options.url);
  const url = options.url.replace(/^valkey/i, 'redis');
  const client: Client = createClient({
    url,
    ...credentials(options),
    // fail fast while disconnected instead of queueing (the caller gets a 503 and retries)
    disableOfflineQueue: true,
    // no AbortSignal timer per command: the client's timeout only covers the wait before a command is
    // written, which disableOfflineQueue makes moot; #run times the whole command, reply included
    commandOptions: { timeout: 0 },
    socket: { ...SOCKET, ...(tls ? tlsOptions(options, new URL(url).hostname) : {}) },
  });
  // errors are reported to the callers of commands; the client reconnects on its own
  let last: unknown;
  client.on('error', (error: unknown) => (last = error));
  // its offline queue holds only the SUBSCRIBE; the client subscribes again after a reconnect
  const subscriber = client.duplicate({ disableOfflineQueue: false });
  subscriber.on('error', () => undefined);
  return {
    lastError: () => last,
    ready: () => client.isReady,
    subscribed: () => subscriber.isReady,
    evalSha: (sha, keys, args) => client.evalSha(sha, { keys, arguments: args }),
    eval: (text, keys, args) => client.eval(text, { keys, arguments: args }),
    get: (key) => client.get(key),
    set: (key, value, ms, nx) => client.set(key, value, { ...(nx ? { condition: 'NX' as const } : {}), expiration: { type: 'PX', value: ms } }),
    del: (key) => client.del(key),
    ping: async () => {
      await client.ping();
    },
    connect: async (channel, listener) => {
      await Promise.all([client.connect(), subscriber.connect().then(() => subscriber.subscribe(channel, listener))]);
    },
    destroy: () => {
      if (client.isOpen) client.destroy();
      if (subscriber.isOpen) subscriber.destroy();
    },
  };
}

function cluster(options: RedisStoreOptions, parsed: NonNullable<ReturnType<typeof parseClusterUrl>>): Backend {
  const tls = (host: string) => (parsed.tls ? tlsOptions(options, host) : {});
  const c: Cluster = createCluster({
    rootNodes: parsed.nodes.map(({ host, port }) => ({ socket: { host, port, ...SOCKET, ...tls(host) } })),
    // every connection, also to the nodes found from the root nodes: credentials, TLS, no offline queue
    defaults: {
      ...credentials({ ...options, ...parsed }),
      disableOfflineQueue: true,
      socket: { ...SOCKET, ...tls(options.tlsServerName ?? parsed.nodes[0]!.host) },
    },
    commandOptions: { timeout: 0 },
    // a primary that stops answering (its replica is taking over): ask the cluster for its new layout
    // half a second into the reconnection, not after the default 5 s
    topologyRefreshOnReconnectionAttemptStrategy: 500,
  });
  let last: unknown;
  c.on('error', (error: unknown) => (last = error));
  return {
    lastError: () => last,
    ready: () => c.isReady,
    subscribed: () => c.pubSubNode?.client.isReady ?? false,
    evalSha: (sha, keys, args) => c.evalSha(sha, { keys, arguments: args }),
    eval: (text, keys, args) => c.eval(text, { keys, arguments: args }),
    get: (key) => c.get(key),
    set: (key, value, ms, nx) => c.set(key, value, { ...(nx ? { condition: 'NX' as const } : {}), expiration: { type: 'PX', value: ms } }),
    del: (key) => c.del(key),
    ping: async () => {
      const info = await c.sendCommand<string>(undefined, true, ['CLUSTER', 'INFO']);
      const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
      if (state !== 'ok') throw new StoreUnavailableError(`The Redis Cluster's state is ${state}.`);
      await Promise.all(c.masters.map(async (m) => (await c.nodeClient(m)).ping()));
    },
    // the cluster subscribes on one node of its own choice (PUBLISH reaches every node of a cluster)
    connect: async (channel, listener) => {
      await c.connect();
      await c.subscribe(channel, listener);
    },
    destroy: () => {
      if (c.isOpen) c.destroy();
    },
  };
}

function credentials(options: { username?: string; password?: string }): { username?: string; password?: string } {
  return {
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
  };
}

/** TLS: the CA given (else the system's), and the server's name checked against its certificate (never turned off). */
function tlsOptions(options: RedisStoreOptions, host: string): { tls: true; ca?: string | Buffer; servername?: string } {
  // an address is checked against the certificate's IP names (Node's check, on the host; SNI takes no address)
  const servername = options.tlsServerName ?? (isIP(host) ? undefined : host);
  return { tls: true, ...(options.ca !== undefined ? { ca: options.ca } : {}), ...(servername !== undefined ? { servername } : {}) };
}

export class RedisStore implements ProxyStore {
  readonly #backend: Backend;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #retryAfter: number;
  /** Waiters of this process by full key. */
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  private constructor(backend: Backend, options: RedisStoreOptions) {
    this.#backend = backend;
    this.#prefix = options.prefix ?? 'esign-proxy:';
    this.#channel = `${this.#prefix}settled`;
    this.#timeoutMs = options.commandTimeoutMs ?? 1_000;
    this.#retryAfter = options.retryAfterSeconds ?? 1;
  }

  /**
   * Connects (waiting for the first attempt's outcome, at most the 2 s connect limit plus `commandTimeoutMs`; if Redis is not there yet, the
   * store starts anyway, answers 503 meanwhile, and connects as soon as Redis is up). A server that answers
   * but refuses the user name or password, or whose TLS certificate is not trusted (or not for its name),
   * is a configuration mistake: `connect` rejects with `RedisConfigError` (one sentence, no secret).
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
    const mistake = configMistake(failure ?? (backend.ready() ? undefined : backend.lastError()));
    if (mistake) {
      backend.destroy();
      throw new RedisConfigError(mistake);
    }
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

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.#backend.ready()) throw new StoreUnavailableError('Redis is not connected.', this.#retryAfter);
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
      // a cluster that lost a primary says CLUSTERDOWN until its replica takes over; a node away fails to connect
      const message =
        error instanceof Error && error.message.startsWith('CLUSTERDOWN') ? 'The Redis Cluster is down (a primary is being replaced).' : 'Redis failed.';
      throw new StoreUnavailableError(message, this.#retryAfter);
    } finally {
      clearTimeout(timer);
    }
  }
}
