/**
 * Property-based hardening of the emulator over raw sockets (node:net, so methods, paths, headers and bodies can be
 * anything a client may send): thousands of generated malformed requests to its token and business routes and to
 * its file-management domain. The token proxy's have theirs in its package (test/hardening-fuzz.test.ts).
 *
 * Every answer must be a 4xx with a clear error body (OAuth JSON, or the Response envelope with Error.Code and
 * Error.Message), never a 5xx, a hang or a dropped connection, and never carry the client secret or a token or code
 * the test holds. A 2xx is accepted only where the generated request happens to be a valid call (revocation of any
 * token, a well-formed business call) and must then have the right shape. Node's own HTTP parser answers some
 * requests (a bare 400/431 without a body): those are counted and accepted only with no body at all.
 *
 * Complements emulator-robustness.test.ts (400 fetch requests over all routes, 5xx only); this file fuzzes
 * structure and framing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import {
  checkCommon,
  checkEnvelopeError,
  checkOAuthError,
  contentType,
  describeRequest,
  formArbitraries,
  fuzzGrant,
  headerValue,
  huge,
  method,
  mostly,
  newTally,
  parseJson,
  report,
  unicode,
  type FormValues,
  type LeakCheck,
} from '@esign-elements/test-support/fuzz';
import { sendRaw, type RawRequest } from '@esign-elements/test-support/raw-http';
import { createEmulator, type RunningEmulator } from '../src/index.js';

const CLIENT_ID = 'fuzz-client';
const SECRET = `fz-secret-${randomBytes(16).toString('hex')}`;
const REDIRECT = 'http://localhost:6006/iframe.html';
/** Per property: hard cap on time, so the whole file stays near 10 s even on a busy machine. */
const TIME_LIMIT_MS = 5_000;

let emu: RunningEmulator;
/** Every token or code this test holds: none may ever come back in an answer to another request. */
const held: string[] = [];
const leaks: LeakCheck = { clientSecret: SECRET, held };
/** Tokens and codes put into forms in the wrong places, filled in by before(). */
const formValues: FormValues = { clientId: CLIENT_ID, redirect: REDIRECT, inForms: [], refreshToken: '', usedCode: '' };
const { formBody } = formArbitraries(formValues);
/** Bearer of the business fuzz; never put in a form, so no generated revocation can end it. */
let accessToken = '';
let otherSpaceToken = '';
let fileId = '';

const grant = (space: string) => fuzzGrant(emu.baseUrl, { clientId: CLIENT_ID, clientSecret: SECRET, redirectUri: REDIRECT }, space);

before(async () => {
  emu = await createEmulator({
    port: 0,
    filePort: 0,
    // raised so the fuzz reaches the handlers instead of the per-token limit
    limits: { requestsPerMinute: 1_000_000, maxFileBytes: 4096, maxFilesPerRequest: 3 },
    seed: { apps: [{ clientId: CLIENT_ID, clientSecret: SECRET, name: 'Fuzz', scopes: ['envelope:create', 'envelope:read'], redirectUris: [REDIRECT] }] },
  });
  const main = await grant('space_acme');
  accessToken = main.access_token;
  const sacrificial = await grant('space_acme');
  formValues.refreshToken = sacrificial.refresh_token;
  // a second grant whose code is the "used code": replaying it revokes that grant, not the main one
  const spare = await grant('space_alice');
  otherSpaceToken = spare.access_token;
  formValues.usedCode = spare.code;
  formValues.inForms.push(sacrificial.access_token, sacrificial.refresh_token, sacrificial.code, spare.code, spare.access_token);
  held.push(accessToken, main.refresh_token, main.code, ...formValues.inForms, spare.refresh_token);
  const up = await fetch(`${emu.baseUrl}/openapi/v1/files/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ Files: [{ FileName: 'a.pdf', FileBody: Buffer.from('%PDF-1.4').toString('base64') }] }),
  });
  fileId = ((await up.json()) as { Response: { Data: { Files: Array<{ FileId: string }> } } }).Response.Data.Files[0]!.FileId;
});

after(async () => {
  await emu.close();
});

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
          fc.constant(`Bearer ${formValues.refreshToken}`),
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
        const answer = await sendRaw(emu.baseUrl, req);
        if (checkCommon(answer, req, tally, leaks) === 'parser') return;
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
          fc.option(fc.constantFrom(`Bearer ${otherSpaceToken}`, 'Bearer garbage', `Bearer ${formValues.refreshToken}`), { nil: undefined }),
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
        const answer = await sendRaw(emu.fileUrl, req);
        if (checkCommon(answer, req, tally, leaks) === 'parser') return;
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
