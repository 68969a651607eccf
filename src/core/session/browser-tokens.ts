/**
 * The opt-in token backend (`refresh-tokens="browser"`): the page holds the refresh token, as a public
 * client whose token calls go through the proxy (which adds the client_secret). Loaded only when chosen,
 * so pages in the default mode never load an OAuth client library.
 */
// named imports, so any bundler keeps only these
import {
  allowInsecureRequests,
  authorizationCodeGrantRequest,
  None,
  OperationProcessingError,
  processAuthorizationCodeResponse,
  processRefreshTokenResponse,
  processRevocationResponse,
  refreshTokenGrantRequest,
  ResponseBodyError,
  revocationRequest,
  validateAuthResponse,
  type AuthorizationServer,
  type Client,
  type TokenEndpointRequestOptions,
} from 'oauth4webapi';
import { EsignError, isAbortError } from '../errors.js';
import { tokenSetFrom, type ExchangeInput, type TokenBackend, type TokenSet } from './tokens.js';

export interface BrowserTokenConfig {
  clientId: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
}

export class BrowserTokens implements TokenBackend {
  readonly holder = 'browser' as const;
  readonly #as: AuthorizationServer;
  readonly #client: Client;
  readonly #http: TokenEndpointRequestOptions;

  constructor(config: BrowserTokenConfig) {
    this.#as = {
      issuer: config.issuer,
      authorization_endpoint: config.authorizationEndpoint,
      token_endpoint: config.tokenEndpoint,
      revocation_endpoint: config.revocationEndpoint,
    };
    this.#client = { client_id: config.clientId };
    const insecure = new URL(config.tokenEndpoint).protocol === 'http:';
    this.#http = {
      headers: { 'X-Esign-Proxy': '1' },
      // plain http is only accepted for loopback development (checked in validateConfig)
      ...(insecure ? { [allowInsecureRequests]: true } : {}),
    };
  }

  async exchange({ params, redirectUri, codeVerifier }: ExchangeInput): Promise<TokenSet> {
    let callbackParams: URLSearchParams;
    try {
      callbackParams = validateAuthResponse(this.#as, this.#client, params, params.get('state') ?? undefined);
    } catch (cause) {
      throw new EsignError('oauth_error', 'The authorization response is not valid.', { cause });
    }
    return call('token_exchange_failed', async () => {
      const response = await authorizationCodeGrantRequest(this.#as, this.#client, None(), callbackParams, redirectUri, codeVerifier, this.#http);
      return tokenSetFrom((await processAuthorizationCodeResponse(this.#as, this.#client, response)) as unknown as Record<string, unknown>);
    });
  }

  refresh({ refreshToken }: { refreshToken?: string | undefined; force: boolean }): Promise<TokenSet> {
    if (!refreshToken) return Promise.reject(new EsignError('session_expired', 'The session expired and cannot be renewed: connect again.'));
    return call('refresh_failed', async () => {
      const response = await refreshTokenGrantRequest(this.#as, this.#client, None(), refreshToken, this.#http);
      return tokenSetFrom((await processRefreshTokenResponse(this.#as, this.#client, response)) as unknown as Record<string, unknown>);
    });
  }

  async revoke({ refreshToken, accessToken }: { refreshToken?: string | undefined; accessToken?: string | undefined }): Promise<void> {
    const token = refreshToken ?? accessToken;
    if (!token) return;
    await call('revoke_failed', async () => {
      const response = await revocationRequest(this.#as, this.#client, None(), token, {
        ...this.#http,
        additionalParameters: { token_type_hint: refreshToken ? 'refresh_token' : 'access_token' },
      });
      await processRevocationResponse(response);
    });
  }
}

/** Runs a token request and its processing, any failure as an EsignError with `code`. */
async function call<T>(code: 'token_exchange_failed' | 'refresh_failed' | 'revoke_failed', run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw toTokenError(code, cause);
  }
}

function toTokenError(code: 'token_exchange_failed' | 'refresh_failed' | 'revoke_failed', cause: unknown): EsignError {
  if (cause instanceof EsignError) return cause;
  if (isAbortError(cause)) return new EsignError('aborted', 'The request was aborted.', { cause });
  if (cause instanceof ResponseBodyError) {
    const retryAfter = Number(cause.response.headers.get('retry-after')) || undefined;
    const options = { status: cause.status, serviceCode: cause.error, retryAfter, cause };
    if (cause.status === 429) return new EsignError('rate_limited', cause.error_description ?? 'Too many token requests; retry later.', options);
    if (code === 'refresh_failed' && cause.error === 'invalid_grant') {
      return new EsignError('session_expired', 'The session was revoked or expired: connect again.', options);
    }
    return new EsignError(code, cause.error_description ?? `The token service answered ${cause.error}.`, options);
  }
  if (cause instanceof OperationProcessingError) {
    const response = (cause.cause as { status?: unknown } | undefined) ?? undefined;
    const status = response && typeof response.status === 'number' ? response.status : undefined;
    return new EsignError(code, `The token proxy gave an unexpected answer${status ? ` (HTTP ${status})` : ''}.`, { status, cause });
  }
  if (cause instanceof TypeError) {
    return new EsignError('network_error', 'Could not reach the token proxy. Check the connection and the token-endpoint setting.', { cause });
  }
  return EsignError.from(cause, code);
}
