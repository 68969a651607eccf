/**
 * The proxy's options read from environment variables of the CLI's names (`ESIGN_CLIENT_ID`, `ESIGN_COOKIE_KEYS`, …:
 * `esign-token-proxy --help`), for a proxy mounted in a framework's or runtime's server. Runtime-free: the caller
 * hands in its environment (`process.env`, a Worker's bindings, `Deno.env.toObject()`, SvelteKit's `$env/dynamic/private`).
 * The store, `clientAddress` and `onEvent` are code, not text: pass them as `extra`.
 */
import type { TokenProxyOptions } from './config.js';

/** The proxy's options from `env` (values that are not strings are ignored), with `extra` on top; checked by `createTokenProxy`. */
export function tokenProxyOptionsFromEnv(env: object, extra: Partial<TokenProxyOptions> = {}): TokenProxyOptions {
  const text = (name: string): string | undefined => {
    const value = (env as Record<string, unknown>)[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const list = (name: string): string[] | undefined =>
    text(name)
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  // a number the checks then judge (a malformed one becomes NaN, which createTokenProxy names as a mistake)
  const number = (name: string): number | undefined => (text(name) === undefined ? undefined : Number(text(name)));
  const flag = (name: string): boolean | undefined => (text(name) === undefined ? undefined : /^(1|true|yes|on)$/i.test(text(name)!));
  const rate = text('ESIGN_RATE_LIMIT');
  const options: Record<string, unknown> = {
    clientId: text('ESIGN_CLIENT_ID') ?? '',
    clientSecret: text('ESIGN_CLIENT_SECRET') ?? '',
    baseUrl: text('ESIGN_BASE_URL') ?? '',
    allowedOrigins: list('ESIGN_ALLOWED_ORIGINS') ?? [],
    publicOrigin: text('ESIGN_PUBLIC_ORIGIN'),
    cookieKeys: list('ESIGN_COOKIE_KEYS'),
    basePath: text('ESIGN_BASE_PATH'),
    redirectUris: list('ESIGN_REDIRECT_URIS'),
    browserHeldRefreshTokens: flag('ESIGN_BROWSER_HELD_REFRESH_TOKENS'),
    trustedProxies: list('ESIGN_TRUSTED_PROXIES'),
    cookieDomain: text('ESIGN_COOKIE_DOMAIN'),
    framedBy: list('ESIGN_FRAMED_BY'),
    issuer: text('ESIGN_ISSUER'),
    authorizationEndpoint: text('ESIGN_AUTHORIZATION_ENDPOINT'),
    tokenEndpoint: text('ESIGN_TOKEN_ENDPOINT'),
    revocationEndpoint: text('ESIGN_REVOCATION_ENDPOINT'),
    clientAuth: text('ESIGN_CLIENT_AUTH'),
    rateLimit: rate === undefined ? undefined : rate === 'off' ? false : { windowMs: 60_000, max: Number(rate) },
    timeoutMs: number('ESIGN_TIMEOUT_MS'),
    refreshReplayMs: number('ESIGN_REFRESH_REPLAY_MS'),
    sessionMaxAgeSeconds: number('ESIGN_SESSION_MAX_AGE'),
    sessionIdleSeconds: number('ESIGN_SESSION_IDLE'),
    loginTimeoutSeconds: number('ESIGN_LOGIN_TIMEOUT'),
    maxBodyBytes: number('ESIGN_MAX_BODY_BYTES'),
    maxUpstreamBytes: number('ESIGN_MAX_UPSTREAM_BYTES'),
    allowSameOrigin: flag('ESIGN_ALLOW_SAME_ORIGIN'),
    trustRequestId: flag('ESIGN_TRUST_REQUEST_ID'),
  };
  for (const [name, value] of Object.entries(options)) if (value === undefined) delete options[name];
  return { ...(options as unknown as TokenProxyOptions), ...extra };
}
