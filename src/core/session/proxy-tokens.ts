/**
 * The default token backend: the token proxy is a token-mediating backend (RFC 10017). It redeems the
 * code with the client_secret, keeps the refresh token in an encrypted HttpOnly cookie of its own, and
 * hands this page short-lived access tokens only. Plain fetch calls; no OAuth library in the page.
 * The wire protocol is docs/proxy.md's "token-mediating mode".
 */
import { EsignError } from '../errors.js';
import { callProxy, postForm, type ExchangeInput, type TokenBackend, type TokenSet } from './tokens.js';

export interface ProxyTokenConfig {
  clientId: string;
  /** Absolute URL of the proxy's token route. */
  tokenEndpoint: string;
  /** Absolute URL of the proxy's revocation route. */
  revocationEndpoint: string;
  redirectUri: string;
  /** The session's slot at the proxy: one cookie per slot, so sessions side by side never overwrite each other. */
  slot: string;
  /** Designated Space Mode: the Space the session must be bound to. */
  spaceId?: string | undefined;
}

/** The proxy's slot for a session: `open` (Open Mode) or `space:<id>` (Designated Space Mode). */
export function proxySlot(spaceId: string | undefined): string {
  return spaceId ? `space:${spaceId}` : 'open';
}

export class ProxyTokens implements TokenBackend {
  readonly holder = 'proxy' as const;
  readonly #config: ProxyTokenConfig;

  constructor(config: ProxyTokenConfig) {
    this.#config = config;
  }

  async exchange({ params, redirectUri, codeVerifier }: ExchangeInput): Promise<TokenSet> {
    const code = params.get('code');
    if (!code) throw new EsignError('oauth_error', 'The authorization response has no code.');
    try {
      const tokens = await this.#post(this.#config.tokenEndpoint, 'token_exchange_failed', {
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        redirect_uri: redirectUri,
      });
      // the refresh token stays in the proxy's cookie: prove that cookie comes back before calling this connected
      await this.refresh({ force: false });
      return tokens;
    } catch (cause) {
      const error = EsignError.from(cause, 'token_exchange_failed');
      // the proxy refused up front (the browser called it cross-site), or its cookie did not come back
      if (error.serviceCode === 'cookie_blocked' || error.serviceCode === 'session_missing') {
        throw new EsignError(
          'cookie_blocked',
          `The token proxy at ${new URL(this.#config.tokenEndpoint).origin} keeps the session in a cookie, and this browser does not send it back ` +
            '(the proxy is on another site than this page, and the browser blocks third-party cookies). Serve the token proxy from this ' +
            'page\'s own site (for example under /api/esign/ of the same domain), or opt into refresh-tokens="browser".',
          { status: error.status, serviceCode: error.serviceCode, cause: error },
        );
      }
      throw error;
    }
  }

  refresh({ force }: { force: boolean }): Promise<TokenSet> {
    const form: Record<string, string> = { grant_type: 'refresh_token', redirect_uri: this.#config.redirectUri };
    if (force) form['force'] = '1';
    return this.#post(this.#config.tokenEndpoint, 'refresh_failed', form);
  }

  async revoke(): Promise<void> {
    await this.#send(this.#config.revocationEndpoint, 'revoke_failed', {});
  }

  async #post(url: string, code: 'token_exchange_failed' | 'refresh_failed', form: Record<string, string>): Promise<TokenSet> {
    const tokens = await callProxy(url, code, this.#fields(form));
    if (tokens.refreshToken !== undefined) {
      // a proxy in browser-held mode answered a mediated request: never keep what the page must not hold
      throw new EsignError('invalid_config', 'The token proxy returned a refresh token to the browser. Configure it in token-mediating mode (the default).');
    }
    return tokens;
  }

  #send(url: string, code: 'revoke_failed', form: Record<string, string>): Promise<Record<string, unknown>> {
    return postForm(url, code, this.#fields(form));
  }

  #fields(form: Record<string, string>): URLSearchParams {
    const fields = new URLSearchParams({ ...form, session: this.#config.slot, client_id: this.#config.clientId });
    if (this.#config.spaceId) fields.set('space_id', this.#config.spaceId);
    return fields;
  }
}
