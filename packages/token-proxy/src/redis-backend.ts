/**
 * The connections under `RedisStore`: one standalone client (plus its subscriber) or a Redis Cluster client, behind
 * one small `Backend` interface so the store is written once; the URL of a cluster; TLS and credentials.
 */
import { isIP } from 'node:net';
import { createClient, createCluster } from '@redis/client';
import { StoreUnavailableError } from './store.js';

// the clients as created here (RESP3, no modules); `{}` is what createClient's own defaults say for "none"
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- createClient's generic parameters
type Client = ReturnType<typeof createClient<{}, {}, {}, 3, {}>>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- createCluster's generic parameters
type Cluster = ReturnType<typeof createCluster<{}, {}, {}, 3, {}>>;

/** Where a Redis (or Valkey) server or cluster is, and how to reach it. */
export interface RedisConnectionOptions {
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
}

/** What the store needs of a standalone client or a cluster, so the rest is written once. */
export interface Backend {
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
  /** INFO's text (standalone: what the store checks at connect); undefined for a cluster, whose client checks each node itself. */
  info(): Promise<string | undefined>;
  /** Calls `listener` each time the connection is ready from now on, i.e. after each reconnection (standalone; a cluster: never). */
  onReconnect(listener: () => void): void;
  /** The last connection error seen (the client keeps reconnecting; it reports them as events). */
  lastError(): unknown;
  destroy(): void;
}

export const SOCKET = {
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

export function standalone(options: RedisConnectionOptions): Backend {
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
    info: () => client.sendCommand<string>(['INFO']).then(String),
    onReconnect: (listener) => client.on('ready', listener),
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

export function cluster(options: RedisConnectionOptions, parsed: NonNullable<ReturnType<typeof parseClusterUrl>>): Backend {
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
    info: () => Promise.resolve(undefined),
    onReconnect: () => undefined,
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
function tlsOptions(options: RedisConnectionOptions, host: string): { tls: true; ca?: string | Buffer; servername?: string } {
  // an address is checked against the certificate's IP names (Node's check, on the host; SNI takes no address)
  const servername = options.tlsServerName ?? (isIP(host) ? undefined : host);
  return { tls: true, ...(options.ca !== undefined ? { ca: options.ca } : {}), ...(servername !== undefined ? { servername } : {}) };
}
