/**
 * The server half of `esign-elements/core`, as an integrator's server calls the service: the real emulator
 * over real sockets, an access token from its consent forms and token endpoint (a confidential client on a
 * server). Every call: its typed success shape with RequestId, the refusal without an operator id (before
 * any request), and a business error carrying the service's RequestId.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient, EsignClient, type TokenSource, UPLOAD_FILE_ACTION } from '../../src/core/service/client.js';
import { EsignError } from '@esign-elements/shared/errors';
import { nodeStreamingFetch } from '../../src/core/node/fetch.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenResponse } from '@esign-elements/shared/service-types';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { DEMO_LOGIN, codeExchangeForm, obtainAuthorizationCode } from '@esign-elements/test-support/oauth-login';

let emulator: RunningEmulator;
let tokens: TokenSource;
/** Every request the client sent (URL, method, headers), through its `fetch` option. */
let sent: Array<{ url: string; headers: Headers; body: unknown }>;

const ALICE = 'user_alice';
const BOB = 'user_bob';

async function serverToken(): Promise<string> {
  const code = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId: 'space_acme' });
  const form = codeExchangeForm(code, DEMO_LOGIN.clientId);
  form.set('client_id', DEMO_LOGIN.clientId);
  form.set('client_secret', DEMO_LOGIN.clientSecret);
  const response = await fetch(`${emulator.baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: form });
  const body = (await response.json()) as TokenResponse;
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

function client(extra: Partial<ConstructorParameters<typeof EsignClient>[0]> = {}): EsignClient {
  return createClient({
    baseUrl: emulator.baseUrl,
    fileUrl: emulator.fileUrl,
    tokens,
    retry: false,
    fetch: (input, init) => {
      sent.push({ url: String(input), headers: new Headers(init?.headers), body: init?.body });
      return fetch(input, init);
    },
    ...extra,
  });
}

const pdf = (label: string): Blob => new Blob([`%PDF-1.4\n% ${label}\n`], { type: 'application/pdf' });

async function rejects(promise: Promise<unknown>, code: string, status?: number): Promise<EsignError> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof EsignError, `an EsignError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  if (status !== undefined) assert.equal(error.status, status);
  return error;
}

/** A Response.RequestId of the emulator (a UUID-like string, not empty). */
function assertRequestId(requestId: string | undefined): void {
  assert.equal(typeof requestId, 'string');
  assert.ok(requestId!.length >= 8, `RequestId ${requestId}`);
}

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await emulator.close();
});
beforeEach(async () => {
  emulator.reset();
  const token = await serverToken();
  tokens = { getAccessToken: async () => token };
  sent = [];
});

async function uploadOne(c: EsignClient, name = 'contract.pdf'): Promise<string> {
  const { data } = await c.uploadFileParts([{ content: pdf(name), name }]);
  return data.Files[0]!.FileId;
}

describe('EsignClient, server half, against the emulator', () => {
  test('uploadFileParts: X-TC-Action UploadFile, repeated multipart `file` parts, typed FileIds with RequestId', async () => {
    const c = client();
    const result = await c.uploadFileParts([{ content: pdf('one'), name: 'one.pdf' }, new File(['%PDF-1.4\n% two\n'], 'two.pdf', { type: 'application/pdf' })]);
    assert.equal(result.status, 200);
    assertRequestId(result.requestId);
    assert.deepEqual(
      result.data.Files.map((f) => f.FileName),
      ['one.pdf', 'two.pdf'],
    );
    assert.ok(result.data.Files.every((f) => typeof f.FileId === 'string' && f.FileId !== ''));
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.url, new URL(emulator.fileUrl).href, 'the file-management domain, root path');
    assert.equal(sent[0]!.headers.get('x-tc-action'), UPLOAD_FILE_ACTION);
    // one Blob body made of the files' Blobs (read only as it is sent), one `file` part per file
    const boundary = /^multipart\/form-data; boundary=(\S+)$/.exec(sent[0]!.headers.get('content-type') ?? '')?.[1];
    assert.ok(boundary, 'multipart/form-data with a boundary');
    const body = sent[0]!.body as Blob;
    assert.ok(body instanceof Blob);
    const text = await body.text();
    assert.deepEqual(
      [...text.matchAll(/Content-Disposition: form-data; name="file"; filename="([^"]+)"/g)].map((m) => m[1]),
      ['one.pdf', 'two.pdf'],
    );
    assert.ok(text.endsWith(`--${boundary}--\r\n`));
    assert.equal(sent[0]!.headers.get('authorization')?.startsWith('Bearer '), true);
    // the FileIds are the Space's: an embedded request_signatures view accepts them
    const view = await c.requestSignaturesView(result.data.Files.map((f) => f.FileId));
    assert.match(view.data.Url, /^http:\/\/127\.0\.0\.1:\d+\/embedded\/view\?embedded_token=/);
  });

  test('uploadFileParts: refused before any request without fileUrl, files, names or bytes; a service error keeps its RequestId', async () => {
    await rejects(client({ fileUrl: undefined }).uploadFileParts([{ content: pdf('x'), name: 'x.pdf' }]), 'invalid_config');
    const c = client();
    await rejects(c.uploadFileParts([]), 'no_files');
    await rejects(c.uploadFileParts([{ content: pdf('x'), name: '' }]), 'invalid_argument');
    await rejects(c.uploadFileParts([{ content: new Blob([]), name: 'empty.pdf' }]), 'invalid_argument');
    await rejects(c.uploadFileParts([{ content: 'not a blob' as unknown as Blob, name: 'x.pdf' }]), 'invalid_argument');
    assert.equal(sent.length, 0, 'nothing was sent');
    // more files than the service takes in one request (the emulator's limit is 10)
    const eleven = Array.from({ length: 11 }, (_, i) => ({ content: pdf(`f${i}`), name: `f${i}.pdf` }));
    const error = await rejects(c.uploadFileParts(eleven), 'payload_too_large', 413);
    assert.equal(error.serviceCode, 'LimitExceeded.FileCount');
    assertRequestId(error.requestId);
    assert.throws(
      () => client({ fileUrl: 'http://files.example.com' }),
      (e: unknown) => e instanceof EsignError && e.code === 'invalid_config',
    );
  });

  test('createEnvelope: sends X-Operator-User-Id, answers a typed envelope with RequestId', async () => {
    const c = client({ operatorUserId: ALICE });
    const fileId = await uploadOne(c);
    const result = await c.createEnvelope({ FileIds: [fileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }], Subject: 'NDA' });
    assert.equal(result.status, 200);
    assertRequestId(result.requestId);
    assert.equal(result.data.Status, 'sent');
    assert.equal(result.data.Subject, 'NDA');
    assert.deepEqual(result.data.FileIds, [fileId]);
    assert.deepEqual(
      result.data.Signers.map((s) => [s.Name, s.Email, s.Status]),
      [['Bob Lim', 'bob@example.com', 'pending']],
    );
    assert.match(result.data.EnvelopeId, /\S/);
    assert.equal(sent.at(-1)!.headers.get('x-operator-user-id'), ALICE);
    // the call's operator wins over the client's
    await c.createEnvelope({ FileIds: [fileId], Signers: [{ Name: 'Carol Wong', Email: 'carol@example.com' }] }, { operatorUserId: BOB });
    assert.equal(sent.at(-1)!.headers.get('x-operator-user-id'), BOB);
  });

  test('void and remind: typed envelope with RequestId, X-Operator-User-Id sent', async () => {
    const c = client({ operatorUserId: ALICE });
    const fileId = await uploadOne(c);
    const { data: created } = await c.createEnvelope({ FileIds: [fileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }] });
    const reminded = await c.remindEnvelope({ EnvelopeId: created.EnvelopeId });
    assertRequestId(reminded.requestId);
    assert.equal(reminded.data.EnvelopeId, created.EnvelopeId);
    assert.equal(reminded.data.Status, 'sent');
    assert.equal(sent.at(-1)!.headers.get('x-operator-user-id'), ALICE);
    const voided = await c.voidEnvelope({ EnvelopeId: created.EnvelopeId, Reason: 'wrong file' });
    assertRequestId(voided.requestId);
    assert.equal(voided.data.Status, 'voided');
    assert.equal(sent.at(-1)!.headers.get('x-operator-user-id'), ALICE);
    assert.notEqual(voided.requestId, reminded.requestId);
  });

  test('envelope calls without a member id are refused before any request (invalid_argument)', async () => {
    const c = client();
    const fileId = await uploadOne(c);
    sent = [];
    for (const call of [
      () => c.createEnvelope({ FileIds: [fileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }] }),
      () => c.voidEnvelope({ EnvelopeId: 'env_1' }),
      () => c.remindEnvelope({ EnvelopeId: 'env_1' }),
      () => c.voidEnvelope({ EnvelopeId: 'env_1' }, { operatorUserId: '' }),
      () => c.remindEnvelope({ EnvelopeId: 'env_1' }, { operatorUserId: 'user\r\nX-Evil: 1' }),
    ]) {
      const error = await rejects(call(), 'invalid_argument');
      assert.match(error.message, /operatorUserId|X-Operator-User-Id/);
    }
    await rejects(client({ operatorUserId: ALICE }).voidEnvelope({ EnvelopeId: '' }), 'invalid_argument');
    assert.equal(sent.length, 0, 'nothing was sent');
    assert.throws(
      () => client({ operatorUserId: ' ' }),
      (e: unknown) => e instanceof EsignError && e.code === 'invalid_config',
    );
  });

  test('envelope business errors carry the RequestId: not a member (403), unknown envelope (404), unknown file (404)', async () => {
    const outsider = client({ operatorUserId: 'user_carol' });
    const c = client({ operatorUserId: ALICE });
    const fileId = await uploadOne(c);
    const notMember = await rejects(outsider.createEnvelope({ FileIds: [fileId], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }] }), 'forbidden', 403);
    assert.equal(notMember.serviceCode, 'OperationDenied.NotMember');
    assertRequestId(notMember.requestId);
    const unknown = await rejects(c.voidEnvelope({ EnvelopeId: 'env_does_not_exist' }), 'not_found', 404);
    assertRequestId(unknown.requestId);
    assert.match(unknown.serviceCode ?? '', /NotFound/);
    const remindUnknown = await rejects(c.remindEnvelope({ EnvelopeId: 'env_does_not_exist' }), 'not_found', 404);
    assertRequestId(remindUnknown.requestId);
    const noFile = await rejects(c.createEnvelope({ FileIds: ['file_nope'], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }] }), 'not_found', 404);
    assert.equal(noFile.serviceCode, 'ResourceNotFound.File');
    assertRequestId(noFile.requestId);
  });

  test('members/add: typed UserId and Status with RequestId; refused without Email; a bad Name is a business error with RequestId', async () => {
    const c = client();
    const added = await c.addMember({ Email: 'dana@example.com', Name: 'Dana' });
    assert.equal(added.status, 200);
    assertRequestId(added.requestId);
    assert.match(added.data.UserId, /\S/);
    assert.equal(added.data.Status, 'pending');
    const existing = await c.addMember({ Email: 'bob@example.com' });
    assert.equal(existing.data.Status, 'active', 'an active member stays active');
    sent = [];
    await rejects(c.addMember({ Email: '' }), 'invalid_argument');
    await rejects(c.addMember({} as { Email: string }), 'invalid_argument');
    assert.equal(sent.length, 0);
    const bad = await rejects(c.addMember({ Email: 'erin@example.com', Name: 'x'.repeat(201) }), 'invalid_argument', 400);
    assert.equal(bad.serviceCode, 'InvalidParameter');
    assertRequestId(bad.requestId);
  });

  test('nodeStreamingFetch: the upload streams through node:http; a refused token is refreshed and the Blobs are sent again', async () => {
    let calls = 0;
    const good = await tokens.getAccessToken();
    const c = client({
      tokens: { getAccessToken: async (o) => (calls++, o?.forceRefresh ? good : 'expired-token') },
      fetch: (input, init) => {
        sent.push({ url: String(input), headers: new Headers(init?.headers), body: init?.body });
        return nodeStreamingFetch(input, init);
      },
    });
    const result = await c.uploadFileParts([{ content: pdf('retried'), name: 'retried.pdf' }]);
    assert.equal(result.data.Files[0]!.FileName, 'retried.pdf');
    assertRequestId(result.requestId);
    assert.equal(sent.length, 2, 'the 401, then the same upload again');
    assert.equal(calls, 2);
    // a JSON call through it goes to the global fetch and works the same
    const added = await c.addMember({ Email: 'frank@example.com' });
    assertRequestId(added.requestId);
  });

  test('nodeStreamingFetch: a dead port is network_error, a silent service is timeout, an abort is aborted', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    try {
      const file = [{ content: pdf('x'), name: 'x.pdf' }];
      await rejects(client({ fileUrl: deadUrl, fetch: nodeStreamingFetch }).uploadFileParts(file), 'network_error');
      await rejects(client({ fileUrl: silentUrl, fetch: nodeStreamingFetch, timeoutMs: 300 }).uploadFileParts(file), 'timeout');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await rejects(client({ fileUrl: silentUrl, fetch: nodeStreamingFetch, timeoutMs: 0 }).uploadFileParts(file, { signal: controller.signal }), 'aborted');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
