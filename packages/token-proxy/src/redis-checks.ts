/**
 * What `RedisStore` checks of the server it reaches, at connect and after each reconnection, so that an operator's
 * slip shows at start with its fix instead of as a 503 on every sign-in and refresh: a Redis Cluster node given as a
 * plain `redis://` URL (its commands meet MOVED and CROSSSLOT), a read-only replica (READONLY), an ACL user that may
 * not run what the store runs (NOPERM), a Sentinel's port (it answers PING and INFO but holds no data), a
 * `redis-cluster://` URL for a server that is not in a cluster, a refused password or TLS certificate. Each has its
 * own sentence naming the fix. No sentence carries a password (only the address, the user name and the key prefix).
 *
 * Two sources: INFO (`redis_mode`, `role`, `cluster_enabled`; a user may lack INFO, which is not a mistake) and a
 * harmless probe, a script that runs every command the store runs on a key of its own under the prefix and deletes
 * it (so an ACL's commands, keys and channels are all tried; `ACL DRYRUN` would need the ACL permission itself).
 */

/** What the sentences name: the address as it may be printed, the kind of URL, the ACL user, the key prefix. */
export interface Target {
  /** `host:port` (no user, no password); undefined for a cluster URL (its nodes are listed in the URL). */
  address: string | undefined;
  tls: boolean;
  cluster: boolean;
  username: string;
  prefix: string;
}

export function targetOf(url: string, options: { username?: string; prefix?: string }, cluster: boolean): Target {
  let address: string | undefined;
  let urlUser: string | undefined;
  if (!cluster) {
    try {
      const parsed = new URL(url);
      address = parsed.host;
      urlUser = parsed.username ? decodeURIComponent(parsed.username) : undefined;
    } catch {
      address = undefined;
    }
  } else {
    const userinfo = /^[a-z-]+:\/\/([^@/]*)@/i.exec(url)?.[1];
    if (userinfo) urlUser = decodeURIComponent(userinfo.split(':')[0]!) || undefined;
  }
  return {
    address,
    tls: /^(rediss|valkeys)/i.test(url),
    cluster,
    username: options.username ?? urlUser ?? 'default',
    prefix: options.prefix ?? 'esign-proxy:',
  };
}

/**
 * Runs, on one key of its own, each command the store's scripts and calls run (SET NX PX, INCR, PTTL, PEXPIRE, GET,
 * DEL, PUBLISH on the store's channel, an empty message that wakes no waiter); the key is gone when it returns.
 * KEYS: the probe key; ARGV: the channel.
 */
export const PROBE_SCRIPT = `redis.call('SET', KEYS[1], '0', 'NX', 'PX', 5000)
redis.call('INCR', KEYS[1])
redis.call('PTTL', KEYS[1])
redis.call('PEXPIRE', KEYS[1], 5000)
redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], '')
return 1`;

/** The ACL rule a user of the store needs (the docs show the same line; tested in proxy-redis-mismatch.test.ts). */
export function aclRule(prefix: string): string {
  return `~${prefix}* &${prefix}* +@connection +get +set +del +incr +pttl +pexpire +publish +subscribe +eval +evalsha`;
}

const where = (t: Target): string => (t.address !== undefined ? `Redis at ${t.address}` : 'A node of the cluster');
const clusterUrl = (t: Target): string => `${t.tls ? 'rediss' : 'redis'}-cluster://${t.address ?? 'host:port'}`;

/** A mistake: its kind (said once while it lasts, however its sentence varies) and its sentence. */
export interface Mistake {
  kind: keyof typeof sentences;
  sentence: string;
}

const sentences = {
  clusterNode: (t: Target) =>
    `${where(t)} is a node of a Redis Cluster (its commands meet MOVED and CROSSSLOT through a plain URL): use --store ${clusterUrl(t)} (RedisStore: the same URL).`,
  replica: (t: Target, of: string | undefined) =>
    `${where(t)} is a read-only replica${of ? ` of ${of}` : ''} (role:slave): the store writes. Give --store the primary's address (a managed service's primary endpoint, which follows a failover).`,
  sentinel: (t: Target) =>
    `${where(t)} is a Redis Sentinel, which holds no data: give --store the address of the primary it watches (SENTINEL get-master-addr-by-name <name> on this port names it), or the service's primary endpoint.`,
  acl: (t: Target, what: string) =>
    `The ACL user ${t.username} may not ${what}: give it the store's rule (ACL SETUSER ${t.username} ${aclRule(t.prefix)}), see docs/proxy.md.`,
  unknownCommand: (t: Target, command: string) =>
    `${where(t)} does not know the command ${command} the store runs: the store needs Redis 6.2 or later (or Valkey), not a Sentinel or a proxy without scripting.`,
  notCluster: (t: Target) =>
    `The ${t.tls ? 'rediss' : 'redis'}-cluster:// URL names a Redis that is not in a cluster (cluster support disabled): use --store ${t.tls ? 'rediss' : 'redis'}://host:port.`,
  password: () => 'Redis refused the user name or password (check the store URL or ESIGN_STORE_USERNAME / ESIGN_STORE_PASSWORD).',
  certificate: (code: string) => `Redis's TLS certificate was not accepted (${code}): check the CA file and the server's name.`,
};

const mistake = (kind: Mistake['kind'], sentence: string): Mistake => ({ kind, sentence });

/** What a NOPERM (or a script's "can't run this command") refused, in a few words of no secret. */
function refused(message: string, prefix: string): string {
  const command = /run the '([^']+)' command/.exec(message)?.[1];
  if (command !== undefined) return `run ${command.toUpperCase()}`;
  if (/channel/i.test(message)) return `use the channel ${prefix}settled`;
  if (/keys?\b/i.test(message)) return `use the keys ${prefix}*`;
  return "run the commands the store's scripts run (SET, INCR, PEXPIRE, DEL, PUBLISH)";
}

/**
 * The configuration mistake an error shows (of connecting or of a command), if it is one; undefined for anything
 * else (Redis away or slow is not a mistake: the store waits for it).
 */
export function mistakeOf(error: unknown, target: Target): Mistake | undefined {
  if (!(error instanceof Error)) return undefined;
  const message = error.message;
  const code = (error as { code?: unknown }).code;
  if (/^(WRONGPASS|NOAUTH)/.test(message) || /invalid (username|password)/i.test(message)) return mistake('password', sentences.password());
  if (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|ALTNAME|HOSTNAME/.test(code))
    return mistake('certificate', sentences.certificate(code));
  if (/^NOPERM/.test(message) || /user executing the script can't/.test(message)) return mistake('acl', sentences.acl(target, refused(message, target.prefix)));
  if (/^READONLY/.test(message)) return mistake('replica', sentences.replica(target, undefined));
  if (!target.cluster && (/^(MOVED|ASK|CROSSSLOT) /.test(message) || /^CLUSTERDOWN Hash slot not served/.test(message)))
    return mistake('clusterNode', sentences.clusterNode(target));
  if (target.cluster && /cluster support disabled/i.test(message)) return mistake('notCluster', sentences.notCluster(target));
  const unknown = /^ERR unknown command '([^']+)'/.exec(message)?.[1];
  if (unknown !== undefined) return mistake('unknownCommand', sentences.unknownCommand(target, unknown.toUpperCase()));
  return undefined;
}

/** The mistake INFO shows (a Sentinel, a cluster node by a plain URL, a replica), if any. */
export function infoMistake(info: string, target: Target): Mistake | undefined {
  const field = (name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];
  if (field('redis_mode') === 'sentinel') return mistake('sentinel', sentences.sentinel(target));
  if (target.cluster) return undefined;
  if (field('cluster_enabled') === '1' || field('redis_mode') === 'cluster') return mistake('clusterNode', sentences.clusterNode(target));
  if (field('role') === 'slave') {
    const host = field('master_host');
    const port = field('master_port');
    return mistake(
      'replica',
      sentences.replica(target, host !== undefined && port !== undefined ? `${host.includes(':') ? `[${host}]` : host}:${port}` : undefined),
    );
  }
  return undefined;
}
