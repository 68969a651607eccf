/**
 * Token proxy against the real emulator in the opt-in browser-held mode (refresh tokens in the form, as
 * before the token-mediating mode; that mode is proxy-mediated.test.ts): code exchange with a code
 * obtained by driving the consent forms, refresh with rotation (and reuse detection), the replay window
 * bound to the caller (address + Origin), revocation, upstream faults injected by the emulator.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode, serveDemoProxy } from '@esign-elements/test-support/oauth-login';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const ORIGIN = 'http://localhost:6006';
/** The opt-in mode under /api/esign. */
const HELD = { browserHeldRefreshTokens: true, cookieKeys: [generateCookieKey()], basePath: '/api/esign' };
let emulator: Emulator;
let proxy: ServedTokenProxy;

before(async () => {
  emulator = await createEmulator({ port: 0, filePort: 0 });
  proxy = await serveDemoProxy(serveTokenProxy, emulator, {
    ...HELD,
    allowedOrigins: [ORIGIN],
    rateLimit: false,
    timeoutMs: 1_000,
  });
});
after(async () => {
  await proxy.close();
  await emulator.close();
});
beforeEach(async () => {
  await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
});

async function proxyPost(
  endpoint: 'token' | 'revoke',
  form: URLSearchParams,
  base = proxy.url,
): Promise<{ status: number; json: Record<string, unknown>; text: string; headers: Headers }> {
  const response = await fetch(`${base}/api/esign/${endpoint}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
    body: form.toString(),
  });
  const text = await response.text();
  assert.ok(!text.includes(DEMO_LOGIN.clientSecret), 'secret in a body');
  for (const [name, value] of response.headers) assert.ok(!value.includes(DEMO_LOGIN.clientSecret), `secret in ${name}`);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text, headers: response.headers };
}

async function embeddedStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${emulator.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  await response.body?.cancel();
  return response.status;
}

async function requests(): Promise<Record<string, number>> {
  return (await (await fetch(`${emulator.baseUrl}/__emulator/requests`)).json()) as Record<string, number>;
}

async function fault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.baseUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

/** Whether every injected fault has been used up (a held request has reached the service). */
async function faultsUsedUp(): Promise<boolean> {
  return ((await (await fetch(`${emulator.baseUrl}/__emulator/faults`)).json()) as unknown[]).length === 0;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function exchange(chooseSpaceId = 'space_acme'): Promise<Record<string, unknown>> {
  const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId });
  const answer = await proxyPost('token', codeExchangeForm(login, DEMO_LOGIN.clientId));
  assert.equal(answer.status, 200, answer.text);
  return answer.json;
}

describe('token proxy + emulator', () => {
  test('exchanges a code obtained through the consent forms', async () => {
    const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl, chooseSpaceId: 'space_alice' });
    const answer = await proxyPost('token', codeExchangeForm(login));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('access-control-allow-origin'), ORIGIN);
    const tokens = answer.json;
    assert.equal(typeof tokens.access_token, 'string');
    assert.equal(typeof tokens.refresh_token, 'string');
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.space_id, 'space_alice');
    // the emulator's optional display names (assumption: user_name, user_email, space_name) pass through
    assert.deepEqual(Object.keys(tokens).sort(), [
      'access_token',
      'expires_in',
      'refresh_token',
      'scope',
      'space_id',
      'space_name',
      'token_type',
      'user_email',
      'user_name',
    ]);
    assert.equal(await embeddedStatus(tokens.access_token as string), 200);

    // The same code again: the service's invalid_grant passes through.
    const replay = await proxyPost('token', codeExchangeForm(login));
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
  });

  test('a wrong code_verifier is the service invalid_grant', async () => {
    const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
    const form = codeExchangeForm(login);
    form.set('code_verifier', 'x'.repeat(64));
    const answer = await proxyPost('token', form);
    assert.equal(answer.status, 400);
    assert.equal(answer.json.error, 'invalid_grant');
  });

  test('refresh rotates the refresh token; with no replay window, reusing the old one revokes the grant', async () => {
    const strict = await serveDemoProxy(serveTokenProxy, emulator, {
      ...HELD,
      allowedOrigins: [ORIGIN],
      rateLimit: false,
      timeoutMs: 1_000,
      refreshReplayMs: 0,
    });
    try {
      await rotateThenReuse(strict.url);
    } finally {
      await strict.close();
    }
  });

  async function rotateThenReuse(base: string): Promise<void> {
    const first = await exchange();
    const refreshed = await proxyPost('token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string }), base);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.json.access_token, first.access_token);
    assert.notEqual(refreshed.json.refresh_token, first.refresh_token, 'rotated');
    assert.equal(await embeddedStatus(refreshed.json.access_token as string), 200);
    assert.equal((await requests())['grant:refresh_token'], 1);

    const reuse = await proxyPost('token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string }), base);
    assert.equal(reuse.status, 400);
    assert.equal(reuse.json.error, 'invalid_grant');
    assert.equal(await embeddedStatus(refreshed.json.access_token as string), 401, 'the whole grant is revoked');
    const after = await proxyPost('token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token as string }), base);
    assert.equal(after.json.error, 'invalid_grant');
  }

  test('an answer the browser lost: the same refresh token again gets the same tokens, and the grant lives on', async () => {
    const first = await exchange();
    const refreshForm = (token: unknown): URLSearchParams => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token as string });
    // the service is slow; the browser gives up (a dropped connection) before the answer comes
    await fault({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 600, times: 1 });
    const gaveUp = new AbortController();
    const dropped = assert.rejects(
      fetch(`${proxy.url}/api/esign/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN },
        body: refreshForm(first.refresh_token).toString(),
        signal: gaveUp.signal,
      }),
      'the browser dropped the request',
    );
    // the browser goes away once the refresh is at the service (the delay fault is used up on arrival)
    await waitFor(faultsUsedUp, 'the refresh reaches the service', 30_000);
    gaveUp.abort();
    await dropped;
    // the proxy still finished the refresh: the service rotated the token once
    await waitFor(async () => (await requests())['grant:refresh_token'] === 1, 'the refresh reaches the service');
    const retried = await proxyPost('token', refreshForm(first.refresh_token));
    assert.equal(retried.status, 200, retried.text);
    assert.notEqual(retried.json.refresh_token, first.refresh_token, 'the rotated token');
    assert.equal((await requests())['grant:refresh_token'], 1, 'answered from the replay window, not sent again');
    assert.equal(await embeddedStatus(retried.json.access_token as string), 200, 'the grant is not revoked');

    // the same again, and concurrently: the same tokens, still one call to the service
    const again = await Promise.all([proxyPost('token', refreshForm(first.refresh_token)), proxyPost('token', refreshForm(first.refresh_token))]);
    for (const answer of again) assert.deepEqual(answer.json, retried.json, 'the same tokens');
    assert.equal((await requests())['grant:refresh_token'], 1);

    // the session goes on with the rotated token
    const next = await proxyPost('token', refreshForm(retried.json.refresh_token));
    assert.equal(next.status, 200, next.text);
    assert.equal(await embeddedStatus(next.json.access_token as string), 200);
  });

  test('concurrent refreshes with one token share one call; a failure is not remembered', async () => {
    // a proxy that waits for the service longer than the slow failure below lasts
    const patient = await serveDemoProxy(serveTokenProxy, emulator, { ...HELD, allowedOrigins: [ORIGIN], rateLimit: false, timeoutMs: 10_000 });
    try {
      const first = await exchange();
      const refreshForm = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      // a slow failure: the first request is held at the service while the second one comes in
      await fault({ path: '/openapi/v1/oauth/token', kind: 'status', status: 503, delayMs: 3_000, times: 1 });
      const firstCall = proxyPost('token', refreshForm, patient.url);
      await waitFor(faultsUsedUp, 'the first refresh reaches the service', 30_000);
      const failed = await Promise.all([firstCall, proxyPost('token', refreshForm, patient.url)]);
      // the fault answers once only: a second call to the service would have been a 200
      assert.deepEqual(
        failed.map((a) => a.status),
        [502, 502],
        'one call for both',
      );
      assert.equal((await requests())['grant:refresh_token'] ?? 0, 0, 'the fault answered before any grant');
      const ok = await Promise.all([1, 2, 3].map(() => proxyPost('token', refreshForm, patient.url)));
      assert.deepEqual(
        ok.map((a) => a.status),
        [200, 200, 200],
        'the failure was not remembered',
      );
      assert.equal(new Set(ok.map((a) => a.json.access_token)).size, 1, 'one set of tokens');
      assert.equal((await requests())['grant:refresh_token'], 1, 'one refresh at the service for three requests');
    } finally {
      await patient.close();
    }
  });

  test('a refresh over the rate limit is refused before the service (the hit counted with the claim)', async () => {
    const limited = await serveDemoProxy(serveTokenProxy, emulator, { ...HELD, allowedOrigins: [ORIGIN], rateLimit: { windowMs: 60_000, max: 3 } });
    try {
      // the code exchange is the first hit of this address
      const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
      const first = await proxyPost('token', codeExchangeForm(login, DEMO_LOGIN.clientId), limited.url);
      assert.equal(first.status, 200, first.text);
      let token = first.json.refresh_token as string;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const answer = await proxyPost('token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }), limited.url);
        statuses.push(answer.status);
        if (answer.status === 200) token = answer.json.refresh_token as string;
        else assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'Retry-After');
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.equal((await requests())['grant:refresh_token'], 2, 'the refused refresh did not reach the service');
    } finally {
      await limited.close();
    }
  });

  test('after the replay window, the old refresh token is reuse again', async () => {
    const short = await serveDemoProxy(serveTokenProxy, emulator, {
      ...HELD,
      allowedOrigins: [ORIGIN],
      rateLimit: false,
      timeoutMs: 1_000,
      refreshReplayMs: 1_000,
    });
    try {
      const first = await exchange();
      const refreshForm = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      const refreshed = await proxyPost('token', refreshForm, short.url);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal((await proxyPost('token', refreshForm, short.url)).status, 200, 'within the window');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const reuse = await proxyPost('token', refreshForm, short.url);
      assert.equal(reuse.status, 400);
      assert.equal(reuse.json.error, 'invalid_grant');
      assert.equal(await embeddedStatus(refreshed.json.access_token as string), 401, 'reuse detection revoked the grant');
    } finally {
      await short.close();
    }
  });

  test('revokes a refresh token (and its grant) through the proxy', async () => {
    const tokens = await exchange();
    const revoked = await proxyPost('revoke', new URLSearchParams({ token: tokens.refresh_token as string, token_type_hint: 'refresh_token' }));
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.json, {});
    const refresh = await proxyPost('token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string }));
    assert.equal(refresh.status, 400);
    assert.equal(refresh.json.error, 'invalid_grant');
    assert.equal(await embeddedStatus(tokens.access_token as string), 401);
    // Revoking again (or an unknown token) still succeeds (RFC 7009).
    assert.equal((await proxyPost('revoke', new URLSearchParams({ token: tokens.refresh_token as string }))).status, 200);
  });

  test('revokes an access token', async () => {
    const tokens = await exchange();
    const revoked = await proxyPost('revoke', new URLSearchParams({ token: tokens.access_token as string, token_type_hint: 'access_token' }));
    assert.equal(revoked.status, 200);
    assert.equal(await embeddedStatus(tokens.access_token as string), 401);
  });

  test('HTTP Basic client authentication works against the service', async () => {
    const basic = await serveDemoProxy(serveTokenProxy, emulator, {
      ...HELD,
      allowedOrigins: [ORIGIN],
      clientAuth: 'basic',
    });
    try {
      const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
      const answer = await proxyPost('token', codeExchangeForm(login), basic.url);
      assert.equal(answer.status, 200, answer.text);
    } finally {
      await basic.close();
    }
  });

  test("a wrong secret is the service's 401 invalid_client, and the secret is not echoed", async () => {
    const wrong = await serveTokenProxy({
      port: 0,
      clientId: DEMO_LOGIN.clientId,
      clientSecret: 'not-the-secret-4711',
      baseUrl: emulator.baseUrl,
      allowedOrigins: [ORIGIN],
      redirectUris: [DEMO_LOGIN.redirectUri],
      ...HELD,
    });
    try {
      const login = await obtainAuthorizationCode({ baseUrl: emulator.baseUrl });
      const answer = await proxyPost('token', codeExchangeForm(login), wrong.url);
      assert.equal(answer.status, 401);
      assert.equal(answer.json.error, 'invalid_client');
      assert.ok(!answer.text.includes('not-the-secret-4711'), '!answer.text.includes("not-the-secret-4711")');
    } finally {
      await wrong.close();
    }
  });

  test('faults injected at the service: 503 → 502, dropped connection → 502, slow answer → 504', async () => {
    const tokens = await exchange();
    const refreshForm = (): URLSearchParams => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    const fault = async (body: Record<string, unknown>): Promise<void> => {
      const response = await fetch(`${emulator.baseUrl}/__emulator/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.text());
    };

    await fault({ path: '/openapi/v1/oauth/token', kind: 'status', status: 503, retryAfter: 5 });
    let answer = await proxyPost('token', refreshForm());
    assert.equal(answer.status, 502);
    assert.equal(answer.json.error, 'temporarily_unavailable');
    assert.equal(answer.headers.get('retry-after'), '5');

    await fault({ path: '/openapi/v1/oauth/token', kind: 'drop' });
    answer = await proxyPost('token', refreshForm());
    assert.equal(answer.status, 502);

    await fault({ path: '/openapi/v1/oauth/token', kind: 'delay', delayMs: 2_000 });
    answer = await proxyPost('token', refreshForm());
    assert.equal(answer.status, 504);
    assert.equal(answer.json.error, 'temporarily_unavailable');

    // Let the delayed request finish at the emulator before the next test resets it.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await fetch(`${emulator.baseUrl}/__emulator/faults`, { method: 'DELETE' });
  });
});
