/**
 * Token proxy over real sockets against small upstream servers started here: request validation, CORS,
 * rate limit, upstream failure modes, and that the secret never leaves the server.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import fc from 'fast-check';
import { EsignError } from '@esign-elements/shared';
import { createTokenProxy, generateCookieKey, type TokenProxyEvent, type TokenProxyOptions } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';
import { getWithJar, type Jar } from '@esign-elements/test-support/oauth-login';

const SECRET = 'sup3r-s3cret-value-0123456789';
const ORIGIN = 'http://localhost:6006';
const REDIRECT = 'http://localhost:6006/iframe.html';
const COOKIE_KEY = generateCookieKey();

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type UpstreamBehaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let upstream: Server;
let upstreamUrl: string;
let behaviour: UpstreamBehaviour;
const received: Received[] = [];
const sockets = new Set<Socket>();

const okToken: UpstreamBehaviour = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({ access_token: 'at-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-1', scope: 'envelope:read', space_id: 'space_acme' }),
  );
};

before(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      behaviour(req, res, body);
    });
  });
  upstream.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
  behaviour = okToken;
});

const proxies: ServedTokenProxy[] = [];
after(async () => {
  await Promise.all(proxies.map((p) => p.close()));
});

async function startProxy(overrides: Partial<TokenProxyOptions> = {}): Promise<string> {
  const served = await serveTokenProxy({
    port: 0,
    clientId: 'demo-client',
    clientSecret: SECRET,
    baseUrl: upstreamUrl,
    allowedOrigins: [ORIGIN],
    redirectUris: [REDIRECT, 'com.example.esign:/oauth/callback'],
    timeoutMs: 1_000,
    cookieKeys: [COOKIE_KEY],
    // these tests send refresh tokens in the form (the opt-in mode); the default mode is proxy-mediated.test.ts's
    browserHeldRefreshTokens: true,
    ...overrides,
  });
  proxies.push(served);
  return served.url;
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const codeGrant = { grant_type: 'authorization_code', code: 'c0de', code_verifier: 'v'.repeat(64), redirect_uri: REDIRECT };

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN, ...headers },
    body,
  });
}

/** Status, JSON body, and a check that no answer ever carries the secret or caches. */
async function read(response: Response): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const text = await response.text();
  assert.ok(!text.includes(SECRET), 'secret in a response body');
  for (const [name, value] of response.headers) assert.ok(!value.includes(SECRET), `secret in header ${name}`);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('pragma'), 'no-cache');
  assert.match(response.headers.get('vary') ?? '', /origin/i);
  assert.ok(response.status < 300 || response.status >= 400, 'never a redirect');
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
}

describe('token proxy: forwarding', () => {
  let url: string;
  before(async () => {
    url = await startProxy();
  });

  test('exchanges a code: adds client_id and client_secret, forwards only known fields', async () => {
    const { status, json, headers } = await read(
      await post(`${url}/token`, form({ ...codeGrant, client_id: 'demo-client', evil: 'x', client_secret: 'from-browser' })),
    );
    assert.equal(status, 200);
    assert.deepEqual(json, {
      access_token: 'at-1',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'rt-1',
      scope: 'envelope:read',
      space_id: 'space_acme',
    });
    assert.equal(headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(received.length, 1);
    assert.equal(received[0]!.path, '/openapi/v1/oauth/token');
    assert.match(received[0]!.headers['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
    const sent = Object.fromEntries(new URLSearchParams(received[0]!.body));
    assert.deepEqual(sent, { ...codeGrant, client_id: 'demo-client', client_secret: SECRET });
    assert.equal(received[0]!.headers.origin, undefined, 'browser headers are not forwarded');
  });

  test('works under a basePath (exact routes only) and without an Origin (server to server)', async () => {
    const prefixed = await startProxy({ basePath: '/api/esign' });
    assert.equal((await read(await post(`${prefixed}/token`, form(codeGrant)))).status, 404, 'outside the basePath');
    assert.equal((await read(await post(`${url}/api/esign/token`, form(codeGrant)))).status, 404, 'no basePath: /api/esign/token is not /token');
    assert.equal(received.length, 0);
    const response = await fetch(`${prefixed}/api/esign/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8', 'X-Esign-Proxy': '1' },
      body: form({ grant_type: 'refresh_token', refresh_token: 'rt-0', scope: 'envelope:read' }),
    });
    const { status } = await read(response);
    assert.equal(status, 200);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(received[0]!.body)), {
      grant_type: 'refresh_token',
      refresh_token: 'rt-0',
      scope: 'envelope:read',
      client_id: 'demo-client',
      client_secret: SECRET,
    });
  });

  test('revokes: RFC 7009 form to the revocation endpoint, answers 200 {}', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200);
      res.end();
    };
    const { status, json } = await read(await post(`${url}/revoke`, form({ token: 'rt-1', token_type_hint: 'refresh_token', grant_type: 'x' })));
    assert.equal(status, 200);
    assert.deepEqual(json, {});
    assert.equal(received[0]!.path, '/openapi/v1/oauth/revoke');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(received[0]!.body)), {
      token: 'rt-1',
      token_type_hint: 'refresh_token',
      client_id: 'demo-client',
      client_secret: SECRET,
    });
  });

  test('never returns the secret even if the service echoes it, and drops secret-like fields', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': 'ok' });
      res.end(
        JSON.stringify({
          access_token: 'at-2',
          token_type: 'Bearer',
          expires_in: '3600',
          client_secret: SECRET,
          echo: `x${SECRET}`,
          id_hint: 'fine',
          nested: { a: 1 },
        }),
      );
    };
    const { status, json } = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(status, 200);
    assert.deepEqual(json, { access_token: 'at-2', token_type: 'Bearer', expires_in: 3600, id_hint: 'fine' });
  });

  test("passes OAuth errors on with their status and code, with the proxy's own description", async () => {
    behaviour = (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: `code used; secret=${SECRET}`, extra: SECRET }));
    };
    const { status, json } = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(status, 400);
    assert.equal(json.error, 'invalid_grant');
    assert.equal(json.error_description, 'The authorization code or refresh token is invalid, expired, revoked or already used.');
    assert.deepEqual(Object.keys(json).sort(), ['error', 'error_description']);

    behaviour = (_req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Basic' });
      res.end(JSON.stringify({ error: 'invalid_client' }));
    };
    const second = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(second.status, 401);
    assert.equal(second.json.error, 'invalid_client');
    assert.equal(second.headers.get('www-authenticate'), null);
  });

  test('clientAuth basic sends the secret in an Authorization header, not the form', async () => {
    const basicUrl = await startProxy({ clientAuth: 'basic', clientSecret: 'a b:c' });
    await read(await post(`${basicUrl}/token`, form(codeGrant)));
    const sent = Object.fromEntries(new URLSearchParams(received[0]!.body));
    assert.equal(sent.client_secret, undefined);
    // oauth4webapi's client_secret_basic: the client is identified by the header only (RFC 6749 section 2.3.1)
    assert.equal(sent.client_id, undefined);
    const basic = /^Basic (.+)$/.exec(received[0]!.headers.authorization ?? '');
    assert.ok(basic, 'an Authorization: Basic header');
    // RFC 6749 section 2.3.1: each part form-encoded before Base64
    const [id, secret] = Buffer.from(basic[1]!, 'base64')
      .toString()
      .split(':')
      .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    assert.deepEqual([id, secret], ['demo-client', 'a b:c']);
  });
});

describe('token proxy: refuses bad requests without calling the service', () => {
  let url: string;
  before(async () => {
    url = await startProxy({ rateLimit: false });
  });

  const cases: Array<[string, () => Promise<Response>, number, string]> = [];
  const add = (name: string, call: () => Promise<Response>, status: number, error: string): void => {
    cases.push([name, call, status, error]);
  };
  add('password grant', () => post(`${url}/token`, form({ grant_type: 'password', username: 'a', password: 'b' })), 400, 'unsupported_grant_type');
  add('client_credentials grant', () => post(`${url}/token`, form({ grant_type: 'client_credentials' })), 400, 'unsupported_grant_type');
  add('missing grant_type', () => post(`${url}/token`, form({ code: 'x' })), 400, 'invalid_request');
  add('missing code_verifier', () => post(`${url}/token`, form({ ...codeGrant, code_verifier: '' })), 400, 'invalid_request');
  add('missing refresh_token', () => post(`${url}/token`, form({ grant_type: 'refresh_token' })), 400, 'invalid_request');
  add('repeated code', () => post(`${url}/token`, `${form(codeGrant)}&code=other`), 400, 'invalid_request');
  add('unlisted redirect_uri', () => post(`${url}/token`, form({ ...codeGrant, redirect_uri: 'https://evil.example/cb' })), 400, 'invalid_request');
  add('redirect_uri differing by a slash', () => post(`${url}/token`, form({ ...codeGrant, redirect_uri: `${REDIRECT}/` })), 400, 'invalid_request');
  // the default mode runs the sign-in itself (its login route and callback): a code a page sends with a session is never redeemed
  add('authorization_code with session', () => post(`${url}/token`, form({ ...codeGrant, session: 'open' })), 400, 'unsupported_grant_type');
  add(
    'session and refresh_token together',
    () => post(`${url}/token`, form({ grant_type: 'refresh_token', session: 'open', refresh_token: 'rt-1' })),
    400,
    'invalid_request',
  );
  add('mismatched client_id', () => post(`${url}/token`, form({ ...codeGrant, client_id: 'other-client' })), 401, 'invalid_client');
  add('mismatched client_id on revoke', () => post(`${url}/revoke`, form({ token: 't', client_id: 'other' })), 401, 'invalid_client');
  add('revoke without token', () => post(`${url}/revoke`, form({ token_type_hint: 'access_token' })), 400, 'invalid_request');
  add('foreign origin', () => post(`${url}/token`, form(codeGrant), { Origin: 'https://evil.example' }), 403, 'access_denied');
  add('Origin: null', () => post(`${url}/token`, form(codeGrant), { Origin: 'null' }), 403, 'access_denied');
  add('origin differing by port', () => post(`${url}/token`, form(codeGrant), { Origin: 'http://localhost:6007' }), 403, 'access_denied');
  add(
    'missing X-Esign-Proxy header',
    () => fetch(`${url}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN }, body: form(codeGrant) }),
    403,
    'access_denied',
  );
  add('X-Esign-Proxy: 0', () => post(`${url}/token`, form(codeGrant), { 'X-Esign-Proxy': '0' }), 403, 'access_denied');
  add('JSON body', () => post(`${url}/token`, JSON.stringify(codeGrant), { 'Content-Type': 'application/json' }), 415, 'invalid_request');
  add('text/plain body (simple CORS request)', () => post(`${url}/token`, form(codeGrant), { 'Content-Type': 'text/plain' }), 415, 'invalid_request');
  add(
    'multipart body',
    () => {
      const data = new FormData();
      data.set('grant_type', 'authorization_code');
      return fetch(`${url}/token`, { method: 'POST', headers: { 'X-Esign-Proxy': '1', Origin: ORIGIN }, body: data });
    },
    415,
    'invalid_request',
  );
  add(
    'latin1 charset',
    () => post(`${url}/token`, form(codeGrant), { 'Content-Type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }),
    415,
    'invalid_request',
  );
  add('oversized body', () => post(`${url}/token`, form({ ...codeGrant, code: 'x'.repeat(9 * 1024) })), 413, 'invalid_request');
  add(
    'oversized chunked body',
    () => {
      const chunk = new TextEncoder().encode(`grant_type=authorization_code&code=${'x'.repeat(9 * 1024)}`);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      });
      return fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
        body: stream,
        duplex: 'half',
      } as RequestInit);
    },
    413,
    'invalid_request',
  );
  add('GET', () => fetch(`${url}/token`, { headers: { 'X-Esign-Proxy': '1' } }), 405, 'invalid_request');
  add('unknown path', () => post(`${url}/authorize`, form(codeGrant)), 404, 'not_found');
  add('token as a query, not the last segment', () => post(`${url}/token/extra`, form(codeGrant)), 404, 'not_found');

  for (const [name, call, status, error] of [...cases]) {
    test(name, async () => {
      const answer = await read(await call());
      assert.equal(answer.status, status);
      assert.equal(answer.json.error, error);
      assert.equal(typeof answer.json.error_description, 'string');
      assert.equal(received.length, 0, 'the service was not called');
    });
  }

  test('a foreign origin never gets CORS headers', async () => {
    const response = await fetch(`${url}/token`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-esign-proxy' },
    });
    const { status } = await read(response);
    assert.equal(status, 403);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  });
});

describe('token proxy: CORS preflight', () => {
  test('answers an allowed origin exactly, no wildcard, with credentials (the session cookie)', async () => {
    const url = await startProxy({ basePath: '/api/esign' });
    const response = await fetch(`${url}/api/esign/token`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-esign-proxy' },
    });
    await read(response);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match((response.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /x-esign-proxy/);
    assert.equal(received.length, 0);
  });
});

describe('token proxy: CORS on the answers', () => {
  test('an allowed Origin gets Allow-Origin and Allow-Credentials; a request without Origin (same-origin, a server) gets neither', async () => {
    const url = await startProxy({});
    const allowed = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
    assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true');
    assert.match(allowed.headers.get('vary') ?? '', /\bOrigin\b/);
    const none = await read(
      await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
        body: form(codeGrant),
      }),
    );
    assert.equal(none.status, 200);
    assert.equal(none.headers.get('access-control-allow-origin'), null);
    assert.equal(none.headers.get('access-control-allow-credentials'), null, 'no CORS header without an allowed Origin');
    assert.match(none.headers.get('vary') ?? '', /\bOrigin\b/);
    // an error answer too
    const refused = await read(
      await fetch(`${url}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form(codeGrant) }),
    );
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-credentials'), null);
  });
});

describe('token proxy: the required header', () => {
  test('PROXY_HEADER is the header name of @esign-elements/shared (which the elements send), PROXY_HEADER_VALUE its value', async () => {
    const core = await import('@esign-elements/shared');
    const proxy = await import('../src/index.js');
    assert.equal(core.PROXY_HEADER, 'X-Esign-Proxy');
    assert.equal(proxy.PROXY_HEADER, core.PROXY_HEADER);
    assert.equal(proxy.PROXY_HEADER_VALUE, core.PROXY_HEADER_VALUE);
    const url = await startProxy({});
    const answer = await read(
      await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', [core.PROXY_HEADER]: core.PROXY_HEADER_VALUE },
        body: form(codeGrant),
      }),
    );
    assert.equal(answer.status, 200);
  });
});

describe('token proxy: rate limit', () => {
  test('429 with Retry-After past the limit, per client address, never per Origin', async () => {
    const events: TokenProxyEvent[] = [];
    const url = await startProxy({
      rateLimit: { windowMs: 60_000, max: 3 },
      allowedOrigins: [ORIGIN, 'http://127.0.0.1:6006'],
      trustedProxies: ['127.0.0.1'],
      onEvent: (e) => events.push(e),
    });
    for (let i = 0; i < 3; i += 1) assert.equal((await read(await post(`${url}/token`, form(codeGrant)))).status, 200);
    const limited = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error, 'temporarily_unavailable');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(received.length, 3);
    // Another Origin header (which any non-browser client sets at will) does not get a bucket of its own...
    assert.equal((await read(await post(`${url}/token`, form(codeGrant), { Origin: 'http://127.0.0.1:6006' }))).status, 429);
    // ...another client address (here through a trusted proxy's X-Forwarded-For) does.
    assert.equal((await read(await post(`${url}/token`, form(codeGrant), { 'X-Forwarded-For': '198.51.100.7' }))).status, 200);
    assert.deepEqual(
      events.map((e) => [e.type, e.status]),
      [
        ['authorization_code', 200],
        ['authorization_code', 200],
        ['authorization_code', 200],
        ['authorization_code', 429],
        ['authorization_code', 429],
        ['authorization_code', 200],
      ],
    );
    // only these fields, never a token, code or secret
    const fields = new Set([
      'type',
      'route',
      'method',
      'status',
      'outcome',
      'error',
      'requestId',
      'durationMs',
      'upstreamMs',
      'refreshed',
      'rateLimited',
      'mode',
      'cached',
      'replayed',
    ]);
    for (const event of events) {
      for (const key of Object.keys(event)) assert.ok(fields.has(key), `event field ${key}`);
      assert.equal(event.route, '/token');
      assert.equal(event.method, 'POST');
      assert.match(event.requestId, /^[0-9a-f-]{36}$/);
      assert.ok(event.durationMs >= 0, 'event.durationMs >= 0');
      assert.ok(!JSON.stringify(event).includes(SECRET));
    }
    assert.deepEqual(
      events.map((e) => e.outcome),
      ['ok', 'ok', 'ok', 'rate_limited', 'rate_limited', 'ok'],
    );
    assert.deepEqual(
      events.map((e) => e.rateLimited === true),
      [false, false, false, true, true, false],
    );
    // the exchanges waited for the service; the refused ones never called it
    assert.deepEqual(
      events.map((e) => e.upstreamMs !== undefined && e.upstreamMs > 0),
      [true, true, true, false, false, true],
    );
  });

  test('clientAddress option picks the address (e.g. CF-Connecting-IP)', async () => {
    const url = await startProxy({ rateLimit: { windowMs: 60_000, max: 1 }, clientAddress: (r) => r.headers.get('x-user') ?? 'anon' });
    assert.equal((await read(await post(`${url}/token`, form(codeGrant), { 'X-User': 'a' }))).status, 200);
    assert.equal((await read(await post(`${url}/token`, form(codeGrant), { 'X-User': 'a' }))).status, 429);
    assert.equal((await read(await post(`${url}/token`, form(codeGrant), { 'X-User': 'b' }))).status, 200);
  });
});

describe('token proxy: upstream failures', () => {
  let url: string;
  before(async () => {
    url = await startProxy({ rateLimit: false, timeoutMs: 300, maxUpstreamBytes: 4096 });
  });

  const failures: Array<[string, UpstreamBehaviour, number, string?]> = [
    [
      '503 with JSON',
      (_q, s) => {
        s.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '7' });
        s.end('{"error":"server_error"}');
      },
      502,
    ],
    [
      '500 HTML error page',
      (_q, s) => {
        s.writeHead(500, { 'Content-Type': 'text/html' });
        s.end(`<html><body>Internal error ${SECRET}</body></html>`);
      },
      502,
    ],
    [
      '200 HTML page (captive portal)',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'text/html' });
        s.end('<html>login</html>');
      },
      502,
    ],
    [
      '404 HTML from a gateway',
      (_q, s) => {
        s.writeHead(404, { 'Content-Type': 'text/html' });
        s.end('<h1>Not Found</h1>');
      },
      502,
    ],
    [
      '200 malformed JSON',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.end('{"access_token":');
      },
      502,
    ],
    [
      '200 JSON without a token',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.end('{"ok":true}');
      },
      502,
      // the service answered, and its answer was wrong: not an outage
      'invalid_token_response',
    ],
    [
      '400 JSON without error field',
      (_q, s) => {
        s.writeHead(400, { 'Content-Type': 'application/json' });
        s.end('{"message":"bad"}');
      },
      502,
    ],
    [
      '302 redirect',
      (_q, s) => {
        s.writeHead(302, { Location: 'https://evil.example/steal' });
        s.end();
      },
      502,
    ],
    [
      'dropped connection',
      (q) => {
        q.socket.destroy();
      },
      502,
    ],
    [
      'huge answer',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.end(JSON.stringify({ access_token: 'a'.repeat(100_000), token_type: 'Bearer' }));
      },
      502,
    ],
    [
      'huge chunked answer',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        for (let i = 0; i < 50; i += 1) s.write('x'.repeat(1000));
        s.end();
      },
      502,
    ],
    [
      'timeout',
      () => {
        /* never answers */
      },
      504,
    ],
    [
      'headers then a stalled body',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.write('{"access_token":');
      },
      504,
    ],
  ];

  for (const [name, fail, status, error = 'temporarily_unavailable'] of failures) {
    test(name, async () => {
      behaviour = fail;
      const answer = await read(await post(`${url}/token`, form(codeGrant)));
      assert.equal(answer.status, status);
      assert.equal(answer.json.error, error);
      assert.equal(typeof answer.json.error_description, 'string');
      assert.equal(answer.headers.get('location'), null);
      assert.equal(answer.headers.get('access-control-allow-origin'), ORIGIN, 'the browser can read the error');
    });
  }

  // the Fetch handler with the runtime's fetch, as on Workers, Deno and Bun: the same 504 as serveTokenProxy, a
  // refresh and a code exchange alike
  for (const [name, fields] of [
    ['refresh', { grant_type: 'refresh_token', refresh_token: 'rt-1' }],
    ['code exchange', codeGrant],
  ] as const) {
    test(`timeout through the Fetch handler and the runtime's fetch (${name}) is a 504`, async () => {
      behaviour = () => {
        /* never answers */
      };
      const handler = createTokenProxy({
        clientId: 'demo-client',
        clientSecret: SECRET,
        baseUrl: upstreamUrl,
        allowedOrigins: [ORIGIN],
        redirectUris: [REDIRECT],
        timeoutMs: 1_000,
        browserHeldRefreshTokens: true,
        clientAddress: () => '127.0.0.1',
      });
      const started = Date.now();
      const answer = await read(
        await handler(
          new Request('http://proxy.example/token', {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
            body: form(fields),
          }),
        ),
      );
      assert.equal(answer.status, 504);
      assert.equal(answer.json.error, 'temporarily_unavailable');
      assert.match(String(answer.json.error_description), /within 1000 ms/);
      assert.ok(Date.now() - started < 5_000, 'answered at the time limit, not at the service');
    });
  }

  test('an unreachable service is a 502', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const deadUrl = await startProxy({ baseUrl: `http://127.0.0.1:${port}` });
    const answer = await read(await post(`${deadUrl}/token`, form(codeGrant)));
    assert.equal(answer.status, 502);
    assert.equal(answer.json.error, 'temporarily_unavailable');
  });

  test('upstream 429 stays 429 with its Retry-After', async () => {
    behaviour = (_q, s) => {
      s.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '12' });
      s.end('{"error":"slow_down"}');
    };
    const answer = await read(await post(`${url}/token`, form(codeGrant)));
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get('retry-after'), '12');
  });
});

describe('token proxy: no upstream error text reaches the browser', () => {
  // characters that percent-, form- and Basic-encoding all change
  const ODD_SECRET = 's3cr3t välue/+&=:%~-0123456789';
  const CLIENT = 'demo-client';
  const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  /** The secret in every encoding an upstream echo may carry it in. */
  function secretForms(authorization: string | undefined): string[] {
    const oauthEncode = (value: string): string =>
      encodeURIComponent(value)
        .replace(/[-_.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, '+');
    const forms = [ODD_SECRET, encodeURIComponent(ODD_SECRET), formEncode(ODD_SECRET), oauthEncode(ODD_SECRET)];
    for (const pair of [`${CLIENT}:${ODD_SECRET}`, `${oauthEncode(CLIENT)}:${oauthEncode(ODD_SECRET)}`])
      forms.push(Buffer.from(pair).toString('base64'), Buffer.from(pair).toString('base64url'));
    if (authorization) forms.push(authorization, authorization.replace(/^Basic /, ''));
    return forms;
  }
  /** An upstream error carrying the whole request back: body, Authorization header, decoded Basic credentials, percent-encoded. */
  const echo = (req: IncomingMessage, body: string): string => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const credentials = basic ? Buffer.from(basic, 'base64').toString() : '';
    return `UPSTREAM-TEXT body=${body} authorization=${req.headers.authorization ?? ''} credentials=${credentials} pct=${encodeURIComponent(body + credentials)} form=${formEncode(ODD_SECRET)}`;
  };
  const shapes: Array<[string, UpstreamBehaviour, Record<string, string>]> = [
    [
      'OAuth error',
      (req, res, body) => {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_grant', error_description: echo(req, body), error_uri: `https://esign.example/e?${body}` }));
      },
      { error: 'invalid_grant' },
    ],
    [
      'business error',
      (req, res, body) => {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ Response: { RequestId: 'req-7f3a-0001', Error: { Code: 'InvalidParameter.Code', Message: echo(req, body) } } }));
      },
      { error: 'InvalidParameter.Code', request_id: 'req-7f3a-0001' },
    ],
  ];
  const calls: Array<[string, string]> = [
    ['/token', form(codeGrant)],
    ['/revoke', form({ token: 'rt-1' })],
  ];

  for (const clientAuth of ['post', 'basic'] as const) {
    for (const [shape, upstreamError, expected] of shapes) {
      for (const [route, body] of calls) {
        test(`clientAuth ${clientAuth}, ${shape} echoing the request, ${route}: the code and RequestId only`, async () => {
          const url = await startProxy({ clientAuth, clientId: CLIENT, clientSecret: ODD_SECRET, rateLimit: false });
          behaviour = upstreamError;
          const response = await post(`${url}${route}`, body);
          const text = await response.text();
          const sent = received.at(-1)!;
          assert.ok(sent.body.includes(formEncode(ODD_SECRET)) || (sent.headers.authorization ?? '').startsWith('Basic '), 'the upstream got the secret');
          for (const secret of secretForms(sent.headers.authorization)) assert.ok(!text.includes(secret), `the secret as ${JSON.stringify(secret)} in ${text}`);
          assert.ok(!text.includes('UPSTREAM-TEXT') && !text.includes('esign.example'), `upstream text in ${text}`);
          const json = JSON.parse(text) as Record<string, unknown>;
          assert.equal(response.status, 400);
          assert.deepEqual(Object.keys(json).sort(), ['error', 'error_description', ...Object.keys(expected).filter((k) => k !== 'error')].sort());
          for (const [key, value] of Object.entries(expected)) assert.equal(json[key], value, key);
          assert.equal(typeof json.error_description, 'string');
        });
      }
    }
  }

  test("the description is the proxy's own sentence for the code, whatever the service wrote", async () => {
    const url = await startProxy({ rateLimit: false });
    const described = async (description?: string): Promise<unknown> => {
      behaviour = (_req, res) => {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_grant', ...(description === undefined ? {} : { error_description: description }) }));
      };
      return (await read(await post(`${url}/token`, form(codeGrant)))).json.error_description;
    };
    const own = await described();
    assert.equal(typeof own, 'string');
    assert.equal(await described('The code was used; please see https://evil.example'), own);
  });

  test('an error code that is not a short token (or holds the secret) is not passed on: 502', async () => {
    const url = await startProxy({ rateLimit: false });
    for (const error of ['x'.repeat(65), 'bad "quoted" code', `invalid_client ${SECRET}`, 'Basic ZGVtby1jbGllbnQ6c2VjcmV0', SECRET]) {
      behaviour = (_req, res) => {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error }));
      };
      const answer = await read(await post(`${url}/token`, form(codeGrant)));
      assert.equal(answer.status, 502, error);
      assert.equal(answer.json.error, 'temporarily_unavailable');
    }
  });
});

describe('token proxy: an oversized answer is cut while streaming', () => {
  const LIMIT = 64 * 1024; // the default maxUpstreamBytes
  const TOTAL = 48 * 1024 * 1024;

  /** An upstream streaming TOTAL bytes of one JSON string as fast as it is read; `sent` is what it got to write before the proxy hung up. */
  function streaming(): { behaviour: UpstreamBehaviour; streams: Array<{ path: string; sent: number; stopped: Promise<void> }> } {
    const streams: Array<{ path: string; sent: number; stopped: Promise<void> }> = [];
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const behaviour: UpstreamBehaviour = (req, res) => {
      const stream = { path: req.url ?? '', sent: 0, stopped: new Promise<void>((resolve) => res.once('close', resolve)) };
      streams.push(stream);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"issuer":"');
      // one chunk per turn of the event loop (the proxy, in this process, reads in between), so the
      // loopback socket buffers hold little and `sent` stays near what the proxy read
      const pump = (): void => {
        if (res.destroyed) return;
        if (stream.sent >= TOTAL) return void res.end('"}');
        stream.sent += chunk.length;
        if (res.write(chunk)) setImmediate(pump);
        else res.once('drain', () => setImmediate(pump));
      };
      pump();
    };
    return { behaviour, streams };
  }

  const paths: Array<[string, Partial<TokenProxyOptions>]> = [
    ["the runtime's fetch (default)", {}],
    ['a fetch option', { fetch: (input, init) => fetch(input, init) }],
  ];
  for (const [name, fetchOption] of paths) {
    for (const metadata of [false, true]) {
      test(`${name}, ${metadata ? 'metadata' : 'token endpoint'}: 502, and the proxy read about ${LIMIT} bytes of ${TOTAL}`, async () => {
        const { behaviour: stream, streams } = streaming();
        behaviour = stream;
        const url = await startProxy({ rateLimit: false, timeoutMs: 10_000, ...fetchOption, ...(metadata ? { issuer: upstreamUrl } : {}) });
        const answer = await read(await post(`${url}/token`, form(codeGrant)));
        assert.equal(answer.status, 502);
        assert.equal(answer.json.error, 'temporarily_unavailable');
        assert.ok(streams.length >= 1, 'the service was called');
        const stopped = await Promise.race([
          Promise.all(streams.map((s) => s.stopped)).then(() => 'stopped'),
          new Promise((resolve) => setTimeout(() => resolve('still streaming'), 5_000)),
        ]);
        assert.equal(stopped, 'stopped', 'the proxy hung up');
        // the limit plus a chunk or two in flight (about 1.5 x the limit here); whole-answer buffering reads all 48 MiB
        for (const s of streams) assert.ok(s.sent < 4 * LIMIT, `${s.path}: the upstream wrote ${s.sent} bytes before the proxy hung up`);
      });
    }
  }
});

describe('token proxy: configuration and Fetch handler', () => {
  const base: TokenProxyOptions = {
    clientId: 'c',
    clientSecret: 's',
    baseUrl: 'https://esign.example',
    allowedOrigins: [],
    publicOrigin: 'https://app.example',
    redirectUris: ['https://app.example/cb'],
    cookieKeys: [COOKIE_KEY],
    browserHeldRefreshTokens: true,
  };

  test('refuses unsafe configuration', () => {
    const bad: Array<Partial<TokenProxyOptions>> = [
      { clientSecret: '' },
      { clientId: '' },
      { baseUrl: 'http://esign.example' },
      { baseUrl: 'ftp://esign.example' },
      { allowedOrigins: ['*'] },
      { allowedOrigins: ['null'] },
      { allowedOrigins: ['https://app.example/path'] },
      { redirectUris: [] },
      { redirectUris: ['http://app.example/cb'] },
      { redirectUris: ['javascript:alert(1)'] },
      { tokenEndpoint: 'http://evil.example/token' },
      { rateLimit: { windowMs: 0, max: 1 } },
      { refreshReplayMs: -1 },
      { refreshReplayMs: Number.NaN },
      { redirectUris: ['https://user:pass@app.example/cb'] },
      { cookieKeys: [], browserHeldRefreshTokens: false },
      { cookieKeys: undefined, browserHeldRefreshTokens: undefined },
      { cookieKeys: ['c2hvcnQ'] },
      { cookieKeys: [COOKIE_KEY, 'not a key'] },
      { basePath: 'api' },
      { basePath: '/api/../x' },
      { cookieDomain: 'bad domain' },
      { sessionMaxAgeSeconds: 0 },
      { issuer: 'http://esign.example' },
      // the default mode needs the proxy's public origin: https, or plain http on loopback only; an origin, not a URL
      { publicOrigin: undefined },
      { publicOrigin: undefined, browserHeldRefreshTokens: false, redirectUris: undefined },
      { publicOrigin: 'http://app.example' },
      { publicOrigin: 'https://app.example/proxy' },
      { publicOrigin: '*' },
      { publicOrigin: 'null' },
      { authorizationEndpoint: 'http://evil.example/auth' },
      { sessionIdleSeconds: 0 },
      { loginTimeoutSeconds: 0 },
    ];
    for (const override of bad) {
      assert.throws(
        () => createTokenProxy({ ...base, ...override }),
        (e: unknown) =>
          e instanceof EsignError &&
          e.code === 'invalid_config' &&
          !e.message.includes('s3cret') &&
          !e.message.includes(COOKIE_KEY) &&
          !e.message.includes('not a key'),
        JSON.stringify(override),
      );
    }
    // several mistakes: every one named, one per line
    assert.throws(
      () =>
        createTokenProxy({
          ...base,
          baseUrl: 'http://esign.example',
          allowedOrigins: ['*', 'https://ok.example', 'ftp://x'],
          cookieKeys: ['c2hvcnQ'],
          basePath: 'api',
          sessionIdleSeconds: 0,
        }),
      (e: unknown) => {
        assert.ok(e instanceof EsignError && e.code === 'invalid_config');
        assert.deepEqual(
          e.message.split('\n').map((line) => line.split(/[ :]/)[0]),
          ['baseUrl', 'allowedOrigins', 'allowedOrigins', 'cookieKeys[0]', 'basePath', 'sessionIdleSeconds'],
          e.message,
        );
        return true;
      },
    );
    assert.doesNotThrow(() =>
      createTokenProxy({ ...base, allowedOrigins: ['http://localhost:6006/'], redirectUris: ['com.example.esign:/oauth/callback', 'http://127.0.0.1:8080/'] }),
    );
    // redirect URIs are only for the browser-held mode: the default mode's is its own callback
    assert.doesNotThrow(() => createTokenProxy({ ...base, browserHeldRefreshTokens: false, redirectUris: undefined }));
    // plain http for the public origin on a loopback host (development)
    assert.doesNotThrow(() => createTokenProxy({ ...base, publicOrigin: 'http://localhost:4020' }));
    assert.doesNotThrow(() => createTokenProxy({ ...base, publicOrigin: 'http://127.0.0.1:4020/' }));
    // the browser-held mode alone (no cookie keys) needs no public origin
    assert.doesNotThrow(() => createTokenProxy({ ...base, cookieKeys: undefined, publicOrigin: undefined }));
  });

  test('is a plain Fetch handler; same-origin requests need no allowlist entry', async () => {
    const handler = createTokenProxy({ ...base, fetch: async () => Response.json({ access_token: 'x', token_type: 'Bearer' }) });
    const make = (origin: string): Request =>
      new Request('https://app.example/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: origin },
        body: form({ grant_type: 'authorization_code', code: 'c', code_verifier: 'v', redirect_uri: 'https://app.example/cb' }),
      });
    assert.equal((await handler(make('https://app.example'))).status, 200);
    assert.equal((await handler(make('https://other.example'))).status, 403);
    const strict = createTokenProxy({ ...base, allowSameOrigin: false, fetch: async () => Response.json({ access_token: 'x', token_type: 'Bearer' }) });
    assert.equal((await strict(make('https://app.example'))).status, 403);
  });
});

describe('token proxy: mounted in a plain node:http server', () => {
  test('getRequestListener(handler) under a prefix', async () => {
    const { getRequestListener } = await import('@hono/node-server');
    const handler = createTokenProxy({
      clientId: 'demo-client',
      clientSecret: SECRET,
      baseUrl: upstreamUrl,
      allowedOrigins: [ORIGIN],
      publicOrigin: 'https://app.example',
      redirectUris: [REDIRECT],
      basePath: '/api/esign',
      cookieKeys: [COOKIE_KEY],
      browserHeldRefreshTokens: true,
    });
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- @hono/node-server's listener answers its own errors
    const host = createServer(getRequestListener(handler));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/api/esign/token`;
      const answer = await read(await post(url, form(codeGrant)));
      assert.equal(answer.status, 200);
      assert.equal(answer.json.access_token, 'at-1');
    } finally {
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });
});

describe('token proxy: endpoints from RFC 8414 metadata (issuer)', () => {
  test('token and revocation endpoints read once from the issuer; an explicit endpoint wins; a wrong issuer is a 502', async () => {
    const metadata =
      (issuer: string, at = '/.well-known/oauth-authorization-server'): UpstreamBehaviour =>
      (req, res, _body) => {
        if (req.url === at) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ issuer, token_endpoint: `${upstreamUrl}/as/token`, revocation_endpoint: `${upstreamUrl}/as/revoke` }));
        } else if (req.url === '/as/revoke') {
          res.writeHead(200);
          res.end();
        } else {
          okToken(req, res, _body);
        }
      };
    behaviour = metadata(upstreamUrl);
    const url = await startProxy({ issuer: upstreamUrl });
    assert.equal((await read(await post(`${url}/token`, form(codeGrant)))).status, 200);
    assert.equal((await read(await post(`${url}/token`, form({ grant_type: 'refresh_token', refresh_token: 'rt-9' })))).status, 200);
    assert.equal((await read(await post(`${url}/revoke`, form({ token: 'rt-1' })))).status, 200);
    assert.deepEqual(
      received.map((r) => r.path),
      ['/.well-known/oauth-authorization-server', '/as/token', '/as/token', '/as/revoke'],
      'metadata read once',
    );

    received.length = 0;
    const explicit = await startProxy({ issuer: upstreamUrl, tokenEndpoint: `${upstreamUrl}/mine/token` });
    await read(await post(`${explicit}/token`, form(codeGrant)));
    assert.deepEqual(
      received.map((r) => r.path),
      ['/.well-known/oauth-authorization-server', '/mine/token'],
    );

    received.length = 0;
    behaviour = metadata('https://someone-else.example');
    const wrong = await startProxy({ issuer: upstreamUrl });
    const answer = await read(await post(`${wrong}/token`, form(codeGrant)));
    assert.equal(answer.status, 502);
    assert.equal(answer.json.error, 'temporarily_unavailable');
    assert.deepEqual(
      received.map((r) => r.path),
      ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
      'no token request to an unverified server (the OpenID Connect document is tried too)',
    );
    // a later request reads the metadata again (the failure is not kept)
    behaviour = metadata(upstreamUrl);
    assert.equal((await read(await post(`${wrong}/token`, form(codeGrant)))).status, 200);

    // a server that publishes only OpenID Connect discovery: the same fields, read from there
    received.length = 0;
    behaviour = metadata(upstreamUrl, '/.well-known/openid-configuration');
    const oidcOnly = await startProxy({ issuer: upstreamUrl });
    assert.equal((await read(await post(`${oidcOnly}/token`, form(codeGrant)))).status, 200);
    assert.deepEqual(
      received.map((r) => r.path),
      ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/as/token'],
    );
  });
});

/**
 * The default mode's sign-in against the small upstream here: the login route (its pre-login cookie kept), the
 * service's redirect back to the proxy's callback with a code and the state the proxy sent (no consent page: this
 * upstream grants anything), the callback redeeming the code. Returns the session cookie (`name=value`) and its line.
 */
async function signIn(url: string): Promise<{ cookie: string; line: string; callbackUrl: string }> {
  const jar: Jar = new Map();
  const attempt = 'attempt-0123456789abcdef';
  const login = await getWithJar(
    `${url}/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt, scope: 'envelope:read' })}`,
    jar,
  );
  assert.equal(login.status, 303, await login.text());
  const authorization = new URL(login.headers.get('location')!);
  assert.equal(`${authorization.origin}${authorization.pathname}`, `${upstreamUrl}/openapi/v1/oauth/auth`);
  const callbackUrl = authorization.searchParams.get('redirect_uri')!;
  const callback = await getWithJar(`${callbackUrl}?${new URLSearchParams({ code: 'c0de', state: authorization.searchParams.get('state')! })}`, jar);
  assert.equal(callback.status, 303, await callback.text());
  assert.match(callback.headers.get('location') ?? '', /#attempt=attempt-0123456789abcdef&outcome=connected&/);
  const line = callback.headers.getSetCookie().find((l) => /^esign_(?!l_)/.test(l));
  assert.ok(line, `no session cookie in ${callback.headers.getSetCookie().join(' | ')}`);
  return { cookie: line.split(';')[0]!, line, callbackUrl };
}

describe('token proxy: a session cookie stays under ~4 KB', () => {
  test('big extra fields are left out of the cookie, then a big access token (the next refresh asks the service)', async () => {
    const url = await startProxy({ browserHeldRefreshTokens: false });
    const session = (fields: Record<string, string>): string => form({ ...fields, session: 'open' });
    behaviour = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          access_token: 'at-1',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'rt-1',
          scope: 'envelope:read',
          user_name: 'n'.repeat(3_000),
        }),
      );
    };
    const { cookie: jar, line: cookie, callbackUrl } = await signIn(url);
    assert.ok(cookie.length < 4_000, `cookie of ${cookie.length} bytes`);
    // the callback redeemed the code with its verifier and its own callback as redirect_uri
    assert.equal(received.length, 1);
    const exchange = new URLSearchParams(received[0]!.body);
    assert.equal(exchange.get('grant_type'), 'authorization_code');
    assert.equal(exchange.get('code'), 'c0de');
    assert.equal(exchange.get('redirect_uri'), callbackUrl);
    assert.match(exchange.get('code_verifier') ?? '', /^[\w-]{43,128}$/);
    const refresh = { grant_type: 'refresh_token' };
    // the page's first token after the sign-in: the one from the code exchange, kept in the cookie
    const cached = await read(await post(`${url}/token`, session(refresh), { Cookie: jar }));
    assert.equal(cached.status, 200);
    assert.equal(cached.json.access_token, 'at-1', 'the access token is still cached');
    assert.equal(cached.json.user_name, undefined, 'the extra field was left out');
    assert.equal(received.length, 1, 'no call to the service');

    const bigToken = 'a'.repeat(3_000);
    behaviour = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ access_token: bigToken, token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-2' }));
    };
    const forced = await post(`${url}/token`, session({ ...refresh, force: '1' }), { Cookie: jar });
    assert.equal(((await forced.json()) as Record<string, unknown>).access_token, bigToken);
    assert.equal(new URLSearchParams(received[1]!.body).get('refresh_token'), 'rt-1', "the session's refresh token");
    const second = forced.headers.getSetCookie()[0]!;
    assert.ok(second.length < 4_000, `cookie of ${second.length} bytes`);
    const again = await read(await post(`${url}/token`, session(refresh), { Cookie: second.split(';')[0]! }));
    assert.equal(again.status, 200);
    assert.equal(received.length, 3, 'no cached access token in the cookie: the service was asked');
    assert.equal(new URLSearchParams(received[2]!.body).get('refresh_token'), 'rt-2', 'with the rotated refresh token');
  });
});

describe('token proxy: mounted in an existing Hono app', () => {
  test("app.route('/', createTokenProxyApp({basePath})): the proxy's routes work, the app's own routes keep their headers", async () => {
    const { Hono } = await import('hono');
    const { createTokenProxyApp } = await import('../src/index.js');
    const site = new Hono();
    site.get('/health', (c) => c.text('ok'));
    site.route(
      '/',
      createTokenProxyApp({
        clientId: 'demo-client',
        clientSecret: SECRET,
        baseUrl: upstreamUrl,
        allowedOrigins: [ORIGIN],
        publicOrigin: 'https://app.example',
        redirectUris: [REDIRECT],
        basePath: '/api/esign',
        cookieKeys: [COOKIE_KEY],
        browserHeldRefreshTokens: true,
      }),
    );
    const health = await site.fetch(new Request('http://app.example/health'));
    assert.equal(await health.text(), 'ok');
    assert.equal(health.headers.get('cache-control'), null, "the proxy's headers stay on its own routes");
    const answer = await read(
      await site.fetch(
        new Request('http://app.example/api/esign/token', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
          body: form(codeGrant),
        }),
      ),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.json.access_token, 'at-1');
    assert.equal(answer.headers.get('access-control-allow-origin'), ORIGIN);
  });
});

describe('token proxy: properties', () => {
  test('whatever the form holds, only known fields go upstream and the secret never comes back', async () => {
    const allowed = new Set(['grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope', 'client_id', 'client_secret']);
    let forwarded: URLSearchParams | undefined;
    let refreshTokens = 0;
    const handler = createTokenProxy({
      clientId: 'demo-client',
      clientSecret: SECRET,
      baseUrl: 'https://esign.example',
      allowedOrigins: [ORIGIN],
      publicOrigin: 'https://app.example',
      redirectUris: [REDIRECT],
      rateLimit: false,
      cookieKeys: [COOKIE_KEY],
      browserHeldRefreshTokens: true,
      fetch: async (_input, init) => {
        forwarded = new URLSearchParams(String(init?.body));
        return Response.json({ access_token: 'at', token_type: 'Bearer', echo: SECRET, [SECRET]: 1 });
      },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('authorization_code', 'refresh_token'),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), { maxKeys: 6 }),
        async (grant, extra) => {
          forwarded = undefined;
          const fields = new URLSearchParams(extra);
          fields.delete('grant_type');
          fields.delete('client_id');
          for (const key of ['code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope']) fields.delete(key);
          fields.set('grant_type', grant);
          if (grant === 'authorization_code') {
            fields.set('code', 'c');
            fields.set('code_verifier', 'v');
            fields.set('redirect_uri', REDIRECT);
          } else {
            // a new token each time: the same one again would be answered from the replay window
            refreshTokens += 1;
            fields.set('refresh_token', `r${refreshTokens}`);
          }
          const response = await handler(
            new Request('http://127.0.0.1/token', {
              method: 'POST',
              headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
              body: fields.toString(),
            }),
          );
          const text = await response.text();
          assert.equal(response.status, 200, text);
          assert.ok(!text.includes(SECRET), 'secret in the answer');
          for (const [name, value] of response.headers) assert.ok(!value.includes(SECRET), `secret in header ${name}`);
          // Assigned inside the fetch callback, which TypeScript cannot see.
          const sent = forwarded as URLSearchParams | undefined;
          assert.ok(sent, 'the service was called');
          for (const key of sent.keys()) assert.ok(allowed.has(key), `forwarded ${key}`);
          assert.equal(sent.get('client_secret'), SECRET);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('token proxy: serveTokenProxy (@hono/node-server) and the Fetch handler answer alike', () => {
  test('same status, headers and body for accepted, refused and upstream-failed requests', async () => {
    const options: TokenProxyOptions = {
      clientId: 'demo-client',
      clientSecret: SECRET,
      baseUrl: upstreamUrl,
      allowedOrigins: [ORIGIN],
      publicOrigin: 'http://localhost:4020',
      redirectUris: [REDIRECT],
      rateLimit: false,
      timeoutMs: 1_000,
      cookieKeys: [COOKIE_KEY],
      browserHeldRefreshTokens: true,
    };
    const served = await startProxy(options);
    const { getRequestListener } = await import('@hono/node-server');
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- @hono/node-server's listener answers its own errors
    const host = createServer(getRequestListener(createTokenProxy(options)));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const viaFetch = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const proxyHeaders = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN };
    const cases: Array<[string, string, RequestInit, UpstreamBehaviour?]> = [
      ['code exchange', '/token', { method: 'POST', headers: proxyHeaders, body: form(codeGrant) }],
      [
        'refresh without Origin',
        '/token',
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8', 'X-Esign-Proxy': '1' },
          body: form({ grant_type: 'refresh_token', refresh_token: 'r' }),
        },
      ],
      ['revoke', '/revoke', { method: 'POST', headers: proxyHeaders, body: form({ token: 't' }) }, (_q, s) => s.end()],
      ['preflight', '/token', { method: 'OPTIONS', headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' } }],
      ['foreign preflight', '/token', { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } }],
      ['unknown path', '/authorize', { method: 'POST', headers: proxyHeaders, body: form(codeGrant) }],
      ['GET', '/token', { method: 'GET' }],
      ['missing header', '/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN }, body: form(codeGrant) }],
      ['JSON body', '/token', { method: 'POST', headers: { ...proxyHeaders, 'Content-Type': 'application/json' }, body: '{}' }],
      ['oversized body', '/token', { method: 'POST', headers: proxyHeaders, body: form({ ...codeGrant, code: 'x'.repeat(9 * 1024) }) }],
      ['repeated field', '/token', { method: 'POST', headers: proxyHeaders, body: `${form(codeGrant)}&code=2` }],
      ['unlisted redirect_uri', '/token', { method: 'POST', headers: proxyHeaders, body: form({ ...codeGrant, redirect_uri: 'https://evil.example/cb' }) }],
      ['wrong client_id', '/token', { method: 'POST', headers: proxyHeaders, body: form({ ...codeGrant, client_id: 'other' }) }],
      [
        'upstream OAuth error',
        '/token',
        { method: 'POST', headers: proxyHeaders, body: form(codeGrant) },
        (_q, s) => {
          s.writeHead(400, { 'Content-Type': 'application/json' });
          s.end(`{"error":"invalid_grant","error_description":"x ${SECRET}"}`);
        },
      ],
      [
        'upstream 503',
        '/token',
        { method: 'POST', headers: proxyHeaders, body: form(codeGrant) },
        (_q, s) => {
          s.writeHead(503, { 'Retry-After': '7' });
          s.end('down');
        },
      ],
      [
        'upstream 429',
        '/token',
        { method: 'POST', headers: proxyHeaders, body: form(codeGrant) },
        (_q, s) => {
          s.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '3' });
          s.end('{"error":"slow_down"}');
        },
      ],
      [
        'upstream HTML',
        '/token',
        { method: 'POST', headers: proxyHeaders, body: form(codeGrant) },
        (_q, s) => {
          s.writeHead(200, { 'Content-Type': 'text/html' });
          s.end('<html>');
        },
      ],
      [
        'upstream redirect',
        '/token',
        { method: 'POST', headers: proxyHeaders, body: form(codeGrant) },
        (_q, s) => {
          s.writeHead(302, { Location: 'https://evil.example' });
          s.end();
        },
      ],
      ['upstream drops the connection', '/token', { method: 'POST', headers: proxyHeaders, body: form(codeGrant) }, (q) => q.socket.destroy()],
      // the default mode's sign-in routes (the answers that carry no random state)
      [
        'login from a foreign origin',
        `/login?${new URLSearchParams({ session: 'open', origin: 'https://evil.example', display: 'popup', attempt: 'a'.repeat(22) })}`,
        { method: 'GET' },
      ],
      [
        'login with a malformed attempt',
        `/login?${new URLSearchParams({ session: 'open', origin: ORIGIN, display: 'popup', attempt: 'short' })}`,
        { method: 'GET' },
      ],
      [
        'login with a bad slot',
        `/login?${new URLSearchParams({ session: 'space:x', origin: ORIGIN, display: 'popup', attempt: 'a'.repeat(22) })}`,
        { method: 'GET' },
      ],
      ['callback without its pre-login cookie', '/callback?code=c0de&state=unknown-state', { method: 'GET' }],
      ['done page', '/login/done', { method: 'GET' }],
      ['health', '/health', { method: 'GET', headers: { Origin: ORIGIN } }],
      ['ready', '/ready', { method: 'GET' }],
    ];
    const snapshot = async (base: string, path: string, init: RequestInit): Promise<string> => {
      const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
      // every answer has a request id of its own: compared by its shape
      const headers = [...response.headers]
        .filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name))
        .map(([name, value]) => [
          name,
          name === 'x-request-id' && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(value) ? '<uuid>' : value,
        ]);
      return JSON.stringify({ status: response.status, headers: headers.sort(), body: await response.text() });
    };
    try {
      for (const [name, path, init, upstreamBehaviour] of cases) {
        behaviour = upstreamBehaviour ?? okToken;
        const node = await snapshot(served, path, init);
        const handler = await snapshot(viaFetch, path, init);
        assert.equal(node, handler, name);
        assert.ok(!node.includes(SECRET), `secret in the answer to ${name}`);
        // nothing of the sign-in routes reaches the service: a code without its pre-login cookie is never redeemed
        if (path !== '/token' && path !== '/revoke') assert.equal(received.length, 0, `the service was called for ${name}`);
        received.length = 0;
      }
    } finally {
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  test('a client that goes away cancels the upstream call', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    behaviour = (req) => req.socket.once('close', () => upstreamClosed());
    const url = await startProxy({ rateLimit: false, timeoutMs: 5_000 });
    const controller = new AbortController();
    const aborted = fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
      body: form(codeGrant),
      signal: controller.signal,
    }).catch(() => 'aborted');
    // the upstream has the request (and never answers it)
    while (received.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    assert.equal(await aborted, 'aborted', 'the client saw its own abort');
    // well before the proxy's 5 s timeout
    const outcome = await Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000))]);
    assert.equal(outcome, 'closed', 'the upstream connection of the abandoned call was closed');
  });
});
