/**
 * The embedded views' one call to the service: `embedded/views` for a Url (a `@lit/task` Task, so a new run aborts the
 * one under way). Never throws: the outcome carries the error, in the views' codes. Which answer counts is the
 * machine's to say (machine.ts: only the latest request's), and so is when to try again: the client makes one try
 * (with one refresh-and-retry of a refused token), within the element's `request-timeout`, and no retries of its own.
 */
import type { ReactiveControllerHost } from 'lit';
import { Task } from '@lit/task';
import { EsignError, type EsignErrorCode } from '@esign-elements/shared/errors';
import { ServiceClient } from '../../core/service/service-client.js';
import type { SessionProvider } from '../shared/session-context.js';
import type { OperateType } from './rules.js';

/** The Url request's outcome, for request number `request`. */
export type UrlOutcome = { request: number; url: unknown; expiresAt: string } | { request: number; error: EsignError };

/** What a request asks with: its number, the session, the FileIds (request_signatures). */
export interface UrlAsk {
  request: number;
  provider: SessionProvider;
  fileIds: readonly string[];
  /** Ms to wait for the answer (0: no end). */
  timeoutMs: number;
  /** The request is on its way (its fetch started). */
  sent: () => void;
}

/** The views' `request-timeout` when none is set. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** Errors about the session itself are the session's to report; they keep their code. */
const SESSION_CODES = new Set<EsignErrorCode>([
  'no_session',
  'no_files',
  'aborted',
  'session_expired',
  'refresh_interrupted',
  'refresh_failed',
  'login_expired',
]);

export class UrlRequest {
  readonly #task: Task<[UrlAsk], UrlOutcome>;

  /** `answered`: the outcome of each request that ran to its end (an aborted one is not told). */
  constructor(host: ReactiveControllerHost, operateType: OperateType, answered: (outcome: UrlOutcome) => void) {
    this.#task = new Task(host, {
      autoRun: false,
      task: ([ask], { signal }) => askForUrl(operateType, ask, signal),
      onComplete: answered,
    });
  }

  run(ask: UrlAsk): void {
    void this.#task.run([ask]);
  }

  abort(): void {
    this.#task.abort();
  }
}

async function askForUrl(operateType: OperateType, { request, provider, fileIds, timeoutMs, sent }: UrlAsk, signal: AbortSignal): Promise<UrlOutcome> {
  try {
    const client = new ServiceClient({
      baseUrl: provider.baseUrl,
      tokens: provider,
      operatorUserId: provider.operatorUserId,
      // one retry policy: the view machine's backoff (unreachable.ts), not the client's stacked under it
      retry: false,
      timeoutMs,
      fetch: (input, init) => {
        const response = globalThis.fetch(input, init);
        if (!signal.aborted) sent();
        return response;
      },
    });
    const { data } =
      operateType === 'request_signatures' ? await client.requestSignaturesView([...fileIds], { signal }) : await client.signatureStatusView({ signal });
    return { request, url: data.Url, expiresAt: data.ExpiresAt };
  } catch (error) {
    return { request, error: viewError(error) };
  }
}

function viewError(error: unknown): EsignError {
  const e = EsignError.from(error, 'view_failed');
  if (SESSION_CODES.has(e.code) || e.code === 'view_failed' || e.code === 'network_error') return e;
  // one code for "the service gave no page"; the service's own code, status and RequestId stay on it
  return new EsignError('view_failed', `The service did not give an embedded page: ${e.message}`, {
    status: e.status,
    requestId: e.requestId,
    serviceCode: e.serviceCode ?? e.code,
    retryAfter: e.retryAfter,
    cause: e,
  });
}
