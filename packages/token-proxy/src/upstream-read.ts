/**
 * Reading one answer of the service within the proxy's limits, through the runtime's own `fetch` (every runtime
 * alike): redirects never followed, at most `max` bytes read, the whole call within a time limit. Runtime-free.
 */

/**
 * One call to the service, redirects never followed, its answer read as it streams in: `text` is undefined
 * when the answer passed `max` bytes (reading stopped there and the transfer was cancelled). With `timeoutMs`
 * the whole call, answer read included, fails past it with `timeoutError`: one timer, cleared when the answer is
 * read (`AbortSignal.timeout` would fire anyway, long after, and build a DOMException each time), aborting the
 * call's own controller, to which `init.signal` (the browser went away) is passed on.
 */
export async function fetchWithin(
  baseFetch: typeof fetch,
  url: string,
  init: RequestInit,
  max: number,
  timeoutMs?: number,
): Promise<{ response: Response; text: string | undefined }> {
  const redirect = noRedirects();
  if (timeoutMs === undefined) {
    const response = await baseFetch(url, { ...init, redirect });
    return { response, text: await readLimited(response, max) };
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const outer = init.signal;
  const passOn = (): void => controller.abort(outer!.reason);
  if (outer) {
    if (outer.aborted) passOn();
    else outer.addEventListener('abort', passOn, { once: true });
  }
  try {
    const response = await baseFetch(url, { ...init, signal: controller.signal, redirect });
    return { response, text: await readLimited(response, max) };
  } catch (error) {
    throw timedOut ? timeoutError(timeoutMs) : error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', passOn);
  }
}

/**
 * How the calls say "never follow a redirect": `error` where the runtime takes it (Node, Deno, Bun), else `manual`
 * (Workers refuse `error`). With `manual`, Node's fetch (undici) copies each request and splits its body stream in
 * two to follow a redirect itself; with `error` it sends the request as it is. A redirect is then a failed fetch
 * (`isRedirectFailure`) instead of a 3xx answer: never followed either way.
 */
let redirectMode: 'error' | 'manual' | undefined;
function noRedirects(): 'error' | 'manual' {
  if (redirectMode === undefined) {
    try {
      new Request('http://localhost/', { redirect: 'error' });
      redirectMode = 'error';
    } catch {
      redirectMode = 'manual';
    }
  }
  return redirectMode;
}

/** A fetch that failed on a redirect (redirect mode `error`): the runtimes say so in the error or its cause. */
export function isRedirectFailure(error: unknown): boolean {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  return error instanceof TypeError && /redirect/i.test(`${error.message} ${cause}`);
}

/** The failure of a call past its time limit. */
function timeoutError(timeoutMs: number): Error {
  const error = new Error(`The service did not answer within ${timeoutMs} ms.`);
  error.name = 'TimeoutError';
  return error;
}

const decoder = new TextDecoder();

/** Reads at most `max` bytes; undefined when the body is larger (the stream is cancelled). */
async function readLimited(response: Response, max: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  // one pass over the stream; a token answer is one chunk, decoded as it is (no copy of the whole body). The decoder
  // is not used in streaming mode, which takes Node's ICU path instead of its UTF-8 fast path
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
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}
