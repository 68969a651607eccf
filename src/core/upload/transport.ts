/**
 * Sends an upload body with XMLHttpRequest, for its upload progress (fetch has none), and reads the
 * service's answer: FileIds, or an EsignError with the service's RequestId. Retries 429 and 5xx with
 * backoff (honouring Retry-After) and a 401 once with a refreshed token. Browser only (XHR).
 */
import { codeForStatus, type TokenSource } from '../service/service-client.js';
import { watchConnectSrc } from '../service/csp-violation.js';
import { EsignError } from '@esign-elements/shared/errors';
import { abortedError, parseRetryAfter, retryDelay, retryWithRefresh, type RetryPolicy } from '../service/retry.js';
import { isRecord, type UploadedFile } from '@esign-elements/shared/service-types';
import { joinApiPath } from '@esign-elements/shared/url';

export interface RawResponse {
  status: number;
  text: string;
  headers: { get(name: string): string | null };
}

export interface SendOptions {
  url: string;
  token: string;
  body: Blob;
  operatorUserId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Bytes of the body sent so far. */
  onProgress?: ((loaded: number, total: number) => void) | undefined;
  /** Gives up when neither progress nor an answer came for this long. Default 60 s; 0 turns it off. */
  stallTimeoutMs?: number | undefined;
}

/** One POST of `body`; resolves with whatever the service answered, rejects only when no answer came. */
export function sendWithProgress(options: SendOptions): Promise<RawResponse> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const xhr = new XMLHttpRequest();
    const stallMs = options.stallTimeoutMs ?? 60_000;
    let stallTimer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const csp = watchConnectSrc();
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      csp.stop();
      if (stallTimer !== undefined) clearTimeout(stallTimer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const armStall = (): void => {
      if (stallMs <= 0) return;
      if (stallTimer !== undefined) clearTimeout(stallTimer);
      stallTimer = setTimeout(() => {
        xhr.abort();
        finish(() => reject(new EsignError('timeout', `The upload made no progress for ${stallMs} ms.`)));
      }, stallMs);
    };
    const onAbort = (): void => {
      xhr.abort();
      finish(() => reject(abortedError(signal)));
    };
    xhr.open('POST', options.url);
    xhr.setRequestHeader('Content-Type', 'application/json');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Authorization', `Bearer ${options.token}`);
    if (options.operatorUserId) xhr.setRequestHeader('X-Operator-User-Id', options.operatorUserId);
    xhr.withCredentials = false;
    xhr.upload.onprogress = (event) => {
      armStall();
      options.onProgress?.(event.loaded, event.lengthComputable ? event.total : options.body.size);
    };
    xhr.onprogress = armStall;
    xhr.onload = () => finish(() => resolve({ status: xhr.status, text: xhr.responseText, headers: { get: (name) => xhr.getResponseHeader(name) } }));
    // the page's Content-Security-Policy, not the network, when it reported blocking this URL
    xhr.onerror = () =>
      void csp.blockedFor(options.url).then((blocked) => finish(() => reject(blocked ?? new EsignError('network_error', 'Could not reach the service.'))));
    xhr.ontimeout = () => finish(() => reject(new EsignError('network_error', 'Could not reach the service.')));
    signal?.addEventListener('abort', onAbort, { once: true });
    armStall();
    xhr.send(options.body);
  });
}

/** The Files of a successful upload, or the EsignError the answer means (413 is `file_too_large`). */
export function interpretUploadResponse(response: RawResponse): { files: UploadedFile[]; requestId: string } {
  const { status } = response;
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    json = undefined;
  }
  const envelope = isRecord(json) && isRecord(json.Response) ? json.Response : undefined;
  const requestId = typeof envelope?.RequestId === 'string' ? envelope.RequestId : (response.headers.get('x-request-id') ?? undefined);
  const serviceError = envelope && isRecord(envelope.Error) ? envelope.Error : undefined;
  if (status >= 200 && status < 300 && !serviceError) {
    const files = isRecord(envelope?.Data) ? envelope.Data.Files : undefined;
    if (
      !requestId ||
      !Array.isArray(files) ||
      !files.every((f: unknown): f is UploadedFile => isRecord(f) && typeof f.FileId === 'string' && typeof f.FileName === 'string')
    ) {
      throw new EsignError('bad_response', 'Unexpected answer from files/upload.', { status, requestId });
    }
    return { files: files.map((f) => ({ FileId: f.FileId, FileName: f.FileName })), requestId };
  }
  const serviceCode = typeof serviceError?.Code === 'string' ? serviceError.Code : undefined;
  const message =
    typeof serviceError?.Message === 'string' && serviceError.Message !== ''
      ? serviceError.Message
      : `The service answered HTTP ${status}${serviceCode ? ` (${serviceCode})` : ''}.`;
  // the service says which limit: a file over the size limit is the user's to fix, not a transport failure
  const code = status === 413 && serviceCode !== 'LimitExceeded.FileCount' ? 'file_too_large' : status === 413 ? 'too_many_files' : codeForStatus(status);
  throw new EsignError(code, message, { status, requestId, serviceCode, retryAfter: parseRetryAfter(response.headers.get('retry-after')) });
}

/** Retries of an upload: 429 waits can be long (a minute's rate window), so the cap is higher than the API client's. */
export const UPLOAD_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({ retries: 3, baseDelayMs: 500, maxDelayMs: 60_000 });

export interface UploadRequest {
  baseUrl: string;
  tokens: TokenSource;
  body: Blob;
  operatorUserId?: string | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((loaded: number, total: number) => void) | undefined;
  /** Each try gives up with `timeout` after this long with neither progress nor an answer (sendWithProgress's default when unset). */
  stallTimeoutMs?: number | undefined;
  /** Called before each wait for a retry, with the error and the wait in ms. */
  onRetry?: ((error: EsignError, waitMs: number) => void) | undefined;
  retry?: RetryPolicy | false;
  /** Replaces XMLHttpRequest (tests in Node). */
  send?: (options: SendOptions) => Promise<RawResponse>;
}

/**
 * POSTs a built body to /files/upload until it succeeds or fails for good. The body is a Blob, so a
 * retry re-sends it without encoding again. Final errors: `aborted`, `rate_limited`, `file_too_large`,
 * `too_many_files`, `no_session`, `unauthorized`, or `upload_failed` (with the service's status,
 * code and RequestId).
 */
export async function uploadBody(request: UploadRequest): Promise<{ files: UploadedFile[]; requestId: string }> {
  const { signal } = request;
  const url = joinApiPath(request.baseUrl, '/files/upload');
  const send = request.send ?? sendWithProgress;
  const policy = request.retry === false ? undefined : (request.retry ?? UPLOAD_RETRY_POLICY);
  return retryWithRefresh({
    signal,
    attempt: async (forceRefresh) => {
      const token = await getToken(request.tokens, forceRefresh, signal);
      const { body, operatorUserId, onProgress, stallTimeoutMs } = request;
      const response = await send({ url, token, body, operatorUserId, signal, onProgress, stallTimeoutMs });
      return interpretUploadResponse(response);
    },
    toError: (caught) => (signal?.aborted ? abortedError(signal) : EsignError.from(caught, 'upload_failed')),
    isFinal: (error) => error.code === 'no_session',
    isRefused: (error) => error.code === 'unauthorized',
    waitFor: (error, retries) => (policy && retries < policy.retries ? retryWait(error, retries, policy) : undefined),
    giveUp: finalError,
    ...(request.onRetry ? { onRetry: request.onRetry } : {}),
  });
}

function retryWait(error: EsignError, attempt: number, policy: RetryPolicy): number | undefined {
  const status = error.status ?? 0;
  // a lost connection usually means nothing was stored; at worst a retry leaves one orphan FileId
  const retryable = error.code === 'rate_limited' || status >= 500 || error.code === 'network_error' || error.code === 'timeout';
  return retryable ? retryDelay(error, attempt, policy) : undefined;
}

function finalError(error: EsignError): EsignError {
  // transport and service failures become upload_failed; session, limit and abort codes stay as they are
  const wrap = ['service_error', 'bad_response', 'network_error', 'timeout', 'invalid_argument', 'not_found', 'forbidden', 'payload_too_large'];
  if (!wrap.includes(error.code)) return error;
  return new EsignError('upload_failed', error.message, {
    status: error.status,
    requestId: error.requestId,
    serviceCode: error.serviceCode,
    retryAfter: error.retryAfter,
    cause: error,
  });
}

async function getToken(tokens: TokenSource, forceRefresh: boolean, signal: AbortSignal | undefined): Promise<string> {
  let token: unknown;
  try {
    token = await tokens.getAccessToken(forceRefresh ? { forceRefresh: true, signal } : { signal });
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    throw EsignError.from(error, 'no_session');
  }
  if (typeof token !== 'string' || token === '') throw new EsignError('no_session', 'Not connected: connect an account first.');
  return token;
}
