/**
 * Fault tests with the emulator's fault injection (POST /__emulator/faults: delay, status, drop): the API
 * client and the token proxy under 5xx, 429, slow answers and dropped connections either recover or fail
 * with a clear EsignError / OAuth error, and nothing is lost or duplicated (stored files are counted with
 * /__emulator/stats, and a FileId must work in embedded/views).
 *
 * Not repeated from client-emulator.test.ts and proxy-emulator.test.ts: single 429/503/drop retries, and the
 * proxy's 503→502, drop→502, delay→504 mapping. Here: what state the service ends up in.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createClient, type EsignClient, type TokenSource } from '../../src/core/service/client.js';
import { EsignError } from '@esign-elements/shared/errors';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import type { ServedTokenProxy } from '@esign-elements/token-proxy';
import { serveTokenProxy } from '@esign-elements/token-proxy/node';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode, serveDemoProxy } from '@esign-elements/test-support/oauth-login';

const PROXY_TIMEOUT_MS = 500;
let emu: RunningEmulator;
let proxy: ServedTokenProxy;

before(async () => {
  emu = await createEmulator({ port: 0, filePort: 0 });
  proxy = await serveDemoProxy(serveTokenProxy, emu, {
    // refresh tokens in the form: the opt-in browser-held mode (the default mode's faults: proxy-mediated.test.ts)
    browserHeldRefreshTokens: true,
    rateLimit: false,
    timeoutMs: PROXY_TIMEOUT_MS,
  });
});
after(async () => {
  await proxy.close();
  await emu.close();
});
beforeEach(async () => {
  await fetch(`${emu.baseUrl}/__emulator/reset`, { method: 'POST' });
});

interface Tokens {
  access_token: string;
  refresh_token: string;
}

async function proxyToken(form: URLSearchParams): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${proxy.url}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1' },
    body: form.toString(),
  });
  const text = await response.text();
  assert.ok(!text.includes(DEMO_LOGIN.clientSecret), 'the secret is never in a proxy answer');
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, headers: response.headers };
}

async function connect(): Promise<Tokens> {
  const login = await obtainAuthorizationCode({ baseUrl: emu.baseUrl, chooseSpaceId: 'space_acme' });
  const answer = await proxyToken(codeExchangeForm(login));
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json as unknown as Tokens;
}

const refreshForm = (token: string): URLSearchParams => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token });

async function fault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emu.baseUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

async function stats(): Promise<Record<string, number>> {
  return (await (await fetch(`${emu.baseUrl}/__emulator/stats`)).json()) as Record<string, number>;
}

async function counters(): Promise<Record<string, number>> {
  return (await (await fetch(`${emu.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
}

async function viewStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${emu.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  await response.body?.cancel();
  return response.status;
}

function client(accessToken: string, options: { timeoutMs?: number } = {}): EsignClient {
  const tokens: TokenSource = { getAccessToken: async () => accessToken };
  return createClient({ baseUrl: emu.baseUrl, tokens, retry: { baseDelayMs: 20, maxDelayMs: 2_000 }, ...options });
}

const pdf = [{ FileName: 'contract.pdf', FileBody: Buffer.from('%PDF-1.4\n% hardening\n').toString('base64') }];

/** Waits until the emulator has finished a request the client gave up on (a delay fault then the handler). */
async function settle(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('hardening: API client under injected faults', () => {
  test('an upload marked idempotent, retried through 503, 503 and a 429 with Retry-After, stores exactly one file', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/files/upload', kind: 'status', status: 503, times: 2 });
    await fault({ path: '/openapi/v1/files/upload', kind: 'status', status: 429, retryAfter: 1 });
    const before = (await stats()).files;
    const started = Date.now();
    const upload = await client(tokens.access_token).uploadFiles(pdf, { idempotent: true });
    assert.ok(Date.now() - started >= 950, 'the 429 Retry-After of 1 s was waited out');
    assert.equal((await counters())['POST /openapi/v1/files/upload'], 4, 'three refused attempts, then one that went through');
    assert.equal((await stats()).files - before, 1, 'exactly one stored file');
    const fileId = upload.data.Files[0]!.FileId;
    const view = await client(tokens.access_token).requestSignaturesView([fileId]);
    assert.equal(view.status, 200, 'the FileId works in embedded/views');
  });

  test('a dropped connection on an upload: not retried by default (network_error, nothing stored), retried once idempotent (one file)', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/files/upload', kind: 'drop' });
    const error = await client(tokens.access_token)
      .uploadFiles(pdf)
      .catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'an EsignError');
    assert.equal(error.code, 'network_error');
    assert.equal((await stats()).files, 0, 'the dropped upload stored nothing');

    await fault({ path: '/openapi/v1/files/upload', kind: 'drop' });
    const upload = await client(tokens.access_token).uploadFiles(pdf, { idempotent: true });
    assert.equal((await stats()).files, 1, 'the retried upload stored exactly one file');
    assert.equal((await client(tokens.access_token).requestSignaturesView([upload.data.Files[0]!.FileId])).status, 200, 'and its FileId works');
  });

  test('a slow upload past the client timeout is a timeout error, not retried; the service still stores it (orphan, the client never sees its FileId)', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/files/upload', kind: 'delay', delayMs: 600 });
    const error = await client(tokens.access_token, { timeoutMs: 200 })
      .uploadFiles(pdf)
      .catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'an EsignError');
    assert.equal(error.code, 'timeout');
    await settle(800);
    assert.equal((await counters())['POST /openapi/v1/files/upload'], 1, 'no retry of a non-idempotent call');
    // the API has no idempotency key: a timed-out upload may have been stored; retrying it would store a second copy
    assert.equal((await stats()).files, 1, 'one stored file the caller does not know about');
  });

  test('persistent 503 ends after the configured retries with service_error, status, serviceCode and RequestId', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 503, times: 10 });
    const error = await client(tokens.access_token)
      .signatureStatusView()
      .catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'an EsignError');
    assert.equal(error.code, 'service_error');
    assert.equal(error.status, 503);
    assert.equal(error.serviceCode, 'InternalError');
    assert.equal(typeof error.requestId, 'string', 'the RequestId of the last answer');
    assert.equal((await counters())['POST /openapi/v1/embedded/views'], 4, 'first attempt + 3 retries');
    await fetch(`${emu.baseUrl}/__emulator/faults`, { method: 'DELETE' });
  });

  test('a 429 whose Retry-After is beyond the client cap fails at once as rate_limited with retryAfter', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 429, retryAfter: 60 });
    const started = Date.now();
    const error = await client(tokens.access_token)
      .signatureStatusView()
      .catch((e: unknown) => e);
    assert.ok(error instanceof EsignError, 'an EsignError');
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retryAfter, 60);
    assert.ok(Date.now() - started < 1_000, 'no 60 s wait');
    assert.equal((await counters())['POST /openapi/v1/embedded/views'], 1, 'one attempt');
  });

  test('a 500 and a drop on embedded/views are retried; exactly one one-time Url is minted', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 500 });
    await fault({ path: '/openapi/v1/embedded/views', kind: 'drop' });
    const view = await client(tokens.access_token).signatureStatusView();
    assert.equal(view.status, 200);
    assert.equal((await stats()).embeddedUrls, 1, 'the refused attempts minted no Url');
    const page = await fetch(view.data.Url, { redirect: 'manual' });
    await page.body?.cancel();
    assert.equal(page.status, 303, 'the Url opens its page session');
  });
});

describe('hardening: token proxy under injected faults', () => {
  test('a refresh that hits a dropped connection (502) does not burn the refresh token: the same token works afterwards', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/oauth/token', kind: 'drop' });
    const dropped = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(dropped.status, 502);
    assert.equal(dropped.json.error, 'temporarily_unavailable');
    const retried = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(retried.status, 200, `the retry succeeds: ${JSON.stringify(retried.json)}`);
    assert.equal(await viewStatus(retried.json.access_token as string), 200, 'the new access token works');
    assert.equal(await viewStatus(tokens.access_token), 200, 'the grant was not revoked');
  });

  test('upstream 500 → 502 and upstream 429 → 429 with Retry-After; neither consumes the token', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/oauth/token', kind: 'status', status: 500 });
    const five = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(five.status, 502);
    assert.deepEqual(Object.keys(five.json).sort(), ['error', 'error_description'], 'no upstream body passed on');

    await fault({ path: '/openapi/v1/oauth/token', kind: 'status', status: 429, retryAfter: 7 });
    const limited = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error, 'temporarily_unavailable');
    assert.equal(limited.headers.get('retry-after'), '7');

    const ok = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(ok.status, 200, 'the refresh token survived both');
  });

  test('a slow service within the proxy timeout: the refresh succeeds and rotates once', async () => {
    const tokens = await connect();
    await fault({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: PROXY_TIMEOUT_MS / 2 });
    const slow = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(slow.status, 200);
    assert.equal((await counters())['grant:refresh_token'], 1);
    assert.equal(await viewStatus(slow.json.access_token as string), 200);
  });

  test('a refresh whose answer is lost after the service rotated the token (proxy 504): the retry is told refresh_interrupted (issue 39), the grant is over', async () => {
    const tokens = await connect();
    // the emulator holds the request past the proxy's timeout, then processes it: rotated, answer lost
    await fault({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: PROXY_TIMEOUT_MS * 2 });
    const timedOut = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(timedOut.status, 504);
    assert.equal(timedOut.json.error, 'temporarily_unavailable');
    await settle(PROXY_TIMEOUT_MS * 2 + 300);
    assert.equal((await counters())['grant:refresh_token'], 1, 'the service did process the refresh');

    // what a client does after a 504: retry with the token it has. The proxy knows the earlier outcome is unknown (its
    // mark stayed): the service's invalid_grant for the rotated token is passed on as refresh_interrupted, not bare
    const retried = await proxyToken(refreshForm(tokens.refresh_token));
    assert.equal(retried.status, 401);
    assert.equal(retried.json.error, 'refresh_interrupted', JSON.stringify(retried.json));
    assert.equal(await viewStatus(tokens.access_token), 401, 'reuse detection revoked the grant: the user must connect again');
  });
});
