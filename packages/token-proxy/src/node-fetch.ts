/**
 * A small `fetch` for the proxy's calls to the service under Node: keep-alive `node:http`/`node:https`
 * agents, the body read into one Buffer up to the proxy's limit (RAW_LIMIT on the init; past it the
 * request is destroyed and RAW_TEXT is null), redirects never followed (node:http does not), abort by
 * signal or by a time limit on the init (RAW_TIMEOUT: no AbortController per call). It replaces global
 * `fetch` (undici) under `serveTokenProxy`, where that cost most of a refresh's CPU on loopback; the
 * proxy's limits (time, size) are given by fetchWithin (upstream-read.ts). TLS uses Node's defaults
 * (certificate checks on). Only what oauth4webapi's calls through upstream.ts need: POST with string or
 * URLSearchParams bodies and plain-object headers; the answer's text is on RAW_TEXT (the Response has no
 * body of its own), so this is not a general-purpose fetch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { KEEPS_TIME_LIMIT, RAW_HEADERS, RAW_LIMIT, RAW_TEXT, RAW_TIMEOUT, timeoutError } from './upstream-read.js';

export interface NodeFetch {
  fetch: typeof fetch;
  /** Drops the idle keep-alive connections. */
  close(): void;
}

export function createNodeFetch(): NodeFetch {
  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  // the service's endpoints are a few URLs, parsed once each
  const targets = new Map<string, { secure: boolean; hostname: string; port: string | undefined; path: string }>();
  const targetOf = (href: string) => {
    let target = targets.get(href);
    if (!target) {
      const url = new URL(href);
      target = {
        secure: url.protocol === 'https:',
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
      };
      if (targets.size >= 32) targets.clear();
      targets.set(href, target);
    }
    return target;
  };
  const fetchFn = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const target = targetOf(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const body = init.body === undefined || init.body === null ? undefined : Buffer.from(String(init.body as string | URLSearchParams), 'utf8');
      const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
      if (body) headers['content-length'] = String(body.length);
      const signal = init.signal ?? undefined;
      const limit = (init as RequestInit & { [RAW_LIMIT]?: number })[RAW_LIMIT] ?? Number.POSITIVE_INFINITY;
      const timeoutMs = (init as RequestInit & { [RAW_TIMEOUT]?: number })[RAW_TIMEOUT];
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const outgoing = (target.secure ? httpsRequest : httpRequest)({
        method: init.method ?? 'GET',
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        headers,
        agent: target.secure ? httpsAgent : httpAgent,
      });
      const onAbort = (): void => {
        outgoing.destroy();
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // RAW_TIMEOUT: the whole call, answer read included (fetchWithin gives it in place of a signal of its own)
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              outgoing.destroy();
              reject(timeoutError(timeoutMs));
            }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      outgoing.on('error', (error) => {
        done();
        reject(error);
      });
      outgoing.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        // the text rides along (RAW_TEXT), where the proxy reads it (upstream.ts); the Response itself
        // carries no body stream, which would only cost CPU (the only caller never reads it)
        const answer = (text: string | null): Response => {
          // a plain record: a Headers object is made from it only if a caller reads the headers
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          const made = new Response(null, { status: response.statusCode ?? 502, headers: out });
          Object.defineProperty(made, RAW_TEXT, { value: text });
          Object.defineProperty(made, RAW_HEADERS, { value: out });
          return made;
        };
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= limit) return void chunks.push(chunk);
          // past the limit: stop reading and hang up rather than take in the rest
          done();
          outgoing.destroy();
          resolve(answer(null));
        });
        response.on('error', (error) => {
          done();
          reject(error);
        });
        response.on('end', () => {
          done();
          const status = response.statusCode ?? 502;
          // a Response cannot carry a body with these statuses
          const empty = status === 204 || status === 205 || status === 304;
          const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          let text = empty ? '' : body.toString('utf8');
          if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
          resolve(answer(text));
        });
        response.on('close', () => {
          if (!response.complete) {
            done();
            reject(new Error('The connection closed before the end of the answer.'));
          }
        });
      });
      outgoing.end(body);
    });
  // it honors RAW_TIMEOUT (upstream-read.ts)
  Object.defineProperty(fetchFn, KEEPS_TIME_LIMIT, { value: true });
  return {
    fetch: fetchFn as typeof fetch,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
