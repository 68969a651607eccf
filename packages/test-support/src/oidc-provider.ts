/**
 * panva's oidc-provider, started in-process on a free loopback port as a second, standards OAuth 2.0
 * authorization server (not our emulator): its own default routes (/auth, /token, /token/revocation,
 * /token/introspection), PKCE required (S256), refresh-token rotation, one confidential client
 * (client_secret_post) and its development login/consent pages. Plain OAuth 2.0 scopes, no openid: the
 * API scopes belong to one resource server (RFC 8707 resource indicators, the provider's way of issuing
 * access tokens that are not for its own userinfo endpoint).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Provider, type Configuration } from 'oidc-provider';

/** The resource server (our API) the scopes belong to; every access token is issued for it. */
export const API_RESOURCE = 'urn:esign-elements:api';
export const API_SCOPES = 'envelope:create envelope:read';

export interface StandardsServerOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface StandardsServer {
  /** e.g. http://127.0.0.1:43123 (no trailing slash): the `iss` of its authorization responses. */
  issuer: string;
  provider: Provider;
  /** Counts of the provider's own events (e.g. `refresh_token.consumed`, `grant.revoked`). */
  events: Map<string, number>;
  /** RFC 7662 introspection as the confidential client. */
  introspect(token: string, hint?: 'access_token' | 'refresh_token'): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The provider configuration used by test/e2e/oauth-server.test.ts and shown in docs/oauth-servers.md. */
export function standardsConfiguration(options: StandardsServerOptions): Configuration {
  return {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    // rotation: every refresh_token grant consumes the presented refresh token and issues a new one
    rotateRefreshToken: true,
    // a refresh token for every code exchange of a client allowed the grant, without offline_access/consent
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    scopes: [],
    features: {
      devInteractions: { enabled: true },
      // the client may introspect and revoke only its own tokens
      introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        // a refresh without `resource` keeps the resource the grant was given for
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== API_RESOURCE) throw new Error(`unknown resource ${resource}`);
          return { scope: API_SCOPES, audience: API_RESOURCE, accessTokenFormat: 'opaque', accessTokenTTL: 3600 };
        },
      },
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 300,
      Grant: 14 * 24 * 3600,
      Interaction: 600,
      RefreshToken: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
    },
    cookies: { keys: ['oidc-provider-test-cookie-key-not-secret'] },
  };
}

export async function startStandardsServer(options: StandardsServerOptions): Promise<StandardsServer> {
  // bind first so the issuer (with its port) is known before the provider is made
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, standardsConfiguration(options));
  const events = new Map<string, number>();
  const names = [
    'refresh_token.consumed',
    'refresh_token.saved',
    'refresh_token.destroyed',
    'grant.revoked',
    'access_token.saved',
    'authorization_code.consumed',
    'grant.success',
    'revocation.error',
    'grant.error',
  ] as const;
  for (const name of names) {
    (provider.on as (event: string, listener: () => void) => Provider)(name, () => events.set(name, (events.get(name) ?? 0) + 1));
  }
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- oidc-provider's listener answers its own errors
  server.on('request', provider.callback());
  return {
    issuer,
    provider,
    events,
    async introspect(token, hint) {
      const body = new URLSearchParams({ token, client_id: options.clientId, client_secret: options.clientSecret });
      if (hint) body.set('token_type_hint', hint);
      const response = await fetch(`${issuer}/token/introspection`, { method: 'POST', body });
      if (response.status !== 200) throw new Error(`introspection answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
