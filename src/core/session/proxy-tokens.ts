/**
 * The default token backend: the token proxy is a token-mediating backend (RFC 10017). It runs the sign-in
 * (proxy-login.ts), keeps the refresh token in an encrypted HttpOnly cookie of its own, and hands this page
 * short-lived access tokens only. Plain fetch calls; no OAuth library in the page.
 * The wire protocol is docs/proxy.md's "token-mediating mode".
 */
import { EsignError } from '@esign-elements/shared/errors';
import { createState } from '../random.js';
import { callProxy, postForm, type TokenBackend, type TokenSet } from './tokens.js';

export interface ProxyTokenConfig {
  clientId: string;
  /** Absolute URL of the proxy's token route. */
  tokenEndpoint: string;
  /** Absolute URL of the proxy's revocation route. */
  revocationEndpoint: string;
  /** The session's slot at the proxy: one cookie per slot, so sessions side by side never overwrite each other. */
  slot: string;
  /** Designated Space Mode: the Space the session must be bound to. */
  spaceId?: string | undefined;
}

/** The proxy's slot for a session: `open` (Open Mode) or `space:<id>` (Designated Space Mode). */
export function proxySlot(spaceId: string | undefined): string {
  return spaceId ? `space:${spaceId}` : 'open';
}

/** Retries of one refresh whose answer did not arrive (the same request id: the proxy replays what it already rotated). */
const RETRY_DELAYS_MS = [250, 1_000];

export class ProxyTokens implements TokenBackend {
  readonly holder = 'proxy' as const;
  readonly #config: ProxyTokenConfig;

  constructor(config: ProxyTokenConfig) {
    this.#config = config;
  }

  /**
   * An access token from the proxy's cookie session. Each refresh carries a random request id kept in memory for its
   * retries only: if the answer is lost after the proxy rotated the refresh token, the retry gets the same tokens (a
   * copy of the cookie without the id gets only the access token). A request that lost a race with another page of
   * the session gets that page's new access token from the proxy; a proxy before issue 35 answered 409 instead
   * (the browser holds the new cookie by then, so the same request goes again).
   */
  async refresh({ force }: { force: boolean }): Promise<TokenSet> {
    const form: Record<string, string> = { grant_type: 'refresh_token', request_id: createState().slice(0, 32) };
    if (force) form['force'] = '1';
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#post(this.#config.tokenEndpoint, 'refresh_failed', form);
      } catch (cause) {
        const error = EsignError.from(cause, 'refresh_failed');
        const again =
          error.code === 'network_error' ||
          error.serviceCode === 'refresh_conflict' ||
          (error.serviceCode === 'temporarily_unavailable' && (error.status ?? 0) >= 502);
        if (!again || attempt >= RETRY_DELAYS_MS.length) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  async revoke(): Promise<void> {
    await postForm(this.#config.revocationEndpoint, 'revoke_failed', this.#fields({}));
  }

  async #post(url: string, code: 'refresh_failed', form: Record<string, string>): Promise<TokenSet> {
    const tokens = await callProxy(url, code, this.#fields(form));
    if (tokens.refreshToken !== undefined) {
      // a proxy in browser-held mode answered a mediated request: never keep what the page must not hold
      throw new EsignError('invalid_config', 'The token proxy returned a refresh token to the browser. Configure it in token-mediating mode (the default).');
    }
    return tokens;
  }

  #fields(form: Record<string, string>): URLSearchParams {
    const fields = new URLSearchParams({ ...form, session: this.#config.slot, client_id: this.#config.clientId });
    if (this.#config.spaceId) fields.set('space_id', this.#config.spaceId);
    return fields;
  }
}
