/**
 * A raw HTTP/1.1 client over node:net, so methods, paths, headers, framing and bodies can be anything a client may
 * send (fetch would refuse or fix most of them): one request per connection, the first answer read back. For the
 * hardening fuzz tests of the token proxy and the emulator.
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer;
  /** Send the body chunked instead of with Content-Length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
  raw: string;
}

function serialize(request: RawRequest, host: string): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  if (!names.has('host')) lines.push(`Host: ${host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  lines.push('Connection: close');
  if (request.chunked) lines.push('Transfer-Encoding: chunked');
  else lines.push(`Content-Length: ${request.body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (!request.chunked) return Buffer.concat([head, request.body]);
  const parts: Buffer[] = [head];
  for (let i = 0; i < request.body.length; i += 1000) {
    const piece = request.body.subarray(i, i + 1000);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends one request on a fresh connection and reads the first answer; fails on a hang (no answer within `hangMs`)
 * or a silent close.
 */
export function sendRaw(baseUrl: string, request: RawRequest, hangMs = 5_000): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${hangMs} ms: ${request.method} ${request.target.slice(0, 80)}`));
    }, hangMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // the server may close while we still write a body it refused early (413): the answer is what counts
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        reject(new Error(`connection closed without an answer: ${request.method} ${request.target.slice(0, 80)}`));
        return;
      }
      const head = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      let body: Buffer = all.subarray(headEnd + 4);
      if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
      else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
      resolve({ status, headers, body: body.toString('utf8'), raw: all.toString('latin1') });
    });
    // no half-close after writing: Node's servers (httpAllowHalfOpen false) drop the request on a client FIN;
    // `Connection: close` makes the server close once it has answered
    socket.write(serialize(request, url.host));
  });
}
