/**
 * API client against the real emulator, with tokens obtained through the consent forms and the token
 * proxy: upload, embedded views, members, envelopes, 401 refresh-and-retry, 429 retry with Retry-After.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient, type TokenSource } from '../../src/core/service/client.js';
import { EsignError } from '@esign-elements/shared/errors';
import type { TokenResponse } from '@esign-elements/shared/service-types';
import { createEmulator } from '@esign-elements/emulator';
import type { ServedTokenProxy } from '@esign-elements/token-proxy';
import { serveTokenProxy } from '@esign-elements/token-proxy/node';
import { codeExchangeForm, obtainAuthorizationCode, serveDemoProxy } from '@esign-elements/test-support/oauth-login';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

let emulator: Emulator;
let proxy: ServedTokenProxy;

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  proxy = await serveDemoProxy(serveTokenProxy, emulator, {
    rateLimit: false,
    // this suite's token source sends refresh tokens in the form: the proxy's opt-in browser-held mode
    browserHeldRefreshTokens: true,
  });
});
after(async () => {
  await proxy.close();
  await emulator.close();
});
beforeEach(async () => {
  await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
});

async function tokenCall(form: URLSearchParams): Promise<TokenResponse> {
  const response = await fetch(`${proxy.url}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
    body: form.toString(),
  });
  const json = (await response.json()) as TokenResponse;
  assert.equal(response.status, 200, JSON.stringify(json));
  return json;
}

/** A token source like the session's: refreshes through the proxy when asked; can start with a bad token. */
class ProxySession implements TokenSource {
  forced = 0;
  constructor(
    private tokens: TokenResponse,
    private current: string = tokens.access_token,
  ) {}
  async getAccessToken(options?: { forceRefresh?: boolean; signal?: AbortSignal }): Promise<string> {
    if (options?.forceRefresh) {
      this.forced += 1;
      this.tokens = await tokenCall(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.tokens.refresh_token! }));
      this.current = this.tokens.access_token;
    }
    return this.current;
  }
}

async function login(email = 'alice@example.com', password = 'alice-password', space = 'space_acme'): Promise<TokenResponse> {
  const result = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, email, password, chooseSpaceId: space });
  return tokenCall(codeExchangeForm(result));
}

async function injectFault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.baseUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

async function requests(): Promise<Record<string, number>> {
  return (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
}

const pdf = Buffer.from('%PDF-1.4\n% esign-elements test\n').toString('base64');

describe('client + emulator', () => {
  test('uploads files, then opens request_signatures and signature_status views', async () => {
    const tokens = await login();
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(tokens) });
    const upload = await client.uploadFiles([
      { FileName: 'contract.pdf', FileBody: pdf },
      { FileName: 'annex.pdf', FileBody: pdf },
    ]);
    assert.equal(upload.status, 200);
    assert.equal(typeof upload.requestId, 'string');
    assert.ok(upload.requestId.length > 0, 'upload.requestId.length > 0');
    assert.deepEqual(
      upload.data.Files.map((f) => f.FileName),
      ['contract.pdf', 'annex.pdf'],
    );

    const fileIds = upload.data.Files.map((f) => f.FileId);
    const view = await client.requestSignaturesView(fileIds);
    const url = new URL(view.data.Url);
    assert.equal(url.origin, new URL(emulator.baseUrl).origin);
    assert.ok(Date.parse(view.data.ExpiresAt) > Date.now(), 'ExpiresAt in the future');

    const status = await client.signatureStatusView();
    assert.ok(status.data.Url.startsWith(emulator.baseUrl), 'status.data.Url.startsWith(emulator.baseUrl)');
  });

  test('a FileId of nothing is not_found with the service code and RequestId', async () => {
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(await login()) });
    const error = await client.requestSignaturesView(['file_does_not_exist']).catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'error instanceof EsignError');
    assert.equal(error.code, 'not_found');
    assert.equal(error.status, 404);
    assert.equal(error.serviceCode, 'ResourceNotFound.File');
    assert.equal(typeof error.requestId, 'string');
  });

  test('401 with a garbage token → one forced refresh through the proxy → retried', async () => {
    const session = new ProxySession(await login(), 'garbage-token');
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: session });
    const before = (await requests())['grant:refresh_token'] ?? 0;
    const upload = await client.uploadFiles([{ FileName: 'a.pdf', FileBody: pdf }]);
    assert.equal(upload.data.Files.length, 1);
    assert.equal(session.forced, 1);
    assert.equal((await requests())['grant:refresh_token'], before + 1);
  });

  test('an expired access token (clock advanced) is refreshed and retried', async () => {
    const session = new ProxySession(await login());
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: session });
    emulator.advanceClock(3_601);
    const view = await client.signatureStatusView();
    assert.equal(view.status, 200);
    assert.equal(session.forced, 1);
  });

  test('a revoked grant stays unauthorized after the one refresh attempt', async () => {
    const tokens = await login();
    await fetch(`${proxy.url}/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
      body: new URLSearchParams({ token: tokens.refresh_token! }).toString(),
    });
    const failing: TokenSource = {
      async getAccessToken(options) {
        if (options?.forceRefresh) throw new EsignError('session_expired', 'The session ended; connect again.');
        return tokens.access_token;
      },
    };
    const error = await createClient({ baseUrl: emulator.baseUrl, tokens: failing })
      .signatureStatusView()
      .catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'error instanceof EsignError');
    assert.equal(error.code, 'session_expired');
  });

  test('429 injected with Retry-After: 1 is waited out and retried, even for an upload', async () => {
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(await login()) });
    await injectFault({ path: '/openapi/v1/files/upload', kind: 'status', status: 429, retryAfter: 1 });
    const started = Date.now();
    const upload = await client.uploadFiles([{ FileName: 'a.pdf', FileBody: pdf }]);
    assert.equal(upload.data.Files.length, 1);
    assert.ok(Date.now() - started >= 950, 'waited for Retry-After');
    assert.equal((await requests())['POST /openapi/v1/files/upload'], 2);
  });

  test('503 is retried for embedded views, not for uploads', async () => {
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(await login()), retry: { baseDelayMs: 10 } });
    await injectFault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 503, times: 2 });
    const view = await client.signatureStatusView();
    assert.equal(view.status, 200);

    await injectFault({ path: '/openapi/v1/files/upload', kind: 'status', status: 503 });
    const error = await client.uploadFiles([{ FileName: 'a.pdf', FileBody: pdf }]).catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'error instanceof EsignError');
    assert.equal(error.code, 'service_error');
    assert.equal(error.serviceCode, 'InternalError');
    assert.equal((await requests())['POST /openapi/v1/files/upload'], 1);
  });

  test('a dropped connection on an idempotent call is retried', async () => {
    const client = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(await login()), retry: { baseDelayMs: 10 } });
    await injectFault({ path: '/openapi/v1/embedded/views', kind: 'drop' });
    const view = await client.signatureStatusView();
    assert.equal(view.status, 200);
  });

  test('members and envelopes: operator header only when configured', async () => {
    const tokens = await login();
    const plain = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(tokens) });
    const member = await plain.addMember({ Email: 'carol@example.com', Name: 'Carol Wong' });
    assert.equal(member.data.Status, 'pending');
    assert.equal(typeof member.data.UserId, 'string');

    const files = await plain.uploadFiles([{ FileName: 'nda.pdf', FileBody: pdf }]);
    const request = { FileIds: files.data.Files.map((f) => f.FileId), Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }], Subject: 'NDA' };
    // refused before any request: envelope calls need a member's id as X-Operator-User-Id
    const before = (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
    const denied = await plain.createEnvelope(request).catch((e: unknown) => e);
    assert.ok(denied instanceof EsignError, 'denied instanceof EsignError');
    assert.equal(denied.code, 'invalid_argument');
    assert.equal(denied.requestId, undefined);
    const afterDenied = (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
    assert.equal(afterDenied['POST /openapi/v1/envelopes'] ?? 0, before['POST /openapi/v1/envelopes'] ?? 0, 'nothing reached the service');

    const asAlice = createClient({ baseUrl: emulator.baseUrl, tokens: new ProxySession(tokens), operatorUserId: 'user_alice' });
    const envelope = await asAlice.createEnvelope(request);
    assert.equal(typeof envelope.data.EnvelopeId, 'string');
    const afterCreate = (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
    assert.equal(
      afterCreate['POST /openapi/v1/envelopes'],
      (afterDenied['POST /openapi/v1/envelopes'] ?? 0) + 1,
      'the counted route is the one the refusal did not reach',
    );
    const reminded = await asAlice.remindEnvelope({ EnvelopeId: envelope.data.EnvelopeId });
    assert.equal(reminded.data.EnvelopeId, envelope.data.EnvelopeId);
    const voided = await asAlice.voidEnvelope({ EnvelopeId: envelope.data.EnvelopeId, Reason: 'test' });
    assert.equal(voided.data.Status, 'voided');

    const notMember = await asAlice.voidEnvelope({ EnvelopeId: envelope.data.EnvelopeId }, { operatorUserId: 'user_carol' }).catch((e: unknown) => e);
    assert.ok(notMember instanceof EsignError, 'notMember instanceof EsignError');
    assert.equal(notMember.serviceCode, 'OperationDenied.NotMember');
  });
});
