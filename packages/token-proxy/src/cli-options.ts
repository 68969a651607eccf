/**
 * The command line of esign-token-proxy: its usage text, its flags, and the serve options read from them and from
 * the environment (`ESIGN_*`), every mistake listed at once. Never quotes a secret or a key.
 */
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { defaultShutdownMs } from './config.js';
import type { ServeTokenProxyOptions } from './node.js';
import { LOG_LEVELS, type LogLevel } from './observe.js';
import { generateCookieKey } from './seal.js';

export const HELP = `Usage: esign-token-proxy [options]

Runs the sign-in (GET <base-path>/login, /callback) and serves POST <base-path>/token and /revoke for
browsers, adding the app's client_secret. By default it receives the authorization code at its own
callback, keeps each user's refresh token in an encrypted HttpOnly cookie (token-mediating mode) and
answers the browser with access tokens only: the page never holds a code, verifier or refresh token.

Options (environment variable in brackets):
  --client-id <id>          OAuth client_id                          [ESIGN_CLIENT_ID]
  --client-secret <secret>  OAuth client_secret; prefer the variable  [ESIGN_CLIENT_SECRET]
  --base-url <url>          service base URL (https, or loopback http) [ESIGN_BASE_URL]
  --allowed-origin <origin> browser origin allowed to call; repeatable [ESIGN_ALLOWED_ORIGINS, comma-separated]
  --public-origin <origin>  the origin browsers reach this proxy at (https://app.example.com); its
                            callback <public-origin><base-path>/callback is the redirect URI to
                            register at the service. Cookies are Secure and __Host- when it is https.
                            Default on a loopback host: http://localhost:<port> [ESIGN_PUBLIC_ORIGIN]
  --redirect-uri <uri>      browser-held mode only: a page allowed to receive the code; repeatable
                                                                      [ESIGN_REDIRECT_URIS, comma-separated]
  --authorization-endpoint <url>
                            default <base-url>/openapi/v1/oauth/auth    [ESIGN_AUTHORIZATION_ENDPOINT]
  --cookie-key <key>        key of the session cookie (base64url of 32 bytes); repeatable: the first
                            encrypts, all decrypt (rotation). Prefer the variable. Without one, an
                            ephemeral key is made (sessions end when the process stops)
                                                                      [ESIGN_COOKIE_KEYS, comma-separated]
  --generate-cookie-key     print a new random cookie key and exit
  --print-csp               print the Content-Security-Policy sources a page with the elements needs
                            (connect-src: this proxy and the service; frame-src: the embedded pages),
                            from --base-url, --public-origin (or the loopback default), --allowed-origin
                            and --embed-origin, and exit
  --embed-origin <origin>   the origin of the service's embedded pages, for --print-csp (default: the
                            base URL's origin)                        [ESIGN_EMBED_ORIGIN]
  --framed-by <origin>      a site allowed to show the app inside its own frame (https://admin.shopify.com);
                            repeatable. Cookies become Partitioned; SameSite=None; Secure, and a framed
                            page claims its popup's sign-in by a one-time handoff; --print-csp adds
                            frame-ancestors naming exactly these        [ESIGN_FRAMED_BY, comma-separated]
  --cookie-domain <domain>  Domain attribute of the session cookie (default: none)
                                                                      [ESIGN_COOKIE_DOMAIN]
  --session-max-age <s>     absolute lifetime of a session in seconds (default 2592000, 30 days)
                                                                      [ESIGN_SESSION_MAX_AGE]
  --session-idle <s>        a session unused this long ends (default 86400, 24 hours)
                                                                      [ESIGN_SESSION_IDLE]
  --base-path <path>        serve under a path prefix, e.g. /api/esign  [ESIGN_BASE_PATH]
  --browser-held-refresh-tokens
                            also serve requests without a session the old way, returning refresh
                            tokens to the browser (opt-in; weaker)    [ESIGN_BROWSER_HELD_REFRESH_TOKENS=1]
  --trusted-proxy <ip>      address of a reverse proxy / load balancer in front of this one whose
                            X-Forwarded-For is believed; repeatable   [ESIGN_TRUSTED_PROXIES, comma-separated]
  --store <url>             shared state for several replicas: memory (default, one process),
                            redis://host:port (Redis or Valkey; needs @redis/client), rediss:// (TLS),
                            or a Redis Cluster: redis-cluster://host:port[,host:port…]
                            (rediss-cluster:// with TLS)              [ESIGN_STORE]
                            an ACL user and password: in the URL (user:password@) or
                                                [ESIGN_STORE_USERNAME, ESIGN_STORE_PASSWORD]
  --store-ca-file <path>    TLS: the CA certificate (PEM) Redis's certificate must chain to
                            (default the system's)                    [ESIGN_STORE_CA_FILE]
  --store-tls-server-name <name>
                            TLS: the name Redis's certificate must carry (default the URL's host)
                                                                      [ESIGN_STORE_TLS_SERVER_NAME]
  --issuer <url>            read the authorization, token and revocation endpoints from this issuer's
                            RFC 8414 metadata (explicit endpoints win); an authorization answer's iss
                            must name it (always, when the metadata says the server sends one)
                                                                      [ESIGN_ISSUER]
  --token-endpoint <url>    default <base-url>/openapi/v1/oauth/token  [ESIGN_TOKEN_ENDPOINT]
  --revocation-endpoint <url>
                            default <base-url>/openapi/v1/oauth/revoke [ESIGN_REVOCATION_ENDPOINT]
  --client-auth post|basic  how the secret is sent (default post)     [ESIGN_CLIENT_AUTH]
  --rate-limit <n>|off      requests per minute per caller (session, else client address);
                            default 60                                [ESIGN_RATE_LIMIT]
  --timeout-ms <n>          how long the service may take to answer (default 10000) [ESIGN_TIMEOUT_MS]
  --refresh-replay-ms <n>   how long a refresh answer is kept for the same session presenting the same
                            refresh token again (default 10000; 0 turns it off) [ESIGN_REFRESH_REPLAY_MS]
  --store-prefix <prefix>   prefix of every Redis key (default esign-proxy:) [ESIGN_STORE_PREFIX]
  --store-timeout-ms <n>    a Redis command not answered within this is a 503 (default 1000)
                                                                      [ESIGN_STORE_TIMEOUT_MS]
  --login-timeout <s>       how long a sign-in may take, login route to callback (default 600)
                                                                      [ESIGN_LOGIN_TIMEOUT]
  --max-body-bytes <n>      request body limit (default 8192)         [ESIGN_MAX_BODY_BYTES]
  --max-upstream-bytes <n>  limit of the service's answers (default 65536) [ESIGN_MAX_UPSTREAM_BYTES]
  --no-same-origin          refuse an Origin equal to the request's own unless it is listed in
                            --allowed-origin                          [ESIGN_ALLOW_SAME_ORIGIN=0]
  --trust-request-id        believe any incoming X-Request-Id (default: only from --trusted-proxy
                            addresses; otherwise a new id is made)    [ESIGN_TRUST_REQUEST_ID=1]
  --log-level <level>       debug, info (default), warn, error or silent: one JSON line per request
                            on stdout (never a token, code, cookie, key or secret) [ESIGN_LOG_LEVEL]
  --metrics-port <n>        serve Prometheus metrics at GET /metrics on this port (0: a free one);
                            off by default                            [ESIGN_METRICS_PORT]
  --metrics-host <host>     default: --host                           [ESIGN_METRICS_HOST]
  --shutdown-timeout-ms <n> on SIGTERM/SIGINT, how long requests in flight may take to finish before
                            they are cut (default --timeout-ms + 5000) [ESIGN_SHUTDOWN_TIMEOUT_MS]
  --port <n>                default 4020                              [ESIGN_PORT, PORT]
  --host <host>             default 127.0.0.1                         [ESIGN_HOST, HOST]
  --static <dir>            also serve the files of <dir> at / (a static page beside its proxy, one
                            origin: the session cookie needs no CORS); development and simple sites
                                                                      [ESIGN_STATIC_DIR]
  -h, --help                show this help

Also served: GET <base-path>/health (200 while the process runs) and GET <base-path>/ready (200 when
the store answers, 503 with the reason otherwise); every answer carries X-Request-Id. On SIGTERM or
SIGINT the server stops accepting, finishes the requests in flight, then closes the store and exits 0.

Example (local emulator):
  ESIGN_CLIENT_SECRET=demo-secret ESIGN_COOKIE_KEYS=$(esign-token-proxy --generate-cookie-key) \\
    esign-token-proxy --client-id demo-client --base-url http://127.0.0.1:4010 \\
    --allowed-origin http://localhost:6006
  (register http://localhost:4020/callback as a redirect URI of the app; the emulator started with
  --dev accepts any loopback one)
`;

export function list(values: string[] | undefined, env: string | undefined): string[] {
  if (values && values.length > 0)
    return values
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
  return (env ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The flags as given, or why they could not be read (an unknown flag, a missing value). */
export function parseCli(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'base-url': { type: 'string' },
        'allowed-origin': { type: 'string', multiple: true },
        'redirect-uri': { type: 'string', multiple: true },
        'public-origin': { type: 'string' },
        'authorization-endpoint': { type: 'string' },
        'session-idle': { type: 'string' },
        'cookie-key': { type: 'string', multiple: true },
        'generate-cookie-key': { type: 'boolean' },
        'print-csp': { type: 'boolean' },
        'embed-origin': { type: 'string' },
        'cookie-domain': { type: 'string' },
        'framed-by': { type: 'string', multiple: true },
        'session-max-age': { type: 'string' },
        'base-path': { type: 'string' },
        'browser-held-refresh-tokens': { type: 'boolean' },
        'trusted-proxy': { type: 'string', multiple: true },
        store: { type: 'string' },
        static: { type: 'string' },
        issuer: { type: 'string' },
        'token-endpoint': { type: 'string' },
        'revocation-endpoint': { type: 'string' },
        'client-auth': { type: 'string' },
        'refresh-replay-ms': { type: 'string' },
        'rate-limit': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'store-prefix': { type: 'string' },
        'store-timeout-ms': { type: 'string' },
        'store-ca-file': { type: 'string' },
        'store-tls-server-name': { type: 'string' },
        'login-timeout': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'max-upstream-bytes': { type: 'string' },
        'no-same-origin': { type: 'boolean' },
        'trust-request-id': { type: 'boolean' },
        'log-level': { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-host': { type: 'string' },
        'shutdown-timeout-ms': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export type CliValues = Exclude<ReturnType<typeof parseCli>, { error: string }>['values'];

/** What `serve` needs: the server's options (the store is opened from its URL by the caller), or every mistake found. */
export interface ServeCli {
  options: Omit<ServeTokenProxyOptions, 'store'>;
  storeUrl: string;
  storePrefix: string | undefined;
  storeTimeoutMs: number | undefined;
  /** TLS and ACL settings of a Redis store (the password only from the URL or the environment). */
  storeCaFile: string | undefined;
  storeTlsServerName: string | undefined;
  storeUsername: string | undefined;
  storePassword: string | undefined;
  /** No cookie key was configured: one made for this process only. */
  ephemeralKey: boolean;
  /** How long a clean shutdown may take. */
  shutdownMs: number;
}

export function readServeOptions(values: CliValues, env: NodeJS.ProcessEnv): ServeCli | { problems: string[] } {
  const clientAuth = values['client-auth'] ?? env.ESIGN_CLIENT_AUTH ?? 'post';
  const portText = values.port ?? env.ESIGN_PORT ?? env.PORT ?? '4020';
  const port = Number(portText);
  const problems: string[] = [];
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`--port must be 0..65535, got ${JSON.stringify(portText)}`);
  if (clientAuth !== 'post' && clientAuth !== 'basic') problems.push("--client-auth must be 'post' or 'basic'");
  const replayText = values['refresh-replay-ms'] ?? env.ESIGN_REFRESH_REPLAY_MS;
  if (replayText !== undefined && !/^\d{1,9}$/.test(replayText))
    problems.push(`--refresh-replay-ms must be a whole number of milliseconds, got ${JSON.stringify(replayText)}`);
  const rateText = values['rate-limit'] ?? env.ESIGN_RATE_LIMIT;
  if (rateText !== undefined && rateText !== 'off' && !/^[1-9]\d{0,8}$/.test(rateText))
    problems.push(`--rate-limit must be a number of requests per minute or off, got ${JSON.stringify(rateText)}`);
  const timeoutText = values['timeout-ms'] ?? env.ESIGN_TIMEOUT_MS;
  if (timeoutText !== undefined && !/^[1-9]\d{0,8}$/.test(timeoutText))
    problems.push(`--timeout-ms must be a whole number of milliseconds, got ${JSON.stringify(timeoutText)}`);
  const maxAgeText = values['session-max-age'] ?? env.ESIGN_SESSION_MAX_AGE;
  if (maxAgeText !== undefined && !/^[1-9]\d{0,9}$/.test(maxAgeText))
    problems.push(`--session-max-age must be a whole number of seconds, got ${JSON.stringify(maxAgeText)}`);
  const idleText = values['session-idle'] ?? env.ESIGN_SESSION_IDLE;
  if (idleText !== undefined && !/^[1-9]\d{0,9}$/.test(idleText))
    problems.push(`--session-idle must be a whole number of seconds, got ${JSON.stringify(idleText)}`);
  const count = (flag: string, text: string | undefined, what: string): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^[1-9]\d{0,9}$/.test(text)) problems.push(`${flag} must be ${what}, got ${JSON.stringify(text)}`);
    return Number(text);
  };
  const loginTimeout = count('--login-timeout', values['login-timeout'] ?? env.ESIGN_LOGIN_TIMEOUT, 'a whole number of seconds');
  const maxBodyBytes = count('--max-body-bytes', values['max-body-bytes'] ?? env.ESIGN_MAX_BODY_BYTES, 'a whole number of bytes');
  const maxUpstreamBytes = count('--max-upstream-bytes', values['max-upstream-bytes'] ?? env.ESIGN_MAX_UPSTREAM_BYTES, 'a whole number of bytes');
  const storeTimeoutMs = count('--store-timeout-ms', values['store-timeout-ms'] ?? env.ESIGN_STORE_TIMEOUT_MS, 'a whole number of milliseconds');
  const shutdownMs = count('--shutdown-timeout-ms', values['shutdown-timeout-ms'] ?? env.ESIGN_SHUTDOWN_TIMEOUT_MS, 'a whole number of milliseconds');
  const metricsPortText = values['metrics-port'] ?? env.ESIGN_METRICS_PORT;
  if (metricsPortText !== undefined && (!/^\d{1,5}$/.test(metricsPortText) || Number(metricsPortText) > 65_535))
    problems.push(`--metrics-port must be 0..65535, got ${JSON.stringify(metricsPortText)}`);
  const logLevel = (values['log-level'] ?? env.ESIGN_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const flag = (value: boolean | undefined, envText: string | undefined, name: string, fallback: boolean): boolean => {
    if (value !== undefined) return value;
    if (envText === undefined || envText === '') return fallback;
    if (/^(1|true|yes|on)$/i.test(envText)) return true;
    if (/^(0|false|no|off)$/i.test(envText)) return false;
    problems.push(`${name} must be 1 or 0 (true/false), got ${JSON.stringify(envText)}`);
    return fallback;
  };
  const allowSameOrigin = values['no-same-origin'] === true ? false : flag(undefined, env.ESIGN_ALLOW_SAME_ORIGIN, 'ESIGN_ALLOW_SAME_ORIGIN', true);
  const trustRequestId = flag(values['trust-request-id'], env.ESIGN_TRUST_REQUEST_ID, 'ESIGN_TRUST_REQUEST_ID', false);
  const storeUrl = values.store ?? env.ESIGN_STORE ?? 'memory';
  if (storeUrl !== 'memory' && !/^(rediss?|valkeys?)(-cluster)?:\/\/[^/\s]/i.test(storeUrl))
    problems.push('--store must be memory, a redis:// (rediss://, valkey://) URL or a redis-cluster://host:port[,host:port…] URL');
  const trustedProxies = list(values['trusted-proxy'], env.ESIGN_TRUSTED_PROXIES);
  for (const address of trustedProxies) {
    if (isIP(address.replace(/^\[|\]$/g, '')) === 0) problems.push(`--trusted-proxy must be an IP address, got ${JSON.stringify(address)}`);
  }
  const clientId = values['client-id'] ?? env.ESIGN_CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.ESIGN_CLIENT_SECRET;
  const baseUrl = values['base-url'] ?? env.ESIGN_BASE_URL;
  if (!clientId) problems.push('missing --client-id (or ESIGN_CLIENT_ID)');
  if (!clientSecret) problems.push('missing ESIGN_CLIENT_SECRET (or --client-secret)');
  if (!baseUrl) problems.push('missing --base-url (or ESIGN_BASE_URL)');
  const allowedOrigins = list(values['allowed-origin'], env.ESIGN_ALLOWED_ORIGINS);
  const redirectUris = list(values['redirect-uri'], env.ESIGN_REDIRECT_URIS);
  const framedBy = list(values['framed-by'], env.ESIGN_FRAMED_BY);
  const browserHeld = flag(values['browser-held-refresh-tokens'], env.ESIGN_BROWSER_HELD_REFRESH_TOKENS, 'ESIGN_BROWSER_HELD_REFRESH_TOKENS', false);
  if (browserHeld && redirectUris.length === 0)
    problems.push('the browser-held mode needs --redirect-uri (or ESIGN_REDIRECT_URIS): the pages that receive the code');
  if (problems.length > 0) return { problems };
  const publicOrigin = values['public-origin'] ?? env.ESIGN_PUBLIC_ORIGIN;
  const authorizationEndpoint = values['authorization-endpoint'] ?? env.ESIGN_AUTHORIZATION_ENDPOINT;
  const configuredKeys = list(values['cookie-key'], env.ESIGN_COOKIE_KEYS);
  const ephemeralKey = configuredKeys.length === 0;
  const cookieKeys = ephemeralKey ? [generateCookieKey()] : configuredKeys;
  const basePath = values['base-path'] ?? env.ESIGN_BASE_PATH ?? '';
  return {
    options: {
      clientId: clientId!,
      clientSecret: clientSecret!,
      baseUrl: baseUrl!,
      allowedOrigins,
      redirectUris,
      ...(publicOrigin ? { publicOrigin } : {}),
      ...(authorizationEndpoint ? { authorizationEndpoint } : {}),
      cookieKeys,
      browserHeldRefreshTokens: browserHeld,
      trustedProxies,
      basePath,
      ...(framedBy.length > 0 ? { framedBy } : {}),
      ...((values['cookie-domain'] ?? env.ESIGN_COOKIE_DOMAIN) ? { cookieDomain: values['cookie-domain'] ?? env.ESIGN_COOKIE_DOMAIN } : {}),
      ...((values.issuer ?? env.ESIGN_ISSUER) ? { issuer: values.issuer ?? env.ESIGN_ISSUER } : {}),
      tokenEndpoint: values['token-endpoint'] ?? env.ESIGN_TOKEN_ENDPOINT,
      revocationEndpoint: values['revocation-endpoint'] ?? env.ESIGN_REVOCATION_ENDPOINT,
      clientAuth: clientAuth as 'post' | 'basic',
      ...(replayText !== undefined ? { refreshReplayMs: Number(replayText) } : {}),
      ...(rateText !== undefined ? { rateLimit: rateText === 'off' ? false : { windowMs: 60_000, max: Number(rateText) } } : {}),
      ...(timeoutText !== undefined ? { timeoutMs: Number(timeoutText) } : {}),
      ...(maxAgeText !== undefined ? { sessionMaxAgeSeconds: Number(maxAgeText) } : {}),
      ...(idleText !== undefined ? { sessionIdleSeconds: Number(idleText) } : {}),
      ...(loginTimeout !== undefined ? { loginTimeoutSeconds: loginTimeout } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(maxUpstreamBytes !== undefined ? { maxUpstreamBytes } : {}),
      allowSameOrigin,
      trustRequestId,
      logLevel,
      ...(metricsPortText !== undefined ? { metricsPort: Number(metricsPortText) } : {}),
      ...((values['metrics-host'] ?? env.ESIGN_METRICS_HOST) ? { metricsHost: values['metrics-host'] ?? env.ESIGN_METRICS_HOST } : {}),
      port,
      host: values.host ?? env.ESIGN_HOST ?? env.HOST ?? '127.0.0.1',
      ...((values.static ?? env.ESIGN_STATIC_DIR) ? { staticDir: values.static ?? env.ESIGN_STATIC_DIR } : {}),
    },
    storeUrl,
    storePrefix: values['store-prefix'] ?? env.ESIGN_STORE_PREFIX,
    storeTimeoutMs,
    storeCaFile: values['store-ca-file'] ?? env.ESIGN_STORE_CA_FILE,
    storeTlsServerName: values['store-tls-server-name'] ?? env.ESIGN_STORE_TLS_SERVER_NAME,
    storeUsername: env.ESIGN_STORE_USERNAME || undefined,
    storePassword: env.ESIGN_STORE_PASSWORD || undefined,
    ephemeralKey,
    shutdownMs: shutdownMs ?? defaultShutdownMs(timeoutText !== undefined ? Number(timeoutText) : undefined),
  };
}
