/**
 * `esign-elements/core/node`: a `fetch` for `EsignClient` on Node that streams Blob request bodies.
 *
 * Node's built-in fetch (undici, measured on Node 20.20) keeps every chunk of a request body referenced until
 * its keep-alive connection closes: uploading a 64 MiB file through it costs 64 MiB of memory however the
 * file is read. `nodeStreamingFetch` sends a Blob body (the client's multipart upload, made of
 * `fs.openAsBlob(path)` Blobs) with node:http/node:https, piping the Blob's stream with backpressure and a
 * Content-Length, so memory stays at the chunks in flight. Every other request goes to the global fetch.
 * Node only: never import this from browser code.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A `fetch` for `createClient({ fetch: nodeStreamingFetch })`: Blob bodies streamed, the rest by the global fetch. */
export async function nodeStreamingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const body = init?.body;
  if (!(body instanceof Blob) || input instanceof Request) return globalThis.fetch(input, init);
  const url = new URL(String(input));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`nodeStreamingFetch: unsupported URL scheme ${url.protocol}`);
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();

  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (!headers['content-type'] && body.type) headers['content-type'] = body.type;
  headers['content-length'] = String(body.size);

  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = send(url, { method: init?.method ?? 'POST', headers });
  const onAbort = (): void => {
    req.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError'));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  // the signal also covers reading the answer: let go of it only when the exchange is over
  req.once('close', () => signal?.removeEventListener('abort', onAbort));
  try {
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    // a service that answers early (401, 413) and closes: the answer wins over the unfinished upload
    const sent = pipeline(Readable.fromWeb(body.stream() as import('node:stream/web').ReadableStream<Uint8Array>), req).catch(() => undefined);
    const res = await answered;
    void sent;
    const responseHeaders = new Headers();
    for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    const status = res.statusCode ?? 502;
    const noBody = status === 204 || status === 304 || init?.method === 'HEAD';
    if (noBody) res.resume();
    const stream = noBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
    return new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders });
  } catch (error) {
    signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
    throw new TypeError('fetch failed', { cause: error });
  }
}
