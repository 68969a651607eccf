/**
 * The calls to the service, as a confidential client through oauth4webapi (client_secret_post by default,
 * client_secret_basic as an option). A capturing `customFetch` under oauth4webapi enforces the proxy's
 * limits (whole answer within `timeoutMs`, at most `maxUpstreamBytes` read, redirects never followed) and keeps
 * the raw answer, so failures map to the proxy's answers (502/504/429, the service's errors as their code and
 * RequestId only) and a success keeps the service's own fields (e.g. `space_id`, `token_type` as sent).
 */
import * as oauth from 'oauth4webapi';
import { isRecord } from '@esign-elements/shared';
import { isAllowedServiceUrl } from '@esign-elements/shared';
import { sanitizeTokenResponse, serviceError, unavailable, type Answer, type TokenResult } from './upstream-answer.js';
import { fetchWithin, isRedirectFailure } from './upstream-read.js';

export interface UpstreamConfig {
  clientId: string;
  clientSecret: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  clientAuth: 'post' | 'basic';
  timeoutMs: number;
  maxUpstreamBytes: number;
  fetch: typeof fetch | undefined;
  /**
   * RFC 8414: read the endpoints from `${issuer}/.well-known/oauth-authorization-server` (once, on first use);
   * an endpoint given explicitly wins over the metadata's.
   */
  issuer?: string | undefined;
  tokenEndpointSet?: boolean;
  revocationEndpointSet?: boolean;
  /** The authorization page (the default mode's login route sends the browser there). */
  authorizationEndpoint?: string;
  authorizationEndpointSet?: boolean;
}

/** Where the default mode's login route sends the browser, and how the callback checks the answer's `iss` (RFC 9207). */
export interface AuthorizationInfo {
  authorizationEndpoint: string;
  issuer: string;
  /** The server says it always sends `iss` (metadata `authorization_response_iss_parameter_supported`): an answer without it is refused. */
  issRequired: boolean;
}

interface Raw {
  status: number;
  contentType: string;
  retryAfter: string | null;
  text: string;
}

type Failure = 'timeout' | 'unreachable' | 'oversized' | 'redirected';

/** What oauth4webapi's request functions get back: they return it unread, so one object serves every call. */
let neutralAnswer: Response | undefined;

/**
 * A token answer already read and parsed (within the limits, by #call), handed to oauth4webapi's check as the
 * Response it expects: its JSON is the parsed object (a copy: the check normalizes fields in place), so no body
 * stream is built to serialize and parse it again. Status 200, `application/json`; the check reads nothing else.
 */
let ReadAnswer: new (json: Record<string, unknown>) => Response;
function readAnswer(json: Record<string, unknown>): Response {
  // defined on first use: under @hono/node-server the global Response is replaced when the server starts
  ReadAnswer ??= class extends Response {
    readonly #json: Record<string, unknown>;
    constructor(parsed: Record<string, unknown>) {
      super(null, { status: 200, headers: { 'content-type': 'application/json' } });
      this.#json = parsed;
    }
    override get bodyUsed(): boolean {
      return false;
    }
    override json(): Promise<Record<string, unknown>> {
      return Promise.resolve(this.#json);
    }
  };
  return new ReadAnswer(json);
}

interface Server {
  as: oauth.AuthorizationServer;
  /** Plain http only to loopback (checked by the configuration and for metadata): the emulator in development. */
  insecure: boolean;
}

function serverOf(issuer: string, tokenEndpoint: string, revocationEndpoint: string, authorizationEndpoint?: string, issSupported = false): Server {
  return {
    as: {
      issuer,
      token_endpoint: tokenEndpoint,
      revocation_endpoint: revocationEndpoint,
      ...(authorizationEndpoint ? { authorization_endpoint: authorizationEndpoint } : {}),
      ...(issSupported ? { authorization_response_iss_parameter_supported: true } : {}),
    },
    insecure: new URL(tokenEndpoint).protocol === 'http:' || new URL(revocationEndpoint).protocol === 'http:',
  };
}

export class Upstream {
  readonly #config: UpstreamConfig;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  /** The endpoints: fixed, or read from the issuer's metadata (a failed read is tried again next time). */
  #server: Server | Promise<Server | Answer> | undefined;

  constructor(config: UpstreamConfig) {
    this.#config = config;
    this.#client = { client_id: config.clientId };
    this.#auth = config.clientAuth === 'basic' ? oauth.ClientSecretBasic(config.clientSecret) : oauth.ClientSecretPost(config.clientSecret);
    if (!config.issuer) {
      this.#server = serverOf(new URL(config.tokenEndpoint).origin, config.tokenEndpoint, config.revocationEndpoint, config.authorizationEndpoint);
    }
  }

  /**
   * The authorization page and issuer for the default mode's sign-in (from the configuration, or the issuer's
   * metadata); an Answer (502) when the metadata cannot be read. Without an issuer option, the issuer is the base URL.
   */
  async authorization(baseIssuer: string): Promise<AuthorizationInfo | Answer> {
    const server = await this.#authorizationServer();
    if ('status' in server) return server;
    const endpoint = server.as.authorization_endpoint;
    if (typeof endpoint !== 'string' || !isAllowedServiceUrl(endpoint, { allowLoopbackHttp: true })) {
      return unavailable(502, 'The authorization server names no usable authorization endpoint.');
    }
    return {
      authorizationEndpoint: endpoint,
      issuer: this.#config.issuer ? server.as.issuer : baseIssuer,
      issRequired: server.as.authorization_response_iss_parameter_supported === true,
    };
  }

  /** The authorization server, or the answer to give when its metadata cannot be read (502). */
  async #authorizationServer(): Promise<Server | Answer> {
    if (this.#server && !(this.#server instanceof Promise)) return this.#server;
    this.#server ??= this.#discover();
    const server = await this.#server;
    if ('status' in server) {
      this.#server = undefined;
      return server;
    }
    this.#server = server;
    return server;
  }

  async #discover(): Promise<Server | Answer> {
    const config = this.#config;
    const issuer = new URL(config.issuer!);
    const failed = unavailable(502, 'The authorization server metadata (RFC 8414) could not be read.');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), config.timeoutMs);
    try {
      const baseFetch = config.fetch ?? globalThis.fetch;
      // oauth4webapi reads the answer it gets whole: it gets one already read within the limit
      const limitedFetch = async (url: string, init: RequestInit): Promise<Response> => {
        const { response, text } = await fetchWithin(baseFetch, url, init, config.maxUpstreamBytes);
        if (text === undefined) throw new Error('oversized');
        return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
      };
      const options: oauth.DiscoveryRequestOptions = { algorithm: 'oauth2', signal: controller.signal, [oauth.customFetch]: limitedFetch as typeof fetch };
      if (issuer.protocol === 'http:') options[oauth.allowInsecureRequests] = true;
      const read = async (algorithm: 'oauth2' | 'oidc'): Promise<oauth.AuthorizationServer> =>
        oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm }));
      // RFC 8414's well-known document first; servers that publish only OpenID Connect discovery have the same fields there
      const metadata = await read('oauth2').catch(() => read('oidc'));
      const token = config.tokenEndpointSet ? config.tokenEndpoint : metadata.token_endpoint;
      const revocation = config.revocationEndpointSet ? config.revocationEndpoint : (metadata.revocation_endpoint ?? config.revocationEndpoint);
      for (const url of [token, revocation]) {
        if (typeof url !== 'string' || !isAllowedServiceUrl(url, { allowLoopbackHttp: true })) return failed;
      }
      const authorization = config.authorizationEndpointSet ? config.authorizationEndpoint : (metadata.authorization_endpoint ?? config.authorizationEndpoint);
      return serverOf(metadata.issuer, token!, revocation, authorization, metadata.authorization_response_iss_parameter_supported === true);
    } catch {
      return failed;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * authorization_code grant. `iss`: the authorization response's (RFC 9207), checked here against the issuer (and
   * required when its metadata says it always sends one): wrong or missing is 400 `invalid_issuer`, nothing sent.
   * `signal`: the browser went away.
   */
  async exchangeCode(code: string, codeVerifier: string, redirectUri: string, signal?: AbortSignal, iss?: string): Promise<TokenResult> {
    const server = await this.#authorizationServer();
    if ('status' in server) return { ok: false, answer: server };
    const { as } = server;
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, this.#client, new URLSearchParams(iss === undefined ? { code } : { code, iss }), oauth.skipStateCheck);
    } catch {
      return {
        ok: false,
        answer: {
          status: 400,
          body: { error: 'invalid_issuer', error_description: "The authorization response's iss (RFC 9207) is missing or names another issuer." },
        },
      };
    }
    return this.#token(
      server,
      (options) => oauth.authorizationCodeGrantRequest(as, this.#client, this.#auth, params, redirectUri, codeVerifier, options),
      (response) => oauth.processAuthorizationCodeResponse(as, this.#client, response),
      signal,
    );
  }

  /** refresh_token grant (never cancelled by the browser: the service may rotate). */
  async refresh(refreshToken: string, scope: string | undefined): Promise<TokenResult> {
    const server = await this.#authorizationServer();
    if ('status' in server) return { ok: false, answer: server };
    const { as } = server;
    return this.#token(
      server,
      (options) =>
        oauth.refreshTokenGrantRequest(as, this.#client, this.#auth, refreshToken, scope ? { ...options, additionalParameters: { scope } } : options),
      (response) => oauth.processRefreshTokenResponse(as, this.#client, response),
      undefined,
    );
  }

  /** RFC 7009 revocation; `ok` when the service answered 200. */
  async revoke(token: string, hint: string | undefined, signal?: AbortSignal): Promise<{ ok: true } | { ok: false; answer: Answer }> {
    const server = await this.#authorizationServer();
    if ('status' in server) return { ok: false, answer: server };
    const { as } = server;
    const { raw, failure } = await this.#call(
      server,
      (options) =>
        oauth.revocationRequest(as, this.#client, this.#auth, token, hint ? { ...options, additionalParameters: { token_type_hint: hint } } : options),
      signal,
    );
    const checked = this.#check(raw, failure);
    if ('answer' in checked) return { ok: false, answer: checked.answer };
    if (raw!.status >= 200 && raw!.status < 300) return { ok: true };
    return { ok: false, answer: serviceError(raw!.status, checked.json, raw!.retryAfter, this.#config.clientSecret) };
  }

  async #token(
    server: Server,
    request: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
    process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
    signal: AbortSignal | undefined,
  ): Promise<TokenResult> {
    const { raw, failure } = await this.#call(server, request, signal);
    const checked = this.#check(raw, failure);
    // no answer, or the connection lost: the service may have processed the request (and rotated a refresh token)
    if ('answer' in checked)
      return failure === 'timeout' || failure === 'unreachable' || (!raw && failure !== 'redirected')
        ? { ok: false, answer: checked.answer, unknown: true }
        : { ok: false, answer: checked.answer };
    const { status } = raw!;
    const json = checked.json;
    if (status >= 200 && status < 300) {
      if (!isRecord(json)) return { ok: false, answer: unavailable(502, 'The service answered the token request without a token.') };
      // oauth4webapi checks the answer (access_token, token_type, expires_in, refresh_token, scope); an
      // id_token is not ours to validate (no OpenID Connect here) and is left out of that check
      const checkedCopy: Record<string, unknown> = { ...json };
      delete checkedCopy.id_token;
      try {
        await process(readAnswer(checkedCopy));
      } catch {
        // the service answered, and its answer was wrong: not an outage
        return {
          ok: false,
          answer: {
            status: 502,
            body: { error: 'invalid_token_response', error_description: 'The service answered the token request without a valid token.' },
          },
        };
      }
      return { ok: true, tokens: sanitizeTokenResponse(json, this.#config.clientSecret) };
    }
    return { ok: false, answer: serviceError(status, json, raw!.retryAfter, this.#config.clientSecret) };
  }

  /** Runs one oauth4webapi request through the capturing fetch. */
  async #call(
    server: Server,
    request: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
    signal: AbortSignal | undefined,
  ): Promise<{ raw?: Raw; failure?: Failure }> {
    const outcome: { raw?: Raw; failure?: Failure } = {};
    const config = this.#config;
    const baseFetch = config.fetch ?? globalThis.fetch;
    const capture = async (url: string, init: RequestInit): Promise<Response> => {
      try {
        const { response, text } = await fetchWithin(baseFetch, url, signal ? { ...init, signal } : init, config.maxUpstreamBytes, config.timeoutMs);
        if (text === undefined) {
          outcome.failure = 'oversized';
        } else {
          outcome.raw = {
            status: response.status,
            contentType: response.headers.get('content-type') ?? '',
            retryAfter: response.headers.get('retry-after'),
            text,
          };
        }
      } catch (error) {
        outcome.failure = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : isRedirectFailure(error) ? 'redirected' : 'unreachable';
      }
      // oauth4webapi gets a neutral answer (never read); the raw one is judged by #check
      return (neutralAnswer ??= new Response(null, { status: 400 }));
    };
    const options: oauth.TokenEndpointRequestOptions = { [oauth.customFetch]: capture as typeof fetch };
    if (server.insecure) options[oauth.allowInsecureRequests] = true;
    try {
      await request(options);
    } catch {
      if (!outcome.raw && !outcome.failure) outcome.failure = 'unreachable';
    }
    return outcome;
  }

  /** The raw answer as JSON, or the mapped failure. */
  #check(raw: Raw | undefined, failure: Failure | undefined): { json: unknown } | { answer: Answer } {
    const config = this.#config;
    if (failure === 'timeout' || (!raw && !failure)) return { answer: unavailable(504, `The service did not answer within ${config.timeoutMs} ms.`) };
    if (failure === 'unreachable') return { answer: unavailable(502, 'The service could not be reached.') };
    if (failure === 'redirected') return { answer: unavailable(502, 'The service answered with a redirect.') };
    if (failure === 'oversized' || !raw) return { answer: unavailable(502, 'The service answered with an oversized body.') };
    const { status, text } = raw;
    if (status >= 300 && status < 400) return { answer: unavailable(502, `The service answered with a redirect (HTTP ${status}).`) };
    if (status >= 500) return { answer: unavailable(502, `The service answered HTTP ${status}.`, raw.retryAfter) };
    if (text.trim() === '') return { json: undefined };
    if (raw.contentType.toLowerCase().includes('json') || /^\s*[{[]/.test(text)) {
      try {
        return { json: JSON.parse(text) as unknown };
      } catch {
        return { answer: unavailable(502, `The service answered HTTP ${status} with malformed JSON.`) };
      }
    }
    return { answer: unavailable(502, `The service answered HTTP ${status} with a non-JSON body.`) };
  }
}
