/**
 * The token proxy on Node without the Fetch API on its hot path: a `node:http` server that hands the
 * `IncomingMessage` to the rules (core.ts) and writes their answer, and a keep-alive `node:http`/`node:https`
 * client for the service. Per request this saves what a Fetch round trip costs in Node (a `Request` and
 * `Response` with WHATWG streams on each side, AbortSignals, undici's fetch algorithm); the checks and
 * answers are the same. Loaded lazily by `serveTokenProxy`, so the package's proxy entry stays free of
 * Node-only imports for worker runtimes.
 */

import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { runProxy, type ProxyRequest, type ResolvedConfig, type Upstream, type UpstreamResult } from './core.js';

export interface NodeServer {
  url: string;
  close(): Promise<void>;
}

/** Serves the rules on `host:port`; `close()` also drops the upstream connections. */
export function listenTokenProxy(config: ResolvedConfig, port: number, host: string, upstream: NodeUpstream | undefined): Promise<NodeServer> {
  const server = createServer((incoming, outgoing) => {
    serveOne(config, incoming, outgoing);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const info = server.address() as AddressInfo;
      const shownHost = info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]` : info.address;
      resolve({ url: `http://${shownHost}:${info.port}`, close: () => closeServer(server, upstream) });
    });
  });
}

function closeServer(server: Server, upstream: NodeUpstream | undefined): Promise<void> {
  return new Promise<void>((done, fail) => {
    server.close((error) => (error ? fail(error) : done()));
    server.closeAllConnections();
    upstream?.close();
  });
}

function serveOne(config: ResolvedConfig, incoming: IncomingMessage, outgoing: ServerResponse): void {
  let request: NodeProxyRequest;
  try {
    request = new NodeProxyRequest(config, incoming, outgoing);
  } catch {
    // a request target or Host that makes no URL: an empty 400, as @hono/node-server answered it before
    outgoing.writeHead(400, { 'Content-Length': 0 });
    outgoing.end();
    return;
  }
  runProxy(config, request).then(
    (answer) => {
      if (outgoing.destroyed) return;
      const headers: Record<string, string | number> = answer.headers;
      if (answer.body !== null) headers['Content-Length'] = Buffer.byteLength(answer.body);
      // the client is still sending a body we refused (413): close after answering instead of reading it all
      if (request.bodyRefused && !incoming.complete) headers.Connection = 'close';
      outgoing.writeHead(answer.status, headers);
      // Node sends no body for HEAD by itself
      outgoing.end(answer.body ?? undefined);
    },
    () => outgoing.destroy(),
  );
}

/** An absolute-form request target (RFC 9112 section 3.2.2), as proxies send them. */
const ABSOLUTE_TARGET = /^https?:\/\//i;

/** An `IncomingMessage` as the rules see it. */
class NodeProxyRequest implements ProxyRequest {
  readonly method: string;
  readonly url: string;
  readonly pathname: string;
  /** Set when the body was over the limit; see serveOne. */
  bodyRefused = false;
  readonly #config: ResolvedConfig;
  readonly #incoming: IncomingMessage;
  readonly #outgoing: ServerResponse;

  constructor(config: ResolvedConfig, incoming: IncomingMessage, outgoing: ServerResponse) {
    this.#config = config;
    this.#incoming = incoming;
    this.#outgoing = outgoing;
    this.method = incoming.method ?? 'GET';
    const target = incoming.url ?? '';
    const host = this.header('host') ?? `${incoming.socket.localAddress ?? 'localhost'}:${incoming.socket.localPort ?? 80}`;
    // origin-form (/token) is the rule; absolute-form is legal too; anything else ('*') is not a URL here
    let url: URL;
    if (target.startsWith('/')) url = new URL(`http://${host}${target}`);
    else if (ABSOLUTE_TARGET.test(target)) url = new URL(target);
    else throw new TypeError('not a request URL');
    this.url = url.href;
    this.pathname = url.pathname;
  }

  /** Scans the raw header list, so repeated headers join with ", " exactly as `Headers.get` does. */
  header(name: string): string | undefined {
    const raw = this.#incoming.rawHeaders;
    let value: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i]!;
      if (key.length === name.length && key.toLowerCase() === name) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
    return value;
  }

  text(max: number): Promise<string | undefined> {
    const incoming = this.#incoming;
    const length = this.header('content-length');
    if (length !== undefined && this.header('transfer-encoding') === undefined && parseInt(length || '0', 10) > max) {
      this.bodyRefused = true;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      incoming.on('data', (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size <= max) {
          chunks.push(chunk);
          return;
        }
        // over the limit: the rest flows on unread until the answer closes the connection (serveOne)
        done = true;
        this.bodyRefused = true;
        resolve(undefined);
      });
      incoming.once('end', () => {
        if (done) return;
        done = true;
        const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
        // Request.text() decodes UTF-8 with BOM removal; do the same
        resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      });
      // an error or a close before the end: the client went away mid-body
      incoming.once('error', reject);
      incoming.once('close', () => {
        if (!done) reject(new Error('The client closed the connection before sending its body.'));
      });
    });
  }

  clientKey(): string {
    const custom = this.#config.customClientKey;
    if (custom) return custom(new Request(this.url, { method: this.method, headers: this.#headerPairs() }));
    // serveTokenProxy's default: the Origin's bucket, else the socket's address (X-Forwarded-For is never trusted)
    const origin = this.header('origin');
    if (origin) return `origin:${origin}`;
    const address = this.#incoming.socket.remoteAddress;
    return address ? `ip:${address}` : 'global';
  }

  onAbort(listener: () => void): () => void {
    const outgoing = this.#outgoing;
    const onClose = (): void => {
      if (!outgoing.writableFinished) listener();
    };
    outgoing.once('close', onClose);
    return () => outgoing.off('close', onClose);
  }

  #headerPairs(): Array<[string, string]> {
    const raw = this.#incoming.rawHeaders;
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
    return pairs;
  }
}

// --- the upstream client ----------------------------------------------------------------------------

export interface NodeUpstream {
  upstream: Upstream;
  /** Drops the idle keep-alive connections. */
  close(): void;
}

interface Target {
  secure: boolean;
  hostname: string;
  port: string;
  path: string;
}

/**
 * A keep-alive `node:http`/`node:https` client with the proxy's limits: the whole answer within
 * `timeoutMs` ('timeout'), at most `maxBytes` ('oversized'), redirects never followed (node:http does not),
 * and any connection failure is 'unreachable'. TLS uses Node's defaults (certificate checks on).
 */
export function createNodeUpstream(): NodeUpstream {
  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { secure: parsed.protocol === 'https:', hostname: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port, path: `${parsed.pathname}${parsed.search}` };
      targets.set(url, target);
    }
    return target;
  };

  const upstream: Upstream = (call) =>
    new Promise<UpstreamResult>((resolve) => {
      const target = targetOf(call.url);
      const body = Buffer.from(call.body, 'utf8');
      const options = {
        method: 'POST',
        hostname: target.hostname,
        port: target.port || undefined,
        path: target.path,
        // the User-Agent global fetch sent before this client, so the service sees the same caller
        headers: { ...call.headers, 'User-Agent': 'node', 'Content-Length': String(body.length) },
      };
      const outgoing = target.secure ? httpsRequest({ ...options, agent: httpsAgent }) : httpRequest({ ...options, agent: httpAgent });
      let settled = false;
      const settle = (result: UpstreamResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        resolve(result);
      };
      const fail = (result: 'oversized' | 'timeout' | 'unreachable'): void => {
        settle(result);
        outgoing.destroy();
      };
      const timer = setTimeout(() => fail('timeout'), call.timeoutMs);
      const unsubscribe = call.client.onAbort(() => fail('unreachable'));
      outgoing.on('error', () => fail('unreachable'));
      outgoing.on('response', (response) => {
        const declared = Number(response.headers['content-length'] ?? 0);
        if (Number.isFinite(declared) && declared > call.maxBytes) return fail('oversized');
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > call.maxBytes) return fail('oversized');
          chunks.push(chunk);
        });
        response.on('end', () => {
          const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
          settle({
            status: response.statusCode ?? 502,
            contentType: headerText(response.headers['content-type']),
            retryAfter: response.headers['retry-after'] ?? null,
            // as TextDecoder: a leading BOM is not part of the text
            text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
          });
        });
        response.on('error', () => fail('unreachable'));
        // the connection closed before the end of the answer
        response.on('close', () => {
          if (!response.complete) fail('unreachable');
        });
      });
      outgoing.end(body);
    });

  return {
    upstream,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
