/**
 * Reading one answer of the service within the proxy's limits, through the runtime's own `fetch` (every runtime
 * alike): redirects never followed, at most `max` bytes read, the whole call within a time limit. Runtime-free.
 */

/**
 * One call to the service, redirects never followed, its answer read as it streams in: `text` is undefined
 * when the answer passed `max` bytes (reading stopped there and the transfer was cancelled). With `timeoutMs`
 * the whole call, answer read included, fails past it with `timeoutError` (`AbortSignal.timeout`, joined with
 * `init.signal` by `AbortSignal.any`).
 */
export async function fetchWithin(
  baseFetch: typeof fetch,
  url: string,
  init: RequestInit,
  max: number,
  timeoutMs?: number,
): Promise<{ response: Response; text: string | undefined }> {
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const signal = timeout && init.signal ? AbortSignal.any([timeout, init.signal]) : (timeout ?? init.signal);
  try {
    const response = await baseFetch(url, { ...init, ...(signal ? { signal } : {}), redirect: 'manual' });
    return { response, text: await readLimited(response, max) };
  } catch (error) {
    throw timeout?.aborted ? timeoutError(timeoutMs!) : error;
  }
}

/** The failure of a call past its time limit. */
function timeoutError(timeoutMs: number): Error {
  const error = new Error(`The service did not answer within ${timeoutMs} ms.`);
  error.name = 'TimeoutError';
  return error;
}

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
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
