/**
 * The opt-in token backend (`refresh-tokens="browser"`): the page holds the refresh token, as a public
 * client whose token calls go through the proxy (which adds the client_secret, calls the service with
 * oauth4webapi and checks its answer). The answers are checked here as any OAuth client checks them
 * (callProxy). Loaded only when chosen.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { callProxy, postForm, type ExchangeInput, type TokenBackend, type TokenSet } from './tokens.js';

export interface BrowserTokenConfig {
  clientId: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
}

export class BrowserTokens implements TokenBackend {
  readonly holder = 'browser' as const;
  readonly #config: BrowserTokenConfig;

  constructor(config: BrowserTokenConfig) {
    this.#config = config;
  }

  exchange({ params, redirectUri, codeVerifier }: ExchangeInput): Promise<TokenSet> {
    const code = params.get('code');
    if (!code) return Promise.reject(new EsignError('oauth_error', 'The authorization response has no code.'));
    const form: Record<string, string> = { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri };
    // RFC 9207: the `iss` the sign-in checked goes along, so the proxy can redeem the code at a server that sends one
    const iss = params.get('iss');
    if (iss !== null) form['iss'] = iss;
    return callProxy(this.#config.tokenEndpoint, 'token_exchange_failed', this.#fields(form));
  }

  refresh({ refreshToken }: { refreshToken?: string | undefined; force: boolean }): Promise<TokenSet> {
    if (!refreshToken) return Promise.reject(new EsignError('session_expired', 'The session expired and cannot be renewed: connect again.'));
    return callProxy(this.#config.tokenEndpoint, 'refresh_failed', this.#fields({ grant_type: 'refresh_token', refresh_token: refreshToken }));
  }

  async revoke({ refreshToken, accessToken }: { refreshToken?: string | undefined; accessToken?: string | undefined }): Promise<void> {
    const token = refreshToken ?? accessToken;
    if (!token) return;
    await postForm(this.#config.revocationEndpoint, 'revoke_failed', this.#fields({ token, token_type_hint: refreshToken ? 'refresh_token' : 'access_token' }));
  }

  #fields(form: Record<string, string>): URLSearchParams {
    return new URLSearchParams({ ...form, client_id: this.#config.clientId });
  }
}
