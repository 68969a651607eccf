/**
 * API client over real sockets against a small business-API stand-in started here: envelope unwrapping,
 * error mapping, 401 refresh-and-retry, retries with backoff and Retry-After, timeouts and aborts.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient, EsignClient, type ClientOptions, type TokenSource } from '../../src/core/service/client.js';
import { EsignError } from '@esign-elements/shared/errors';

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}
type Behaviour = (req: IncomingMessage, res: ServerResponse, seen: Seen, index: number) => void;

let server: Server;
let baseUrl: string;
let behaviour: Behaviour;
const seen: Seen[] = [];
const sockets = new Set<Socket>();

function envelope(res: ServerResponse, status: number, payload: Record<string, unknown>, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ Response: { RequestId: `req-${seen.length}`, ...payload } }));
}
const ok =
  (data: unknown): Behaviour =>
  (_q, s) =>
    envelope(s, 200, { Data: data });
const fail =
  (status: number, code: string, message: string, headers: Record<string, string> = {}): Behaviour =>
  (_q, s) =>
    envelope(s, status, { Error: { Code: code, Message: message } }, headers);
/** Runs the given behaviours in order, the last one for every later request. */
const sequence =
  (...steps: Behaviour[]): Behaviour =>
  (q, s, x, i) =>
    steps[Math.min(i, steps.length - 1)]!(q, s, x, i);

before(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep raw text
      }
      const entry = { path: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      behaviour(req, res, entry, seen.length - 1);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
  behaviour = ok({});
});

/** A token source that records its calls; the first token can be made stale. */
function tokens(first = 'token-1', refreshed = 'token-2'): TokenSource & { calls: Array<{ forceRefresh?: boolean }> } {
  const calls: Array<{ forceRefresh?: boolean }> = [];
  return {
    calls,
    async getAccessToken(options) {
      calls.push({ forceRefresh: options?.forceRefresh });
      return options?.forceRefresh ? refreshed : first;
    },
  };
}

function client(overrides: Partial<ClientOptions> = {}): EsignClient {
  return createClient({ baseUrl, tokens: tokens(), retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2_000 }, timeoutMs: 2_000, ...overrides });
}

async function rejects(promise: Promise<unknown>): Promise<EsignError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EsignError, `expected EsignError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

describe('client: requests and envelopes', () => {
  test('uploads: Bearer token, JSON body, Response unwrapped, RequestId kept', async () => {
    behaviour = ok({ Files: [{ FileId: 'file_1', FileName: 'a.pdf' }] });
    const result = await client().uploadFiles([{ FileName: 'a.pdf', FileBody: 'JVBERi0=' }]);
    assert.deepEqual(result, { data: { Files: [{ FileId: 'file_1', FileName: 'a.pdf' }] }, requestId: 'req-1', status: 200 });
    assert.equal(seen[0]!.path, '/openapi/v1/files/upload');
    assert.equal(seen[0]!.headers.authorization, 'Bearer token-1');
    assert.match(seen[0]!.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(seen[0]!.headers['x-operator-user-id'], undefined, 'no operator header unless configured');
    assert.deepEqual(seen[0]!.body, { Files: [{ FileName: 'a.pdf', FileBody: 'JVBERi0=' }] });
  });

  test('embedded views: request_signatures and signature_status bodies', async () => {
    behaviour = ok({ Url: 'https://esign.example/embedded/x?t=1', ExpiresAt: '2030-01-01T00:05:00+08:00' });
    const c = client({ baseUrl: `${baseUrl}/` });
    const view = await c.requestSignaturesView(['f1', 'f2']);
    assert.equal(view.data.Url, 'https://esign.example/embedded/x?t=1');
    await c.signatureStatusView();
    assert.equal(seen[0]!.path, '/openapi/v1/embedded/views');
    assert.deepEqual(seen[0]!.body, { OperateType: 'request_signatures', OperateParam: { FileIds: ['f1', 'f2'] } });
    assert.deepEqual(seen[1]!.body, { OperateType: 'signature_status' });
    await assert.rejects(c.requestSignaturesView([]), (e: unknown) => e instanceof EsignError && e.code === 'no_files');
  });

  test('operator id: from options, overridden per call; envelope paths', async () => {
    behaviour = ok({ EnvelopeId: 'env_1', Status: 'sent' });
    const c = client({ operatorUserId: 'user_alice' });
    await c.createEnvelope({ FileIds: ['f'], Signers: [{ Name: 'Bob', Email: 'bob@example.com' }] });
    await c.voidEnvelope({ EnvelopeId: 'env_1', Reason: 'typo' }, { operatorUserId: 'user_bob' });
    await c.remindEnvelope({ EnvelopeId: 'env_1' });
    assert.deepEqual(
      seen.map((s) => [s.path, s.headers['x-operator-user-id']]),
      [
        ['/openapi/v1/envelopes', 'user_alice'],
        ['/openapi/v1/envelopes/void', 'user_bob'],
        ['/openapi/v1/envelopes/remind', 'user_alice'],
      ],
    );
    behaviour = ok({ UserId: 'user_carol', Status: 'pending' });
    const member = await client().addMember({ Email: 'carol@example.com', Name: 'Carol' });
    assert.equal(member.data.Status, 'pending');
    assert.equal(seen[3]!.path, '/openapi/v1/members/add');
  });

  test('custom headers cannot replace Authorization', async () => {
    await client().call('/files/list', {}, { headers: { authorization: 'Bearer stolen', 'X-Trace': 't1' } });
    assert.equal(seen[0]!.headers.authorization, 'Bearer token-1');
    assert.equal(seen[0]!.headers['x-trace'], 't1');
  });

  test('refuses paths that leave /openapi/v1 and unsafe base URLs', async () => {
    const c = client();
    for (const path of ['https://evil.example/x', '//evil.example/x', '/../oauth/token', '/files/%2e%2e/x']) {
      await assert.rejects(c.call(path, {}), (e: unknown) => e instanceof EsignError && e.code === 'invalid_argument', path);
    }
    assert.equal(seen.length, 0);
    assert.throws(
      () => createClient({ baseUrl: 'http://esign.example', tokens: tokens() }),
      (e: unknown) => e instanceof EsignError && e.code === 'invalid_config',
    );
  });
});

describe('client: errors', () => {
  const noRetry = { retry: false } as const;
  const cases: Array<[number, string, string]> = [
    [400, 'InvalidParameter', 'invalid_argument'],
    [403, 'OperationDenied.NotMember', 'forbidden'],
    [404, 'ResourceNotFound.File', 'not_found'],
    [409, 'FailedOperation.EnvelopeState', 'service_error'],
    [413, 'LimitExceeded.FileSize', 'payload_too_large'],
    [429, 'RequestLimitExceeded', 'rate_limited'],
    [500, 'InternalError', 'service_error'],
    [503, 'InternalError', 'service_error'],
  ];
  for (const [status, serviceCode, code] of cases) {
    test(`HTTP ${status} ${serviceCode} → ${code}`, async () => {
      behaviour = fail(status, serviceCode, `message for ${serviceCode}`, { 'Retry-After': '4' });
      const error = await rejects(client(noRetry).call('/embedded/views', { OperateType: 'signature_status' }));
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(error.serviceCode, serviceCode);
      assert.equal(error.message, `message for ${serviceCode}`);
      assert.equal(error.requestId, 'req-1');
      assert.equal(error.retryAfter, 4);
    });
  }

  test('a second 401 after the refresh is unauthorized', async () => {
    behaviour = fail(401, 'AuthFailure.TokenInvalid', 'bad token');
    const source = tokens();
    const error = await rejects(client({ tokens: source }).uploadFiles([{ FileName: 'a', FileBody: 'YQ==' }]));
    assert.equal(error.code, 'unauthorized');
    assert.equal(error.serviceCode, 'AuthFailure.TokenInvalid');
    assert.deepEqual(source.calls, [{ forceRefresh: undefined }, { forceRefresh: true }]);
    assert.equal(seen.length, 2);
  });

  test('a 502 HTML page from a gateway is service_error with X-Request-Id if any', async () => {
    behaviour = (_q, s) => {
      s.writeHead(502, { 'Content-Type': 'text/html', 'X-Request-Id': 'gw-1' });
      s.end('<html>Bad gateway</html>');
    };
    const error = await rejects(client(noRetry).signatureStatusView());
    assert.equal(error.code, 'service_error');
    assert.equal(error.status, 502);
    assert.equal(error.requestId, 'gw-1');
  });

  const badAnswers: Array<[string, Behaviour]> = [
    [
      '200 HTML',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'text/html' });
        s.end('<html></html>');
      },
    ],
    [
      '200 without Response',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.end('{"Data":{}}');
      },
    ],
    [
      '200 without Data',
      (_q, s) => {
        s.writeHead(200, { 'Content-Type': 'application/json' });
        s.end('{"Response":{"RequestId":"r"}}');
      },
    ],
    ['wrong Data shape', ok({ Url: 42 })],
    [
      'a redirect',
      (_q, s) => {
        s.writeHead(302, { Location: 'https://evil.example/' });
        s.end();
      },
    ],
  ];
  for (const [name, answer] of badAnswers) {
    test(`${name} → bad_response`, async () => {
      behaviour = answer;
      const error = await rejects(client(noRetry).signatureStatusView());
      assert.equal(error.code, 'bad_response');
      assert.equal(seen.length, 1, 'a redirect is not followed');
    });
  }

  test('a 200 carrying Response.Error is an error, not data', async () => {
    behaviour = fail(200, 'InternalError', 'odd');
    const error = await rejects(client(noRetry).signatureStatusView());
    assert.equal(error.code, 'service_error');
    assert.equal(error.serviceCode, 'InternalError');
  });

  test('network failure → network_error; token source failure keeps its error', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const error = await rejects(client({ baseUrl: `http://127.0.0.1:${port}`, retry: false }).signatureStatusView());
    assert.equal(error.code, 'network_error');

    const failing: TokenSource = {
      getAccessToken: async () => {
        throw new EsignError('session_expired', 'log in again');
      },
    };
    assert.equal((await rejects(client({ tokens: failing }).signatureStatusView())).code, 'session_expired');
    const plain: TokenSource = {
      getAccessToken: async () => {
        throw new Error('boom');
      },
    };
    assert.equal((await rejects(client({ tokens: plain }).signatureStatusView())).code, 'no_session');
    assert.equal(seen.length, 0);
  });

  test('timeout → timeout', async () => {
    behaviour = () => {
      /* never answers */
    };
    const started = Date.now();
    const error = await rejects(client({ timeoutMs: 150, retry: false }).signatureStatusView());
    assert.equal(error.code, 'timeout');
    assert.ok(Date.now() - started < 1_500, 'Date.now() - started < 1_500');
  });
});

describe('client: 401 refresh and retries', () => {
  test('401 → getAccessToken({forceRefresh}) once → retried with the new token, even for uploads', async () => {
    behaviour = (q, s) =>
      q.headers.authorization === 'Bearer token-2' ? ok({ Files: [] })(q, s, seen[0]!, 0) : fail(401, 'AuthFailure.TokenExpired', 'expired')(q, s, seen[0]!, 0);
    const source = tokens();
    const result = await client({ tokens: source, retry: false }).uploadFiles([{ FileName: 'a', FileBody: 'YQ==' }]);
    assert.deepEqual(result.data, { Files: [] });
    assert.deepEqual(source.calls, [{ forceRefresh: undefined }, { forceRefresh: true }]);
    assert.deepEqual(
      seen.map((s) => s.headers.authorization),
      ['Bearer token-1', 'Bearer token-2'],
    );
  });

  test('5xx: idempotent calls retry up to the limit, others do not unless idempotent: true', async () => {
    behaviour = sequence(
      fail(503, 'InternalError', 'down'),
      fail(500, 'InternalError', 'down'),
      ok({ Url: 'https://x.example/', ExpiresAt: '2030-01-01T00:00:00Z' }),
    );
    const view = await client().signatureStatusView();
    assert.equal(view.requestId, 'req-3');
    assert.equal(seen.length, 3);

    seen.length = 0;
    behaviour = fail(503, 'InternalError', 'down');
    const error = await rejects(client().uploadFiles([{ FileName: 'a', FileBody: 'YQ==' }]));
    assert.equal(error.code, 'service_error');
    assert.equal(seen.length, 1, 'a non-idempotent upload is not repeated');

    seen.length = 0;
    behaviour = sequence(fail(500, 'InternalError', 'down'), ok({ Files: [] }));
    await client().uploadFiles([{ FileName: 'a', FileBody: 'YQ==' }], { idempotent: true });
    assert.equal(seen.length, 2);

    seen.length = 0;
    behaviour = fail(500, 'InternalError', 'down');
    await rejects(client({ retry: { retries: 2, baseDelayMs: 1 } }).signatureStatusView());
    assert.equal(seen.length, 3, 'first attempt + 2 retries');
  });

  test('429 is retried for any call, honouring Retry-After', async () => {
    behaviour = sequence(fail(429, 'RequestLimitExceeded', 'slow down', { 'Retry-After': '1' }), ok({ UserId: 'u', Status: 'pending' }));
    const started = Date.now();
    const result = await client().addMember({ Email: 'carol@example.com' });
    const waited = Date.now() - started;
    assert.equal(result.data.UserId, 'u');
    assert.equal(seen.length, 2);
    assert.ok(waited >= 950, `waited ${waited} ms, Retry-After asked 1 s`);
  });

  test('a Retry-After longer than maxDelayMs ends the retries and reports retryAfter', async () => {
    behaviour = fail(429, 'RequestLimitExceeded', 'slow down', { 'Retry-After': '30' });
    const error = await rejects(client().signatureStatusView());
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retryAfter, 30);
    assert.equal(seen.length, 1);
  });

  test('network errors are retried for idempotent calls', async () => {
    behaviour = sequence((q) => q.socket.destroy(), ok({ Url: 'https://x.example/', ExpiresAt: '2030-01-01T00:00:00Z' }));
    const view = await client().signatureStatusView();
    assert.equal(view.status, 200);
    assert.equal(seen.length, 2);
  });
});

describe('client: abort', () => {
  test('an aborted signal stops before any request', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejects(client().signatureStatusView({ signal: controller.signal }));
    assert.equal(error.code, 'aborted');
    assert.equal(seen.length, 0);
  });

  test('abort during the request', async () => {
    const controller = new AbortController();
    // the server has the request and never answers; then the caller aborts (a timer could abort before the
    // request arrived, and the late request would then count in the next test)
    behaviour = () => controller.abort();
    const error = await rejects(client().signatureStatusView({ signal: controller.signal }));
    assert.equal(error.code, 'aborted');
  });

  test('abort during a backoff wait stops at once', async () => {
    behaviour = fail(429, 'RequestLimitExceeded', 'slow down', { 'Retry-After': '2' });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = await rejects(client({ retry: { retries: 3, maxDelayMs: 5_000 } }).signatureStatusView({ signal: controller.signal }));
    assert.equal(error.code, 'aborted');
    assert.ok(Date.now() - started < 600, 'did not wait out the Retry-After');
    assert.equal(seen.length, 1, JSON.stringify(seen.map((s) => [s.path, s.headers['retry-after'], Date.now() - started])));
  });

  test('the token source gets the signal', async () => {
    let received: AbortSignal | undefined;
    const source: TokenSource = {
      getAccessToken: async (o) => {
        received = o?.signal;
        return 't';
      },
    };
    const controller = new AbortController();
    await client({ tokens: source })
      .signatureStatusView({ signal: controller.signal })
      .catch(() => undefined);
    assert.equal(received, controller.signal);
  });
});
