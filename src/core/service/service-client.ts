/**
 * The calls to the service's business endpoints that the elements make in the browser (spec section 4): the
 * JSON call with its Bearer token, refresh on 401, retries and timeouts; the Base64 upload; the embedded views.
 * `EsignClient` (client.ts) extends it with the calls server code makes. No Node-only imports.
 */

import { EsignError, isAbortError, type EsignErrorCode } from '@esign-elements/shared/errors';
import { DEFAULT_RETRY_POLICY, abortedError, parseRetryAfter, retryDelay, retryWithRefresh, type RetryPolicy } from './retry.js';
import { isRecord, type EmbeddedViewData, type EmbeddedViewRequest, type UploadFileInput, type UploadFilesData } from '@esign-elements/shared/service-types';
import { isAllowedServiceUrl, joinApiPath } from '@esign-elements/shared/url';

export { parseRetryAfter } from './retry.js';

/** Where the client gets its Bearer token (the session of `<esign-connect>`, or server code). */
export interface TokenSource {
  /** `forceRefresh`: the last token was refused (401); return a fresh one or throw. */
  getAccessToken(options?: { forceRefresh?: boolean; signal?: AbortSignal }): Promise<string>;
}

export interface ClientOptions {
  /** Service base URL (https, or http on loopback); `/openapi/v1` + path is appended. */
  baseUrl: string;
  /**
   * The file-management domain (spec 4.4, `{file_url}`: a separate host; https, or http on loopback), for
   * `uploadFileParts`. Its multipart requests go to this URL itself (the domain's root path).
   */
  fileUrl?: string;
  tokens: TokenSource;
  /**
   * Sent as `X-Operator-User-Id` (a member's UserId) when set. Envelope create/void/remind need one, from
   * here or from the call's options, and are refused before any request without it.
   */
  operatorUserId?: string;
  fetch?: typeof fetch;
  /** Defaults: 3 retries, 300 ms base, 10 s cap. `false` turns retries off. */
  retry?: { retries?: number; baseDelayMs?: number; maxDelayMs?: number } | false;
  /** Per attempt, until the whole answer is read. Default 30 000; 0 turns it off. */
  timeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Allows retrying on 5xx, network errors and timeouts. 401 and 429 are retried regardless. */
  idempotent?: boolean;
  /** Overrides the client's `operatorUserId` for this call. */
  operatorUserId?: string;
  /** Extra request headers; `Authorization` cannot be overridden. */
  headers?: Record<string, string>;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

export interface ServiceResult<T> {
  data: T;
  requestId: string;
  status: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class ServiceClient {
  readonly baseUrl: string;
  readonly #tokens: TokenSource;
  readonly #operatorUserId: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #retry: RetryPolicy | undefined;
  readonly #timeoutMs: number;

  constructor(options: ClientOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !isAllowedServiceUrl(options.baseUrl, { allowLoopbackHttp: true })) {
      throw new EsignError('invalid_config', 'baseUrl must be an https URL (or http on localhost/127.0.0.1/[::1]).');
    }
    if (!options.tokens || typeof options.tokens.getAccessToken !== 'function') {
      throw new EsignError('invalid_config', 'tokens must be a TokenSource with getAccessToken().');
    }
    if (options.operatorUserId !== undefined && options.operatorUserId !== '' && !isOperatorId(options.operatorUserId)) {
      throw new EsignError('invalid_config', "operatorUserId must be a member's UserId: a non-empty string without control characters.");
    }
    this.baseUrl = options.baseUrl;
    this.#tokens = options.tokens;
    this.#operatorUserId = options.operatorUserId || undefined;
    // Wrapped so a browser's window.fetch is never called with a foreign `this` ("Illegal invocation").
    const customFetch = options.fetch;
    this.#fetch = customFetch ? (input, init) => customFetch(input, init) : (input, init) => globalThis.fetch(input, init);
    this.#retry = options.retry === false ? undefined : { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry ?? {}) };
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** POST `body` as JSON to `/openapi/v1` + `path`; unwraps the `Response` envelope. */
  async call<T>(path: string, body: unknown, options: CallOptions = {}): Promise<ServiceResult<T>> {
    const payload = JSON.stringify(body ?? {});
    return this.send<T>(joinApiPath(this.baseUrl, path), () => ({ body: payload, contentType: 'application/json' }), options);
  }

  /** @internal The member a call acts for (X-Operator-User-Id): the call's, else the client's. */
  protected operatorFor(options: CallOptions): string | undefined {
    return options.operatorUserId || this.#operatorUserId;
  }

  /** @internal A request to `url` with a body made for each attempt, through the token, retry and error handling above. */
  protected send<T>(url: string, body: () => RequestBody, options: CallOptions): Promise<ServiceResult<T>> {
    const { signal } = options;
    return retryWithRefresh({
      signal,
      attempt: async (forceRefresh) => this.#attempt<T>(url, body(), await this.#token(forceRefresh, signal), options),
      toError: (caught) => toEsignError(caught, signal),
      isRefused: (error) => error.code === 'unauthorized' && error.status === 401,
      waitFor: (error, retries) => this.#retryWait(error, retries, options.idempotent === true),
    });
  }

  /** POST /files/upload (JSON Base64 variant). Not idempotent unless `idempotent: true`. */
  async uploadFiles(files: UploadFileInput[], options: CallOptions = {}): Promise<ServiceResult<UploadFilesData>> {
    if (!Array.isArray(files) || files.length === 0) throw new EsignError('no_files', 'uploadFiles needs at least one file.');
    const result = await this.call<UploadFilesData>('/files/upload', { Files: files }, options);
    const list = (result.data as Partial<UploadFilesData> | null)?.Files;
    if (!Array.isArray(list) || !list.every((f) => isRecord(f) && typeof f.FileId === 'string' && typeof f.FileName === 'string')) {
      throw badShape('files/upload', result);
    }
    return result;
  }

  /** POST /embedded/views. Idempotent by default (each call just mints a new one-time Url). */
  async createEmbeddedView(request: EmbeddedViewRequest, options: CallOptions = {}): Promise<ServiceResult<EmbeddedViewData>> {
    const result = await this.call<EmbeddedViewData>('/embedded/views', request, { idempotent: true, ...options });
    const data = result.data as Partial<EmbeddedViewData> | null;
    if (!isRecord(data) || typeof data.Url !== 'string' || typeof data.ExpiresAt !== 'string') throw badShape('embedded/views', result);
    return result;
  }

  requestSignaturesView(fileIds: string[], options: CallOptions = {}): Promise<ServiceResult<EmbeddedViewData>> {
    if (!Array.isArray(fileIds) || fileIds.length === 0) {
      return Promise.reject(new EsignError('no_files', 'request_signatures needs at least one FileId.'));
    }
    return this.createEmbeddedView({ OperateType: 'request_signatures', OperateParam: { FileIds: [...fileIds] } }, options);
  }

  signatureStatusView(options: CallOptions = {}): Promise<ServiceResult<EmbeddedViewData>> {
    return this.createEmbeddedView({ OperateType: 'signature_status' }, options);
  }

  async #token(forceRefresh: boolean, signal: AbortSignal | undefined): Promise<string> {
    let token: unknown;
    try {
      token = await this.#tokens.getAccessToken(forceRefresh ? { forceRefresh: true, signal } : { signal });
    } catch (error) {
      throw toEsignError(error, signal, 'no_session');
    }
    if (typeof token !== 'string' || token === '') throw new EsignError('no_session', 'The token source returned no access token.');
    return token;
  }

  async #attempt<T>(url: string, payload: RequestBody, token: string, options: CallOptions): Promise<ServiceResult<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'authorization' || lower === 'content-type') delete headers[name];
    }
    headers['Content-Type'] = payload.contentType;
    headers['Accept'] = 'application/json';
    headers['Authorization'] = `Bearer ${token}`;
    const operator = this.operatorFor(options);
    if (operator) headers['X-Operator-User-Id'] = operator;

    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs)
        : undefined;
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let response: Response;
      let text: string;
      try {
        response = await this.#fetch(url, { method: 'POST', headers, body: payload.body, signal: controller.signal, redirect: 'manual', credentials: 'omit' });
        text = await response.text();
      } catch (error) {
        if (timedOut) throw new EsignError('timeout', `No answer from the service within ${timeoutMs} ms.`, { cause: error });
        if (options.signal?.aborted || isAbortError(error)) throw abortedError(options.signal);
        throw new EsignError('network_error', 'Could not reach the service.', { cause: error });
      }
      return interpret<T>(response, text);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Milliseconds to wait before the next attempt, or undefined to give up. */
  #retryWait(error: EsignError, attempt: number, idempotent: boolean): number | undefined {
    const policy = this.#retry;
    if (!policy || attempt >= policy.retries) return undefined;
    // (assumption) 429 means the request was not processed, so any call may be retried.
    const retryable =
      error.code === 'rate_limited' ||
      (idempotent && ((error.code === 'service_error' && (error.status ?? 0) >= 500) || error.code === 'network_error' || error.code === 'timeout'));
    return retryable ? retryDelay(error, attempt, policy) : undefined;
  }
}

/** HTTP status → stable code (see docs/architecture.md). */
export function codeForStatus(status: number): EsignErrorCode {
  switch (status) {
    case 400:
      return 'invalid_argument';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    default:
      return 'service_error';
  }
}

function interpret<T>(response: Response, text: string): ServiceResult<T> {
  const status = response.status;
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  let json: unknown;
  let parsed = false;
  try {
    json = JSON.parse(text);
    parsed = true;
  } catch {
    // handled below: an error status keeps its code, a success becomes bad_response
  }
  const envelope = parsed && isRecord(json) && isRecord(json.Response) ? json.Response : undefined;
  const requestId = typeof envelope?.RequestId === 'string' ? envelope.RequestId : headerRequestId;
  const serviceError = envelope && isRecord(envelope.Error) ? envelope.Error : undefined;
  // Business endpoints never redirect; following one could carry the Bearer token elsewhere.
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
    throw new EsignError('bad_response', `The service answered with a redirect (HTTP ${status}).`, { status, requestId });
  }

  if (status >= 200 && status < 300 && !serviceError) {
    if (!envelope || typeof envelope.RequestId !== 'string' || !('Data' in envelope)) {
      throw new EsignError('bad_response', `The service answered ${status} without a Response envelope.`, { status, requestId });
    }
    return { data: envelope.Data as T, requestId: envelope.RequestId, status };
  }
  const serviceCode = typeof serviceError?.Code === 'string' ? serviceError.Code : undefined;
  const message =
    typeof serviceError?.Message === 'string' && serviceError.Message !== ''
      ? serviceError.Message
      : `The service answered HTTP ${status}${serviceCode ? ` (${serviceCode})` : ''}.`;
  const code = status >= 200 && status < 300 ? 'service_error' : codeForStatus(status);
  throw new EsignError(code, message, { status, requestId, serviceCode, retryAfter });
}

function toEsignError(error: unknown, signal: AbortSignal | undefined, fallback: EsignErrorCode = 'network_error'): EsignError {
  if (signal?.aborted) return error instanceof EsignError && error.code === 'aborted' ? error : abortedError(signal);
  return EsignError.from(error, fallback);
}

export function badShape(endpoint: string, result: ServiceResult<unknown>): EsignError {
  return new EsignError('bad_response', `Unexpected Data shape from ${endpoint}.`, { status: result.status, requestId: result.requestId });
}

export interface RequestBody {
  body: string | Blob;
  contentType: string;
}

export function isOperatorId(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 200 && !/[\u0000-\u001f\u007f]/.test(value);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
