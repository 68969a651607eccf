/**
 * The kit's test site: a loopback HTTP server for the pages a test writes (`servePage`), the package's CDN build
 * (`/__esign/cdn/…`, so a page loads the elements with one script tag) and, optionally, a folder of the
 * integrator's own files. For tests only: it listens on 127.0.0.1 and serves nothing outside its folders.
 */
import { createReadStream } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { servableFile } from '@esign-elements/token-proxy/node';

/** Where a page loads the elements from, on the kit's site. */
export const CDN_PATH = '/__esign/cdn/esign-elements.min.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain; charset=utf-8',
};

export interface SitePage {
  html: string;
  headers: Record<string, string>;
}

export interface TestSite {
  /** `http://localhost:<port>`: the address a browser uses (the proxy is reached as localhost too: the same site). */
  origin: string;
  pages: Map<string, SitePage>;
  close(): Promise<void>;
}

export async function startTestSite(options: { cdnDir: string | undefined; staticDir: string | undefined }): Promise<TestSite> {
  const pages = new Map<string, SitePage>();
  const cdnRoot = options.cdnDir ? await realpath(options.cdnDir).catch(() => undefined) : undefined;
  const staticRoot = options.staticDir ? await realpath(options.staticDir) : undefined;
  const server = createServer((req, res) => void answer(req, res));

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split(/[?#]/, 1)[0]!;
    const page = pages.get(path);
    if (page && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...page.headers });
      res.end(req.method === 'HEAD' ? undefined : page.html);
      return;
    }
    const cdnPrefix = CDN_PATH.slice(0, CDN_PATH.lastIndexOf('/') + 1);
    const file = path.startsWith(cdnPrefix) ? await servableFile(cdnRoot, path.slice(cdnPrefix.length)) : await servableFile(staticRoot, path);
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end(cdnRoot || !path.startsWith(cdnPrefix) ? 'Not found' : 'Not found: the package has no dist/cdn build (npm run build:cdn)');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    pages,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
