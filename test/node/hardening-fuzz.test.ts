/**
 * Property-based hardening over raw sockets (node:net, so methods, paths, headers and bodies can be
 * anything a client may send): thousands of generated malformed requests to the token proxy (in front of
 * the real emulator), to the emulator's token and business routes, and to its file-management domain.
 *
 * Every answer must be a 4xx with a clear error body (OAuth JSON, or the Response envelope with Error.Code
 * and Error.Message), never a 5xx, a hang or a dropped connection, and never carry the client secret or a
 * token or code the test holds. A 2xx is accepted only where the generated request happens to be a valid
 * call (revocation of any token, a CORS preflight, a well-formed business call) and must then have the
 * right shape. Node's own HTTP parser answers some requests (a bare 400/431 without a body): those are
 * counted and accepted only with no body at all.
 *
 * Complements emulator-robustness.test.ts (400 fetch requests over all routes, 5xx only) and the proxy
 * property in proxy.test.ts (valid forms with extra fields); this file fuzzes structure and framing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy, type ServedTokenProxy } from '@esign-elements/token-proxy/node';
import { codeExchangeForm, obtainAuthorizationCode } from '../helpers/oauth-login.js';

const CLIENT_ID = 'fuzz-client';
const SECRET = `fz-secret-${randomBytes(16).toString('hex')}`;
const REDIRECT = 'http://localhost:6006/iframe.html';
const ORIGIN = 'http://localhost:6006';
/** Per property: hard cap on time, so the whole file stays near 20 s even on a busy machine. */
const TIME_LIMIT_MS = 5_000;
const HANG_MS = 5_000;

let emu: RunningEmulator;
let proxy: ServedTokenProxy;
/** Every token or code this test holds: none may ever come back in an answer to another request. */
const held: string[] = [];
/** Bearer of the business fuzz; never put in a form, so no generated revocation can end it. */
let accessToken = '';
let otherSpaceToken = '';
/** Tokens of a sacrificial grant, put into forms in the wrong places (a generated revocation may end it). */
let formTokens: string[] = [];
let refreshToken = '';
let usedCode = '';
let fileId = '';

async function grant(space: string): Promise<{ access_token: string; refresh_token: string; code: string }> {
  const login = await obtainAuthorizationCode({ baseUrl: emu.baseUrl, clientId: CLIENT_ID, redirectUri: REDIRECT, chooseSpaceId: space });
  const form = codeExchangeForm(login, CLIENT_ID);
  form.set('client_secret', SECRET);
  const response = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  assert.equal(response.status, 200, 'code exchange for the fuzz grants');
  return { ...body, code: login.code };
}

before(async () => {
  emu = await createEmulator({
    port: 0,
    filePort: 0,
    // raised so the fuzz reaches the handlers instead of the per-token limit
    limits: { requestsPerMinute: 1_000_000, maxFileBytes: 4096, maxFilesPerRequest: 3 },
    seed: { apps: [{ clientId: CLIENT_ID, clientSecret: SECRET, name: 'Fuzz', scopes: ['envelope:create', 'envelope:read'], redirectUris: [REDIRECT] }] },
  });
  proxy = await serveTokenProxy({
    port: 0,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    baseUrl: emu.baseUrl,
    allowedOrigins: [ORIGIN],
    redirectUris: [REDIRECT],
    rateLimit: { windowMs: 60_000, max: 1_000_000 },
    timeoutMs: 3_000,
    // both modes: session requests (the default) and refresh tokens in the form (the opt-in)
    cookieKeys: [generateCookieKey()],
    browserHeldRefreshTokens: true,
  });
  const main = await grant('space_acme');
  accessToken = main.access_token;
  const sacrificial = await grant('space_acme');
  refreshToken = sacrificial.refresh_token;
  formTokens = [sacrificial.access_token, sacrificial.refresh_token, sacrificial.code];
  // a second grant whose code is the "used code": replaying it revokes that grant, not the main one
  const spare = await grant('space_alice');
  otherSpaceToken = spare.access_token;
  usedCode = spare.code;
  held.push(accessToken, main.refresh_token, main.code, ...formTokens, otherSpaceToken, spare.refresh_token, usedCode);
  const up = await fetch(`${emu.baseUrl}/openapi/v1/files/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ Files: [{ FileName: 'a.pdf', FileBody: Buffer.from('%PDF-1.4').toString('base64') }] }),
  });
  fileId = ((await up.json()) as { Response: { Data: { Files: Array<{ FileId: string }> } } }).Response.Data.Files[0]!.FileId;
});

after(async () => {
  await proxy.close();
  await emu.close();
});

// --- a raw HTTP/1.1 client ---------------------------------------------------------------------------

interface RawRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer;
  /** Send the body chunked instead of with Content-Length. */
  chunked?: boolean;
}

interface RawAnswer {
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

/** Sends one request on a fresh connection and reads the first answer; fails on a hang or a silent close. */
function send(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${HANG_MS} ms: ${request.method} ${request.target.slice(0, 80)}`));
    }, HANG_MS);
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

// --- checks ------------------------------------------------------------------------------------------

interface Tally {
  total: number;
  byStatus: Map<number, number>;
  parserRejects: number;
}

function newTally(): Tally {
  return { total: 0, byStatus: new Map(), parserRejects: 0 };
}

function describeRequest(request: RawRequest): string {
  return `${request.method} ${request.target.slice(0, 60)} [${request.headers.map(([n, v]) => `${n}: ${v.slice(0, 40)}`).join('; ')}] ${request.body.subarray(0, 120).toString('latin1')}`;
}

/** Common to every answer: no 5xx, no leaked secret or held token, and a body that says what went wrong. */
function checkCommon(answer: RawAnswer, request: RawRequest, tally: Tally): 'parser' | 'app' {
  tally.total += 1;
  tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
  const what = describeRequest(request);
  assert.ok(answer.status >= 200 && answer.status < 500, `HTTP ${answer.status} for ${what}: ${answer.body.slice(0, 200)}`);
  assert.ok(!answer.raw.includes(SECRET), `client secret in the answer to ${what}`);
  for (const token of held) assert.ok(!answer.raw.includes(token), `a held token or code came back in the answer to ${what}`);
  // Node's HTTP parser refuses broken framing itself, before any application code: a bare 4xx, no body
  if (!answer.headers.has('content-type') && answer.body === '' && [400, 413, 414, 431].includes(answer.status)) {
    tally.parserRejects += 1;
    return 'parser';
  }
  return 'app';
}

function parseJson(answer: RawAnswer, what: string): Record<string, unknown> {
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `JSON content type for ${what}`);
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    assert.fail(`the answer to ${what} is not JSON: ${answer.body.slice(0, 200)}`);
  }
  assert.ok(typeof json === 'object' && json !== null && !Array.isArray(json), `a JSON object for ${what}`);
  return json as Record<string, unknown>;
}

function checkOAuthError(answer: RawAnswer, what: string): void {
  const json = parseJson(answer, what);
  assert.equal(typeof json.error, 'string', `OAuth error code for ${what}: ${answer.body.slice(0, 200)}`);
  assert.ok((json.error as string).length > 0, `non-empty error for ${what}`);
  assert.equal(typeof json.error_description, 'string', `error_description for ${what}`);
}

function checkEnvelopeError(answer: RawAnswer, what: string): void {
  const json = parseJson(answer, what);
  const response = json.Response as { RequestId?: unknown; Error?: { Code?: unknown; Message?: unknown } } | undefined;
  assert.equal(typeof response?.RequestId, 'string', `RequestId for ${what}: ${answer.body.slice(0, 200)}`);
  assert.equal(typeof response?.Error?.Code, 'string', `Error.Code for ${what}: ${answer.body.slice(0, 200)}`);
  assert.equal(typeof response?.Error?.Message, 'string', `Error.Message for ${what}`);
}

function report(t: TestContext, name: string, tally: Tally): void {
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  t.diagnostic(`${name}: ${tally.total} requests; ${statuses}; ${tally.parserRejects} refused by Node's HTTP parser`);
}

// --- generators --------------------------------------------------------------------------------------

const unicode = fc.string({ unit: 'grapheme', maxLength: 40 });
const huge = fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'x'.repeat(n));
const badPercent = fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%AF', '%ff%fe', '+%2B+', '%%%');
/** Printable latin1 (what a header value may carry), sometimes long: up to 12 KB, within Node's 16 KiB header limit. */
const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'a')) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: 'binary', maxLength: 20 })
      .map((s) => [...s].map((ch) => (ch.charCodeAt(0) >= 0xa0 && ch.charCodeAt(0) <= 0xff ? ch : 'b')).join('')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'h'.repeat(n)) },
);
/** Mostly `good`, so most requests pass the early gates and reach deeper validation. */
function mostly<T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: bad });
}
const heldValue = fc.constantFrom(0, 1, 2, 3, 4).map((i) => [...formTokens, usedCode, otherSpaceToken][i]!);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset=UTF-8',
    'application/x-www-form-urlencoded; charset=latin1',
    'APPLICATION/X-WWW-FORM-URLENCODED',
    'application/x-www-form-urlencoded, application/json',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data; boundary=zz',
    'multipart/form-data',
    '',
  ),
  headerValue,
);

/** One form parameter: known names (sometimes repeated), odd names; values odd, huge, unicode or a held token in the wrong place. */
const formPair = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'grant_type',
      'code',
      'code_verifier',
      'redirect_uri',
      'refresh_token',
      'token',
      'token_type_hint',
      'scope',
      'client_id',
      'client_secret',
      'session',
      'space_id',
      'force',
    ),
    fc.constantFrom('__proto__', 'constructor', 'grant_type[]', 'GRANT_TYPE', ' code', 'a=b', ''),
    unicode,
  ),
  fc.oneof(
    fc.constantFrom(
      'authorization_code',
      'refresh_token',
      'password',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:device_code',
      '',
      CLIENT_ID,
      'other-client',
      REDIRECT,
      `${REDIRECT}/`,
      'envelope:read',
      'admin',
    ),
    unicode,
    huge,
    heldValue,
  ),
);

/** A form body; the held refresh token is never sent as refresh_token, so no generated request can be a real refresh. */
const formBody = fc.tuple(fc.array(formPair, { maxLength: 8 }), fc.option(badPercent, { nil: undefined })).map(([pairs, raw]) => {
  const safe = pairs.map(([k, v]): [string, string] => [k, k === 'refresh_token' && v === refreshToken ? usedCode : v]);
  const encoded = new URLSearchParams(safe).toString();
  return Buffer.from(raw ? `${encoded}&${raw}=${raw}` : encoded, 'utf8');
});

const anyBody = fc.oneof(
  { weight: 5, arbitrary: formBody },
  { weight: 1, arbitrary: fc.json().map((j) => Buffer.from(j)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 40_000 }).map((n) => Buffer.from(`grant_type=refresh_token&refresh_token=${'r'.repeat(n)}`)) },
);

const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  { weight: 3, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'post', 'QUERY', 'M-SEARCH') },
);

// --- the token proxy ---------------------------------------------------------------------------------

describe('hardening: token proxy under generated malformed requests', () => {
  test('every answer is a 4xx OAuth error (or a legitimate revoke/preflight), never 5xx, hang or leak', async (t) => {
    const tally = newTally();
    const target = mostly(
      fc.constantFrom('/token', '/token', '/revoke', '/api/esign/token', '/api/esign/revoke', '/token/'),
      fc.oneof(
        fc.constantFrom('//token', '/%2e%2e/token', '/token?grant_type=refresh_token', '/authorize', '/', '*', 'http://evil.example/token', '/token/../revoke'),
        unicode.map((s) => `/${encodeURIComponent(s)}/token`),
      ),
    );
    const request = fc
      .record({
        method,
        target,
        contentType: mostly(
          fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8'),
          fc.option(contentType, { nil: undefined }),
        ),
        proxyHeader: mostly(fc.constant('1'), fc.option(fc.oneof(fc.constantFrom('0', '', ' 1 ', 'true', '1, 1'), headerValue), { nil: undefined })),
        origin: mostly(
          fc.constantFrom(ORIGIN, undefined),
          fc.oneof(fc.constantFrom('null', 'https://evil.example', 'http://localhost:6007', `${ORIGIN}/`, 'http://127.0.0.1'), headerValue),
        ),
        host: fc.option(fc.constantFrom('evil.example', 'localhost', '[::1]', 'a'.repeat(300), '127.0.0.1:1'), { nil: undefined, freq: 8 }),
        extra: fc.array(fc.tuple(fc.constantFrom('X-Pad', 'Authorization', 'X-Forwarded-For', 'Cookie', 'X-Esign-Proxy', 'Accept'), headerValue), {
          maxLength: 2,
        }),
        body: anyBody,
        chunked: fc.boolean(),
      })
      .map((r): RawRequest => {
        const headers: Array<[string, string]> = [];
        if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
        if (r.proxyHeader !== undefined) headers.push(['X-Esign-Proxy', r.proxyHeader]);
        if (r.origin !== undefined) headers.push(['Origin', r.origin]);
        if (r.host !== undefined) headers.push(['Host', r.host]);
        headers.push(...r.extra);
        return { method: r.method, target: r.target, headers, body: r.body, chunked: r.chunked };
      });

    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const answer = await send(proxy.url, req);
        if (checkCommon(answer, req, tally) === 'parser') return;
        const what = describeRequest(req);
        if (req.method === 'HEAD') return assert.ok(answer.status >= 400, `HEAD is refused: ${answer.status}`);
        if (answer.status === 204) return assert.equal(req.method, 'OPTIONS', `204 only for a preflight: ${what}`);
        if (answer.status === 200) {
          assert.ok(req.method === 'POST' && /revoke/.test(req.target), `only a revocation may succeed: ${what} -> ${answer.body.slice(0, 200)}`);
          assert.equal(answer.body, '{}', 'a revocation answers {}');
          return;
        }
        assert.ok(answer.status >= 400 && answer.status < 500, `4xx for ${what}, got ${answer.status}`);
        checkOAuthError(answer, what);
        assert.equal(answer.headers.get('cache-control'), 'no-store', `no-store on ${what}`);
      }),
      { numRuns: 3_000, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    report(t, 'proxy', tally);
    assert.ok(tally.total >= 200, `the property ran (${tally.total} requests)`);
    // the proxy still serves a real exchange afterwards
    const login = await obtainAuthorizationCode({ baseUrl: emu.baseUrl, clientId: CLIENT_ID, redirectUri: REDIRECT, chooseSpaceId: 'space_acme' });
    const ok = await fetch(`${proxy.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esign-proxy': '1' },
      body: codeExchangeForm(login).toString(),
    });
    assert.equal(ok.status, 200, 'a real exchange still works after the fuzz');
  });
});

// --- the emulator: token endpoint and business routes ------------------------------------------------

const base64ish = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
  fc.constantFrom('', '====', 'QQ', 'QQ=', 'Q===', 'QUJD\nREVG', 'QU JD', '-_-_', 'QUJD-_==', 'QQ==QQ==', '全角', 'QUJD\u0000', '%PDF'),
  fc.uint8Array({ minLength: 1, maxLength: 48 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.integer({ min: 5_000, max: 8_000 }).map((n) => 'QUJD'.repeat(n)),
);
const jsonValue = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), unicode, fc.constant([]), fc.constant({}), fc.constant(1e308), huge);
const fileName = fc.oneof(
  fc.constantFrom('a.pdf', '', ' ', 'a\u0000.pdf', 'a\nb.pdf', '../../etc/passwd', '<script>.pdf', 'x'.repeat(300)),
  unicode,
  jsonValue,
);
const fileEntry = fc.oneof(fc.record({ FileName: fileName, FileBody: fc.oneof(base64ish, jsonValue) }), fc.record({ FileName: fileName }), jsonValue);
const fileIds = fc.oneof(
  fc.array(
    fc.oneof(
      fc
        .constantFrom(
          () => fileId,
          () => 'file_nope',
          () => '',
          () => 'file_' + 'x'.repeat(2000),
        )
        .map((f) => f()),
      jsonValue,
    ),
    { maxLength: 5 },
  ),
  jsonValue,
);
const businessBody = fc.oneof(
  fc.record({ Files: fc.oneof(fc.array(fileEntry, { maxLength: 5 }), jsonValue) }, { requiredKeys: [] }),
  fc.record(
    {
      OperateType: fc.oneof(fc.constantFrom('request_signatures', 'signature_status', 'REQUEST_SIGNATURES', 'sign', ''), jsonValue),
      OperateParam: fc.oneof(fc.record({ FileIds: fileIds }, { requiredKeys: [] }), jsonValue),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { Email: fc.oneof(fc.constantFrom('a@b', 'carol@example.com', '@', 'a@b.c<script>', 'x'.repeat(400) + '@e.com'), jsonValue), Name: jsonValue },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      EnvelopeId: jsonValue,
      Reason: jsonValue,
      FileIds: fileIds,
      Signers: fc.oneof(fc.array(fc.record({ Name: jsonValue, Email: jsonValue }, { requiredKeys: [] }), { maxLength: 3 }), jsonValue),
      Subject: jsonValue,
    },
    { requiredKeys: [] },
  ),
);
const rawJson = fc.oneof(
  { weight: 6, arbitrary: businessBody.map((b) => Buffer.from(JSON.stringify(b))) },
  { weight: 1, arbitrary: businessBody.map((b) => Buffer.from(JSON.stringify(b).slice(0, -3))) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"Files":[{"FileName":"a.pdf","FileBody":"QQ=="}],"Files":1}',
        '\uFEFF{"OperateType":"signature_status"}',
        '[]',
        'null',
        '"x"',
        '{"__proto__":{"OperateType":"signature_status"}}',
        '[['.repeat(50_000),
        '{"a":' + '1'.repeat(400) + '}',
      )
      .map((s) => Buffer.from(s)),
  },
  { weight: 1, arbitrary: formBody },
);

describe('hardening: emulator token, business and file routes under generated malformed requests', () => {
  test('business and token routes: 4xx with an error envelope or OAuth JSON, never 5xx, hang or leak', async (t) => {
    const tally = newTally();
    const paths = [
      '/openapi/v1/files/upload',
      '/openapi/v1/embedded/views',
      '/openapi/v1/members/add',
      '/openapi/v1/envelopes',
      '/openapi/v1/envelopes/void',
      '/openapi/v1/envelopes/remind',
      '/openapi/v1/oauth/token',
      '/openapi/v1/oauth/revoke',
    ];
    const auth = mostly(
      fc.constantFrom('main', 'main', 'main', 'other').map((k) => `Bearer ${k === 'main' ? accessToken : otherSpaceToken}`),
      fc.option(
        fc.oneof(
          fc.constant(`Bearer ${refreshToken}`),
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            'bearer x',
            'Basic ' + Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64'),
            'Basic %%%',
            'Basic ' + Buffer.from('no-colon').toString('base64'),
            'Basic ' + Buffer.from('%zz:%zz').toString('base64'),
            'Bearer a b',
            'Token x',
          ),
          headerValue,
        ),
        { nil: undefined },
      ),
    );
    const request = fc
      .record({
        method,
        path: fc.constantFrom(...paths),
        auth,
        operator: fc.option(fc.oneof(fc.constantFrom('user_alice', 'user_carol', 'user_bob', '', ' user_alice '), headerValue), { nil: undefined }),
        contentType: mostly(
          fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded'),
          fc.option(fc.oneof(fc.constantFrom('application/json;charset=latin1', 'Application/JSON', 'text/json'), contentType), { nil: undefined }),
        ),
        withSecret: fc.boolean(),
        body: rawJson,
        chunked: fc.boolean(),
      })
      .map((r): RawRequest => {
        const headers: Array<[string, string]> = [];
        if (r.auth !== undefined) headers.push(['Authorization', r.auth]);
        if (r.operator !== undefined) headers.push(['X-Operator-User-Id', r.operator]);
        if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
        let body = r.body;
        // token routes: sometimes with the right client credentials, so validation reaches the grant checks
        if (r.path.includes('/oauth/') && r.withSecret)
          body = Buffer.concat([body, Buffer.from(`&client_id=${CLIENT_ID}&client_secret=${encodeURIComponent(SECRET)}`)]);
        return { method: r.method, target: r.path, headers, body, chunked: r.chunked };
      });

    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const answer = await send(emu.baseUrl, req);
        if (checkCommon(answer, req, tally) === 'parser') return;
        const what = describeRequest(req);
        if (req.method === 'HEAD' || answer.status === 204) return;
        const oauth = req.target.includes('/oauth/') && req.method.toUpperCase() === 'POST';
        if (answer.status >= 200 && answer.status < 300) {
          if (oauth) return; // a revocation of any token answers 200 (RFC 7009)
          const json = parseJson(answer, what);
          assert.ok(typeof (json.Response as { RequestId?: unknown } | undefined)?.RequestId === 'string', `success envelope for ${what}`);
          return;
        }
        assert.ok(answer.status >= 400 && answer.status < 500, `4xx for ${what}, got ${answer.status}`);
        if (oauth) checkOAuthError(answer, what);
        else checkEnvelopeError(answer, what);
      }),
      { numRuns: 3_000, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    report(t, 'emulator business/token', tally);
    assert.ok(tally.total >= 200, `the property ran (${tally.total} requests)`);
  });

  test('file-management domain: broken multipart, X-TC-Action variants, odd file names', async (t) => {
    const tally = newTally();
    const part = fc.record({
      name: fc.constantFrom('file', 'file', 'File', 'files', 'file[]', ''),
      filename: fc.option(fc.oneof(fc.constantFrom('a.pdf', '', 'a"b.pdf', 'a\\"b.pdf', '../x.pdf', 'x'.repeat(300), 'a\u0001.pdf'), unicode), {
        nil: undefined,
      }),
      type: fc.option(fc.constantFrom('application/pdf', 'text/plain', '', 'a/b; x=y'), { nil: undefined }),
      content: fc.oneof(
        fc.constant(''),
        fc.string({ maxLength: 50 }),
        fc.integer({ min: 4_000, max: 5_000 }).map((n) => 'p'.repeat(n)),
      ),
    });
    const request = fc
      .record({
        method,
        action: mostly(
          fc.constant('UploadFile'),
          fc.option(fc.oneof(fc.constantFrom('uploadfile', ' UploadFile ', 'UploadFile, UploadFile', 'MultipartUpload', 'DeleteFile', ''), headerValue), {
            nil: undefined,
          }),
        ),
        auth: mostly(
          fc.constant(`Bearer ${accessToken}`),
          fc.option(fc.constantFrom(`Bearer ${otherSpaceToken}`, 'Bearer garbage', `Bearer ${refreshToken}`), { nil: undefined }),
        ),
        boundary: fc.constantFrom('zz', 'zz', '----x', 'a b', '"quoted"', 'x'.repeat(80)),
        declared: fc.constantFrom('same', 'same', 'other', 'none', 'type-only'),
        parts: fc.array(part, { maxLength: 5 }),
        ending: fc.constantFrom('proper', 'proper', 'missing', 'truncated', 'garbage'),
        target: mostly(fc.constant('/'), fc.constantFrom('/upload', '/?x=1', '//', '/%2F')),
        chunked: fc.boolean(),
      })
      .map((r): RawRequest => {
        const boundary = r.boundary.replace(/^"|"$/g, '');
        const body =
          r.parts
            .map((p) => {
              const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
              return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type === undefined ? '' : `Content-Type: ${p.type}\r\n`}\r\n${p.content}\r\n`;
            })
            .join('') + (r.ending === 'proper' ? `--${boundary}--\r\n` : r.ending === 'truncated' ? `--${boundary}` : r.ending === 'garbage' ? 'garbage' : '');
        const headers: Array<[string, string]> = [];
        if (r.action !== undefined) headers.push(['X-TC-Action', r.action]);
        if (r.auth !== undefined) headers.push(['Authorization', r.auth]);
        if (r.declared === 'same') headers.push(['Content-Type', `multipart/form-data; boundary=${r.boundary}`]);
        else if (r.declared === 'other') headers.push(['Content-Type', 'multipart/form-data; boundary=other']);
        else if (r.declared === 'type-only') headers.push(['Content-Type', 'multipart/form-data']);
        return { method: r.method, target: r.target, headers, body: Buffer.from(body, 'utf8'), chunked: r.chunked };
      });

    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const answer = await send(emu.fileUrl, req);
        if (checkCommon(answer, req, tally) === 'parser') return;
        const what = describeRequest(req);
        if (req.method === 'HEAD' || answer.status === 204) return;
        if (answer.status === 200) {
          const json = parseJson(answer, what);
          const files = (json.Response as { Data?: { Files?: unknown } } | undefined)?.Data?.Files;
          assert.ok(Array.isArray(files) && files.length > 0, `a success lists the stored files: ${what}`);
          return;
        }
        assert.ok(answer.status >= 400 && answer.status < 500, `4xx for ${what}, got ${answer.status}`);
        checkEnvelopeError(answer, what);
      }),
      { numRuns: 2_000, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    report(t, 'file domain', tally);
    assert.ok(tally.total >= 200, `the property ran (${tally.total} requests)`);
  });
});
