/**
 * Reading one answer of the service within the proxy's limits: redirects never followed, at most `max` bytes read.
 * A fetch that reads the answer itself (node-fetch.ts) hands over its text (RAW_TEXT) and is told the limit
 * (RAW_LIMIT). Runtime-free.
 */

/**
 * A fetch implementation that reads the answer itself (node-fetch.ts) puts its text on the Response under
 * this symbol, so it is not streamed again; `null` when the answer passed RAW_LIMIT (reading stopped there).
 */
export const RAW_TEXT = Symbol.for('esign-elements.proxy.rawText');

/**
 * Beside RAW_TEXT: the answer's headers as a plain record (lower-case names), read without building a Headers
 * object (see headerOf).
 */
export const RAW_HEADERS = Symbol.for('esign-elements.proxy.rawHeaders');

/** One header of an answer: from RAW_HEADERS when the fetch gave them, else from its Headers. */
export function headerOf(response: Response, name: string): string | null {
  const raw = (response as Response & { [RAW_HEADERS]?: Record<string, string> })[RAW_HEADERS];
  return raw ? (raw[name] ?? null) : response.headers.get(name);
}

/**
 * On a request's init, for a fetch that keeps the time limit itself (keepsTimeLimit): the whole call's limit in ms,
 * answer read included, in place of an abort signal; past it the call fails with an Error named `TimeoutError`.
 */
export const RAW_TIMEOUT = Symbol.for('esign-elements.proxy.rawTimeout');

/** Marks a fetch (node-fetch.ts) that honors RAW_TIMEOUT. */
export const KEEPS_TIME_LIMIT = Symbol.for('esign-elements.proxy.keepsTimeLimit');

export function keepsTimeLimit(fetchFn: typeof fetch): boolean {
  return (fetchFn as typeof fetch & { [KEEPS_TIME_LIMIT]?: boolean })[KEEPS_TIME_LIMIT] === true;
}

/** On every request's init: the answer's size limit in bytes, for a fetch that reads the answer itself. */
export const RAW_LIMIT = Symbol.for('esign-elements.proxy.rawLimit');

/**
 * One call to the service, redirects never followed, its answer read as it streams in: `text` is undefined
 * when the answer passed `max` bytes (reading stopped there and the transfer was cancelled). With `timeoutMs`
 * the whole call, answer read included, fails past it with `timeoutError` (a fetch that keeps the limit itself
 * gets RAW_TIMEOUT; any other an abort signal of its own, which also follows `init.signal`).
 */
export async function fetchWithin(
  baseFetch: typeof fetch,
  url: string,
  init: RequestInit,
  max: number,
  timeoutMs?: number,
): Promise<{ response: Response; text: string | undefined }> {
  const call = async (sent: RequestInit): Promise<{ response: Response; text: string | undefined }> => {
    const response = await baseFetch(url, { ...sent, redirect: 'manual', [RAW_LIMIT]: max } as RequestInit);
    return { response, text: await readLimited(response, max) };
  };
  if (timeoutMs === undefined) return call(init);
  if (keepsTimeLimit(baseFetch)) return call({ ...init, [RAW_TIMEOUT]: timeoutMs } as RequestInit);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const outer = init.signal ?? undefined;
  const onAbort = (): void => controller.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    return await call({ ...init, signal: controller.signal });
  } catch (error) {
    throw timedOut ? timeoutError(timeoutMs) : error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** The failure of a call past its time limit (fetchWithin, node-fetch.ts). */
export function timeoutError(timeoutMs: number): Error {
  const error = new Error(`The service did not answer within ${timeoutMs} ms.`);
  error.name = 'TimeoutError';
  return error;
}

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const raw = (response as Response & { [RAW_TEXT]?: string | null })[RAW_TEXT];
  if (raw === null) return undefined;
  // the fetch that gives RAW_TEXT stopped at RAW_LIMIT itself (null above)
  if (typeof raw === 'string') return raw;
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
