/**
 * The calls to the service, as a confidential client through oauth4webapi (client_secret_post by default,
 * client_secret_basic as an option). A capturing `customFetch` under oauth4webapi enforces the proxy's
 * limits (whole answer within `timeoutMs`, at most `maxUpstreamBytes` read, redirects never followed) and keeps
 * the raw answer, so failures map to the proxy's answers (502/504/429, the service's errors as their code and
 * RequestId only) and a success keeps the service's own fields (e.g. `space_id`, `token_type` as sent).
 */
import * as oauth from 'oauth4webapi';
import { isAllowedServiceUrl } from '../core/url.js';

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

/** A proxy answer before the common headers: status, JSON body, extra headers. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type TokenResult = { ok: true; tokens: Record<string, unknown> } | { ok: false; answer: Answer };

interface Raw {
  status: number;
  contentType: string;
  retryAfter: string | null;
  text: string;
}

type Failure = 'timeout' | 'unreachable' | 'oversized';

/**
 * A fetch implementation that reads the answer itself (node-fetch.ts) puts its text on the Response under
 * this symbol, so it is not streamed again; `null` when the answer passed RAW_LIMIT (reading stopped there).
 */
export const RAW_TEXT = Symbol.for('esign-elements.proxy.rawText');

/** On every request's init: the answer's size limit in bytes, for a fetch that reads the answer itself. */
export const RAW_LIMIT = Symbol.for('esign-elements.proxy.rawLimit');

/** What oauth4webapi's request functions get back: they return it unread, so one object serves every call. */
let neutralAnswer: Response | undefined;

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

  /** authorization_code grant. `signal`: the browser went away. */
  async exchangeCode(code: string, codeVerifier: string, redirectUri: string, signal?: AbortSignal, iss?: string): Promise<TokenResult> {
    const server = await this.#authorizationServer();
    if ('status' in server) return { ok: false, answer: server };
    const { as } = server;
    return this.#token(
      server,
      (options) => {
        // the callback checked `iss` (RFC 9207) already; oauth4webapi checks it again when the server says it sends one
        const params = oauth.validateAuthResponse(as, this.#client, new URLSearchParams(iss === undefined ? { code } : { code, iss }), oauth.skipStateCheck);
        return oauth.authorizationCodeGrantRequest(as, this.#client, this.#auth, params, redirectUri, codeVerifier, options);
      },
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
      (options) => oauth.refreshTokenGrantRequest(as, this.#client, this.#auth, refreshToken, scope ? { ...options, additionalParameters: { scope } } : options),
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
      (options) => oauth.revocationRequest(as, this.#client, this.#auth, token, hint ? { ...options, additionalParameters: { token_type_hint: hint } } : options),
      signal,
    );
    const checked = this.#check(raw, failure);
    if ('answer' in checked) return { ok: false, answer: checked.answer };
    if (raw!.status >= 200 && raw!.status < 300) return { ok: true };
    return { ok: false, answer: this.#passError(raw!.status, checked.json, raw!.retryAfter) };
  }

  async #token(
    server: Server,
    request: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
    process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
    signal: AbortSignal | undefined,
  ): Promise<TokenResult> {
    const { raw, failure } = await this.#call(server, request, signal);
    const checked = this.#check(raw, failure);
    if ('answer' in checked) return { ok: false, answer: checked.answer };
    const { status } = raw!;
    const json = checked.json;
    if (status >= 200 && status < 300) {
      if (!isRecord(json)) return { ok: false, answer: unavailable(502, 'The service answered the token request without a token.') };
      // oauth4webapi checks the answer (access_token, token_type, expires_in, refresh_token, scope); an
      // id_token is not ours to validate (no OpenID Connect here) and is left out of that check
      const checkedCopy: Record<string, unknown> = { ...json };
      delete checkedCopy.id_token;
      try {
        await process(new Response(JSON.stringify(checkedCopy), { status: 200, headers: { 'content-type': 'application/json' } }));
      } catch {
        return { ok: false, answer: unavailable(502, 'The service answered the token request without a valid token.') };
      }
      return { ok: true, tokens: sanitizeTokenResponse(json, this.#config.clientSecret) };
    }
    return { ok: false, answer: this.#passError(status, json, raw!.retryAfter) };
  }

  /** Runs one oauth4webapi request through the capturing fetch. */
  async #call(server: Server, request: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>, signal: AbortSignal | undefined): Promise<{ raw?: Raw; failure?: Failure }> {
    const outcome: { raw?: Raw; failure?: Failure } = {};
    const config = this.#config;
    const baseFetch = config.fetch ?? globalThis.fetch;
    const capture = async (url: string, init: RequestInit): Promise<Response> => {
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, config.timeoutMs);
      const onAbort = (): void => controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const { response, text } = await fetchWithin(baseFetch, url, { ...init, signal: controller.signal }, config.maxUpstreamBytes);
        if (text === undefined) {
          outcome.failure = 'oversized';
        } else {
          outcome.raw = { status: response.status, contentType: response.headers.get('content-type') ?? '', retryAfter: response.headers.get('retry-after'), text };
        }
      } catch {
        outcome.failure = timedOut ? 'timeout' : 'unreachable';
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
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

  /**
   * The service's error as the proxy's: its code (OAuth `error` or business `Error.Code`) and RequestId, each
   * only as a short token, with the proxy's own description. No text of the service is passed on: an
   * error text may echo the request, and with it the secret in some encoding. Anything else is a 502.
   */
  #passError(status: number, body: unknown, retryAfter: string | null): Answer {
    const business = isRecord(body) && isRecord(body.Response) ? body.Response : undefined;
    const error = identifier(isRecord(business?.Error) ? business.Error.Code : isRecord(body) ? body.error : undefined, this.#config.clientSecret);
    if (!error) return unavailable(502, `The service answered HTTP ${status} without an OAuth error.`);
    if (status === 429) return unavailable(429, 'The service is rate limiting token requests.', retryAfter);
    const out: Record<string, string> = { error, error_description: ERROR_DESCRIPTIONS.get(error) ?? `The service refused the request (HTTP ${status}).` };
    const requestId = identifier(business?.RequestId, this.#config.clientSecret);
    if (requestId) out.request_id = requestId;
    return { status: status >= 400 && status < 500 ? status : 502, body: out };
  }
}

/**
 * One call to the service, redirects never followed, its answer read as it streams in: `text` is undefined
 * when the answer passed `max` bytes (reading stopped there and the transfer was cancelled).
 */
async function fetchWithin(baseFetch: typeof fetch, url: string, init: RequestInit, max: number): Promise<{ response: Response; text: string | undefined }> {
  const response = await baseFetch(url, { ...init, redirect: 'manual', [RAW_LIMIT]: max } as RequestInit);
  return { response, text: await readLimited(response, max) };
}

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const raw = (response as Response & { [RAW_TEXT]?: string | null })[RAW_TEXT];
  if (raw === null) return undefined;
  if (typeof raw === 'string') return new TextEncoder().encode(raw).byteLength > max ? undefined : raw;
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

const KNOWN_RESPONSE_FIELDS = ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'space_id'];

/** The known token fields plus other plain fields, minus anything secret-like or equal to the secret. */
export function sanitizeTokenResponse(body: Record<string, unknown>, clientSecret: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of KNOWN_RESPONSE_FIELDS) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (field === 'expires_in') {
      const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof seconds === 'number' && Number.isFinite(seconds)) out.expires_in = seconds;
      continue;
    }
    if (typeof value === 'string' && !value.includes(clientSecret)) out[field] = value;
  }
  for (const [key, value] of Object.entries(body)) {
    if (KNOWN_RESPONSE_FIELDS.includes(key) || /secret|password|client_assertion/i.test(key) || key.includes(clientSecret)) continue;
    if (value === undefined || value === null) continue;
    const serialized = JSON.stringify(value);
    if (serialized === undefined || serialized.includes(clientSecret)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/** The proxy's description of the service's error codes (RFC 6749 section 5.2, RFC 7009 section 2.2.1). */
const ERROR_DESCRIPTIONS = new Map([
  ['invalid_request', 'The service found the request malformed.'],
  ['invalid_client', "The service did not accept the token proxy's client credentials."],
  ['invalid_grant', 'The authorization code or refresh token is invalid, expired, revoked or already used.'],
  ['unauthorized_client', 'The client is not allowed to use this grant type.'],
  ['unsupported_grant_type', 'The service does not support this grant type.'],
  ['invalid_scope', 'The requested scope is invalid or exceeds the grant.'],
  ['unsupported_token_type', 'The service cannot revoke this type of token.'],
  ['access_denied', 'The service denied the request.'],
]);

/** A value of the service passed on only as an identifier (letters, digits, `_.-`, at most 64) that is not the secret. */
function identifier(value: unknown, secret: string): string | undefined {
  return typeof value === 'string' && /^[\w.-]{1,64}$/.test(value) && !value.includes(secret) ? value : undefined;
}

export function unavailable(status: number, description: string, retryAfter?: string | null): Answer {
  const answer: Answer = { status, body: { error: 'temporarily_unavailable', error_description: description } };
  if (retryAfter && /^\d{1,6}$/.test(retryAfter.trim())) answer.headers = { 'Retry-After': retryAfter.trim() };
  return answer;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
