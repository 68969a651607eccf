/**
 * serveTokenProxy({ staticDir }) (the CLI's --static) over a real socket: the folder's files and index.html
 * are served; dotfiles, dot segments in any encoding and symlinks leading out of the folder are 404s.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';

let temp: string;
let served: ServedTokenProxy;

before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'esign-static-'));
  const site = join(temp, 'site');
  const outside = join(temp, 'outside');
  await mkdir(join(site, 'sub'), { recursive: true });
  await mkdir(join(site, '.git'));
  await mkdir(join(outside, 'dir'), { recursive: true });
  await writeFile(join(site, 'index.html'), '<p>home</p>');
  await writeFile(join(site, 'app.js'), 'console.log("app")');
  await writeFile(join(site, 'sub', 'index.html'), '<p>sub</p>');
  await writeFile(join(site, 'sub', 'page.html'), '<p>page</p>');
  await writeFile(join(site, '.env'), 'SECRET=DOTENV-SECRET');
  await writeFile(join(site, '.git', 'config'), '[remote] url = GIT-SECRET');
  await writeFile(join(outside, 'secret.txt'), 'OUTSIDE-SECRET');
  await writeFile(join(outside, 'dir', 'index.html'), 'OUTSIDE-SECRET index');
  await writeFile(join(outside, 'dir', 'file.txt'), 'OUTSIDE-SECRET file');
  await symlink(join(outside, 'secret.txt'), join(site, 'leak.txt'));
  await symlink(join(outside, 'dir'), join(site, 'linkdir'));
  await symlink(join(site, 'app.js'), join(site, 'same.js'));
  await symlink(join(site, 'sub'), join(site, 'samedir'));
  served = await serveTokenProxy({
    port: 0,
    clientId: 'demo-client',
    clientSecret: 'static-test-secret',
    baseUrl: 'http://127.0.0.1:9',
    allowedOrigins: [],
    redirectUris: ['http://127.0.0.1:6006/cb'],
    cookieKeys: [generateCookieKey()],
    staticDir: site,
  });
});

after(async () => {
  await served?.close();
  await rm(temp, { recursive: true, force: true });
});

/** A request with the path sent as written (fetch would normalize `%2e%2e` and `..` away first). */
function get(path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(served.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('token proxy: --static', () => {
  const served200: Array<[string, string]> = [
    ['/', 'home'],
    ['/index.html', 'home'],
    ['/app.js', 'console.log'],
    ['/sub/', 'sub'],
    ['/sub/page.html', 'page'],
    ['/same.js', 'console.log'],
    ['/samedir/page.html', 'page'],
  ];
  for (const [path, text] of served200) {
    test(`serves ${path}`, async () => {
      const answer = await get(path);
      assert.equal(answer.status, 200);
      assert.match(answer.body, new RegExp(text));
    });
  }

  const refused = [
    '/.env',
    '/.git/config',
    '/.git/',
    '/sub/../.env',
    '/leak.txt',
    '/linkdir',
    '/linkdir/',
    '/linkdir/index.html',
    '/linkdir/file.txt',
    '/%2eenv',
    '/%2Eenv',
    '/.%65nv',
    '/%2egit/config',
    '/..%2f',
    '/..%2fsite/index.html',
    '/sub/%2e%2e/..',
    '/sub/%2e%2e/.env',
    '/sub/..%2f.env',
    '/%2e%2e/outside/secret.txt',
    '/sub/%2e%2e%2f%2e%2e%2foutside%2fsecret.txt',
    '/link%64ir/file.txt',
  ];
  for (const path of refused) {
    test(`404 for ${path}`, async () => {
      for (const method of ['GET', 'HEAD']) {
        const answer = await get(path, method);
        assert.equal(answer.status, 404, `${method} ${path}: ${answer.body}`);
        assert.ok(!/SECRET/.test(answer.body), answer.body);
      }
    });
  }
});
