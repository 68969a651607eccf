import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RunningEmulator } from '../src/index.js';
import {
  alice,
  api,
  authUrl,
  CLIENT_ID,
  CLIENT_SECRET,
  consent,
  decide,
  defaultAuthParams,
  exchange,
  get,
  helper,
  login,
  openConsent,
  outbox,
  pkce,
  postForm,
  radios,
  REDIRECT,
  start,
  token,
} from './emulator-helpers.js';

let emu: RunningEmulator;

before(async () => {
  emu = await start({
    seed: {
      apps: [
        {
          clientId: 'http-app',
          clientSecret: 'http-secret',
          name: 'Plain http app',
          scopes: ['envelope:read'],
          redirectUris: ['http://example.com/callback', 'https://app.example.com/cb'],
        },
      ],
    },
  });
});
after(() => emu.close());
beforeEach(() => emu.reset());

function location(res: Response): URL {
  return new URL(res.headers.get('location')!);
}

describe('GET /oauth/auth validation', () => {
  it('unknown client_id gets an HTML error page, never a redirect', async () => {
    const res = await get(authUrl(emu, defaultAuthParams(pkce().challenge, { client_id: 'nope' })));
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    assert.equal(res.headers.get('location'), null);
  });

  it('unregistered or mismatched redirect_uri gets an HTML error page', async () => {
    for (const uri of [REDIRECT + '?x=1', 'http://localhost:8000/other', 'https://evil.example/cb', undefined]) {
      const res = await get(authUrl(emu, defaultAuthParams(pkce().challenge, { redirect_uri: uri })));
      assert.equal(res.status, 400, String(uri));
      assert.equal(res.headers.get('location'), null);
      assert.match(await res.text(), /redirect/i);
    }
  });

  it('a registered plain http (non-loopback) redirect_uri is refused', async () => {
    const res = await get(
      authUrl(emu, defaultAuthParams(pkce().challenge, { client_id: 'http-app', redirect_uri: 'http://example.com/callback', scope: 'envelope:read' })),
    );
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('location'), null);
    assert.match(await res.text(), /plain http/);
  });

  it('https redirect_uri is accepted without the development note', async () => {
    const res = await get(
      authUrl(emu, defaultAuthParams(pkce().challenge, { client_id: 'http-app', redirect_uri: 'https://app.example.com/cb', scope: 'envelope:read' })),
    );
    assert.equal(res.status, 302);
    const html = await (await get(res.headers.get('location')!)).text();
    assert.doesNotMatch(html, /loopback-note/);
  });

  it('loopback http redirect_uri is accepted and the consent page says so', async () => {
    const { html } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    assert.match(html, /id="loopback-note"/);
    assert.match(html, /Development only/);
    assert.match(html, /name="email"/);
    assert.match(html, /name="password"/);
    assert.match(html, />Log in</);
  });

  it('custom scheme redirect_uri is accepted', async () => {
    const res = await get(authUrl(emu, defaultAuthParams(pkce().challenge, { redirect_uri: 'com.example.esign:/oauth/callback' })));
    assert.equal(res.status, 302);
  });

  const redirectCases: Array<[string, Record<string, string | undefined>, string]> = [
    ['missing response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['missing code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['short code_challenge', { code_challenge: 'abc' }, 'invalid_request'],
    ['bad chars in code_challenge', { code_challenge: '+'.repeat(43) }, 'invalid_request'],
    ['plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['missing method', { code_challenge_method: undefined }, 'invalid_request'],
    ['missing scope', { scope: undefined }, 'invalid_request'],
    ['scope not allowed', { scope: 'envelope:read admin:all' }, 'invalid_scope'],
    ['space_id without login_hint', { space_id: 'space_acme' }, 'invalid_request'],
    ['unknown space_id', { space_id: 'space_nope', login_hint: 'carol@example.com' }, 'invalid_request'],
  ];
  for (const [name, extra, error] of redirectCases) {
    it(`${name} redirects with error=${error} and state`, async () => {
      const params = defaultAuthParams(pkce().challenge, extra);
      const res = await get(authUrl(emu, params));
      assert.equal(res.status, 302);
      const cb = location(res);
      assert.equal(cb.origin + cb.pathname, REDIRECT);
      assert.equal(cb.searchParams.get('error'), error);
      assert.equal(cb.searchParams.get('state'), params.state);
      assert.equal(cb.searchParams.get('code'), null);
    });
  }

  it('missing state redirects with invalid_request and no state', async () => {
    const res = await get(authUrl(emu, defaultAuthParams(pkce().challenge, { state: undefined })));
    assert.equal(res.status, 302);
    assert.equal(location(res).searchParams.get('error'), 'invalid_request');
    assert.equal(location(res).searchParams.has('state'), false);
  });

  it('repeated parameters are refused', async () => {
    const url = authUrl(emu, defaultAuthParams(pkce().challenge)) + '&scope=envelope:read';
    const res = await get(url);
    assert.equal(location(res).searchParams.get('error'), 'invalid_request');
  });
});

describe('consent page', () => {
  it('wrong password shows the form again with an error', async () => {
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    const { res, html } = await login(emu, requestId, 'alice@example.com', 'wrong');
    assert.equal(res.status, 401);
    assert.match(html, /Wrong email or password/);
    assert.match(html, /name="password"/);
    assert.equal(html.includes('name="ticket"'), false);
  });

  it('Open Mode lists the user Spaces as radios and Agree redirects with code and state', async () => {
    const params = defaultAuthParams(pkce().challenge);
    const { requestId } = await openConsent(emu, params);
    const { html } = await login(emu, requestId, 'alice@example.com', 'alice-password');
    assert.deepEqual(radios(html, 'space_id').sort(), ['space_acme', 'space_alice']);
    assert.match(html, />Agree</);
    assert.match(html, />Deny</);
    const res = await decide(emu, html, 'agree', 'space_alice');
    assert.equal(res.status, 302);
    const cb = location(res);
    assert.equal(cb.origin + cb.pathname, REDIRECT);
    assert.ok(cb.searchParams.get('code'));
    assert.equal(cb.searchParams.get('state'), params.state);
  });

  it('Agree without choosing one of the user Spaces shows the choice again', async () => {
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    const { html } = await login(emu, requestId, 'alice@example.com', 'alice-password');
    const res = await decide(emu, html, 'agree', 'space_integrator');
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Choose one of your Spaces/);
  });

  it('Agree without logging in is refused', async () => {
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    const res = await postForm(`${emu.baseUrl}/consent/decision`, { request: requestId, decision: 'agree', space_id: 'space_acme' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('location'), null);
  });

  it('a user with no Space sees a clear message and cannot agree', async () => {
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    const { html } = await login(emu, requestId, 'carol@example.com', 'carol-password');
    assert.match(html, /id="no-space"/);
    assert.match(html, /not a member of any Space/);
    assert.doesNotMatch(html, />Agree</);
    const res = await decide(emu, html, 'deny');
    assert.equal(location(res).searchParams.get('error'), 'access_denied');
  });

  it('Deny redirects with error=access_denied and state', async () => {
    const params = defaultAuthParams(pkce().challenge);
    const { requestId, html } = await openConsent(emu, params);
    assert.match(html, />Deny</);
    const res = await postForm(`${emu.baseUrl}/consent/decision`, { request: requestId, decision: 'deny' });
    assert.equal(res.status, 302);
    const cb = location(res);
    assert.equal(cb.searchParams.get('error'), 'access_denied');
    assert.equal(cb.searchParams.get('state'), params.state);
    // the request is finished: the consent URL no longer works
    const again = await get(`${emu.baseUrl}/consent?request=${encodeURIComponent(requestId)}`);
    assert.equal(again.status, 400);
  });

  it('an unknown or expired consent request shows an error page', async () => {
    assert.equal((await get(`${emu.baseUrl}/consent?request=nope`)).status, 400);
    const { consentUrl } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    emu.advanceClock(3600);
    assert.equal((await get(consentUrl)).status, 400);
  });

  it('the consent page cannot be framed', async () => {
    const { consentUrl } = await openConsent(emu, defaultAuthParams(pkce().challenge));
    const res = await get(consentUrl);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  });
});

describe('Designated Space Mode', () => {
  async function inviteCarol(): Promise<void> {
    const dev = await (await import('./emulator-helpers.js')).signIn(emu, 'dev@example.com', 'dev-password', 'space_integrator');
    const added = await api(emu, '/members/add', dev.access_token, { Email: 'carol@example.com', Name: 'Carol Wong' });
    assert.equal(added.status, 200);
    assert.equal(added.body.Response.Data.Status, 'pending');
  }

  it('pending member: no Space choice, Agree makes the member active', async () => {
    await inviteCarol();
    const { verifier, challenge } = pkce();
    const params = defaultAuthParams(challenge, { space_id: 'space_integrator', login_hint: 'carol@example.com' });
    const { requestId, html: loginHtml } = await openConsent(emu, params);
    assert.match(loginHtml, /value="carol@example.com"/);
    const { html } = await login(emu, requestId, 'carol@example.com', 'carol-password');
    assert.deepEqual(radios(html, 'space_id'), []);
    assert.match(html, /Integrator Space/);
    assert.match(html, /accepts your invitation/);
    const seedBefore = (await (await helper(emu, 'seed', undefined, 'GET')).json()) as any;
    const member = (s: any) => s.spaces.find((x: any) => x.spaceId === 'space_integrator').members.find((m: any) => m.email === 'carol@example.com');
    assert.equal(member(seedBefore).status, 'pending');
    const res = await decide(emu, html, 'agree');
    assert.equal(res.status, 302);
    const code = location(res).searchParams.get('code')!;
    const seedAfter = (await (await helper(emu, 'seed', undefined, 'GET')).json()) as any;
    assert.equal(member(seedAfter).status, 'active');
    const t = await exchange(emu, code, verifier);
    assert.equal(t.status, 200);
    assert.equal(t.body.space_id, 'space_integrator');
  });

  it('Deny leaves the member pending', async () => {
    await inviteCarol();
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge, { space_id: 'space_integrator', login_hint: 'carol@example.com' }));
    const { html } = await login(emu, requestId, 'carol@example.com', 'carol-password');
    const res = await decide(emu, html, 'deny');
    assert.equal(location(res).searchParams.get('error'), 'access_denied');
    const seed = (await (await helper(emu, 'seed', undefined, 'GET')).json()) as any;
    const m = seed.spaces.find((x: any) => x.spaceId === 'space_integrator').members.find((x: any) => x.email === 'carol@example.com');
    assert.equal(m.status, 'pending');
  });

  it('the user must be the hinted one', async () => {
    await inviteCarol();
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge, { space_id: 'space_integrator', login_hint: 'carol@example.com' }));
    const { res, html } = await login(emu, requestId, 'alice@example.com', 'alice-password');
    assert.equal(res.status, 401);
    assert.match(html, /Log in as that user/);
  });

  it('a user who is not a member of the Space cannot agree', async () => {
    const { requestId } = await openConsent(emu, defaultAuthParams(pkce().challenge, { space_id: 'space_integrator', login_hint: 'carol@example.com' }));
    const { res, html } = await login(emu, requestId, 'carol@example.com', 'carol-password');
    assert.equal(res.status, 403);
    assert.match(html, /id="not-invited"/);
    assert.doesNotMatch(html, />Agree</);
  });
});

describe('POST /oauth/token', () => {
  it('exchanges a code: token shape, no-store, no CORS', async () => {
    const { verifier, challenge } = pkce();
    const cb = await consent(emu, { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme', challenge });
    const t = await exchange(emu, cb.searchParams.get('code')!, verifier);
    assert.equal(t.status, 200);
    assert.equal(t.body.token_type, 'Bearer');
    assert.equal(t.body.expires_in, 3600);
    assert.equal(t.body.scope, 'envelope:create envelope:read');
    assert.equal(t.body.space_id, 'space_acme');
    assert.equal(typeof t.body.access_token, 'string');
    assert.equal(typeof t.body.refresh_token, 'string');
    assert.equal(t.res.headers.get('cache-control'), 'no-store');
    assert.match(t.res.headers.get('content-type')!, /^application\/json; charset=utf-8/);
  });

  it('has no CORS headers, even for a loopback origin, and no preflight', async () => {
    const t = await token(
      emu,
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      { origin: 'http://localhost:6006' },
    );
    assert.equal(t.res.headers.get('access-control-allow-origin'), null);
    const pre = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6006', 'access-control-request-method': 'POST' },
    });
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    const rev = await fetch(`${emu.baseUrl}/openapi/v1/oauth/revoke`, { method: 'POST', headers: { origin: 'http://localhost:6006' } });
    assert.equal(rev.headers.get('access-control-allow-origin'), null);
  });

  it('accepts HTTP Basic client authentication', async () => {
    const { verifier, challenge } = pkce();
    const cb = await consent(emu, { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme', challenge });
    const t = await token(
      emu,
      { grant_type: 'authorization_code', code: cb.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT },
      { authorization: 'Basic ' + Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64') },
    );
    assert.equal(t.status, 200);
  });

  async function freshCode(): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const cb = await consent(emu, { email: 'alice@example.com', password: 'alice-password', spaceId: 'space_acme', challenge });
    return { code: cb.searchParams.get('code')!, verifier };
  }

  it('wrong client secret is 401 invalid_client', async () => {
    const { code, verifier } = await freshCode();
    const t = await exchange(emu, code, verifier, { client_secret: 'wrong' });
    assert.equal(t.status, 401);
    assert.equal(t.body.error, 'invalid_client');
    const basic = await token(
      emu,
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
      { authorization: 'Basic ' + Buffer.from(`${CLIENT_ID}:nope`).toString('base64') },
    );
    assert.equal(basic.status, 401);
    const missing = await token(emu, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: CLIENT_ID });
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error, 'invalid_client');
  });

  it('wrong code_verifier is invalid_grant', async () => {
    const { code } = await freshCode();
    const t = await exchange(emu, code, pkce().verifier);
    assert.equal(t.status, 400);
    assert.equal(t.body.error, 'invalid_grant');
  });

  it('malformed code_verifier is invalid_request', async () => {
    const { code } = await freshCode();
    const t = await exchange(emu, code, 'short');
    assert.equal(t.status, 400);
    assert.equal(t.body.error, 'invalid_request');
  });

  it('mismatched redirect_uri is invalid_grant', async () => {
    const { code, verifier } = await freshCode();
    const t = await exchange(emu, code, verifier, { redirect_uri: 'http://127.0.0.1:8000/test/browser/callback.html' });
    assert.equal(t.status, 400);
    assert.equal(t.body.error, 'invalid_grant');
  });

  it('a reused code is refused and the tokens issued from it are revoked', async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange(emu, code, verifier);
    assert.equal(first.status, 200);
    const at = first.body.access_token as string;
    assert.equal((await api(emu, '/embedded/views', at, { OperateType: 'signature_status' })).status, 200);
    const second = await exchange(emu, code, verifier);
    assert.equal(second.status, 400);
    assert.equal(second.body.error, 'invalid_grant');
    const after = await api(emu, '/embedded/views', at, { OperateType: 'signature_status' });
    assert.equal(after.status, 401);
    assert.equal(after.body.Response.Error!.Code, 'AuthFailure.TokenInvalid');
    const refreshed = await token(emu, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  it('an expired code is invalid_grant (5 minutes)', async () => {
    const { code, verifier } = await freshCode();
    emu.advanceClock(301);
    const t = await exchange(emu, code, verifier);
    assert.equal(t.status, 400);
    assert.equal(t.body.error, 'invalid_grant');
  });

  it('a code of another client is invalid_grant', async () => {
    const { code, verifier } = await freshCode();
    const t = await exchange(emu, code, verifier, { client_id: 'http-app', client_secret: 'http-secret' });
    assert.equal(t.body.error, 'invalid_grant');
  });

  it('unsupported grant type, missing fields, wrong content type', async () => {
    const bad = await token(emu, { grant_type: 'password', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'unsupported_grant_type');
    const missing = await token(emu, { grant_type: 'authorization_code', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    assert.equal(missing.body.error, 'invalid_request');
    const json = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token' }),
    });
    assert.equal(json.status, 400);
    assert.equal(((await json.json()) as { error: string }).error, 'invalid_request');
  });
});

describe('refresh and revoke', () => {
  const refresh = (rt: string) => token(emu, { grant_type: 'refresh_token', refresh_token: rt, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });

  it('rotates the refresh token; reuse of a rotated one revokes the whole grant', async () => {
    const t1 = await alice(emu);
    const r1 = await refresh(t1.refresh_token!);
    assert.equal(r1.status, 200);
    assert.notEqual(r1.body.refresh_token, t1.refresh_token);
    assert.notEqual(r1.body.access_token, t1.access_token);
    assert.equal(r1.body.space_id, 'space_acme');
    const r2 = await refresh(r1.body.refresh_token as string);
    assert.equal(r2.status, 200);
    const newest = r2.body.access_token as string;
    assert.equal((await api(emu, '/embedded/views', newest, { OperateType: 'signature_status' })).status, 200);
    // replay the first (rotated) refresh token
    const replay = await refresh(t1.refresh_token!);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    const dead = await api(emu, '/embedded/views', newest, { OperateType: 'signature_status' });
    assert.equal(dead.status, 401);
    assert.equal(dead.body.Response.Error!.Code, 'AuthFailure.TokenInvalid');
    assert.equal((await refresh(r2.body.refresh_token as string)).body.error, 'invalid_grant');
  });

  it('with refreshReuseGraceSeconds, a just-rotated token is accepted once more within the grace, then reuse revokes the grant', async () => {
    const graceful = await start({ limits: { refreshReuseGraceSeconds: 10 } });
    try {
      const again = (rt: string) => token(graceful, { grant_type: 'refresh_token', refresh_token: rt, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
      const t1 = await alice(graceful);
      const lost = await again(t1.refresh_token!);
      assert.equal(lost.status, 200);
      // the answer was lost on the way: the client tries the same token again, within the grace
      const retried = await again(t1.refresh_token!);
      assert.equal(retried.status, 200);
      assert.notEqual(retried.body.refresh_token, lost.body.refresh_token);
      assert.equal((await api(graceful, '/embedded/views', retried.body.access_token as string, { OperateType: 'signature_status' })).status, 200);
      // past the grace, the same reuse ends the grant
      graceful.advanceClock(11);
      const late = await again(t1.refresh_token!);
      assert.equal(late.body.error, 'invalid_grant');
      assert.equal((await again(retried.body.refresh_token as string)).body.error, 'invalid_grant');
    } finally {
      await graceful.close();
    }
  });

  it('refresh may narrow the scope but not widen it', async () => {
    const t1 = await alice(emu);
    const narrow = await token(emu, {
      grant_type: 'refresh_token',
      refresh_token: t1.refresh_token!,
      scope: 'envelope:read',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    assert.equal(narrow.body.scope, 'envelope:read');
    const wide = await token(emu, {
      grant_type: 'refresh_token',
      refresh_token: narrow.body.refresh_token as string,
      scope: 'admin',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    assert.equal(wide.body.error, 'invalid_scope');
  });

  it('a refresh token of another client is invalid_grant', async () => {
    const t1 = await alice(emu);
    const other = await token(emu, { grant_type: 'refresh_token', refresh_token: t1.refresh_token!, client_id: 'http-app', client_secret: 'http-secret' });
    assert.equal(other.body.error, 'invalid_grant');
  });

  it('access tokens expire after expires_in seconds of the emulator clock', async () => {
    const t1 = await alice(emu);
    emu.advanceClock(3599);
    assert.equal((await api(emu, '/embedded/views', t1.access_token, { OperateType: 'signature_status' })).status, 200);
    emu.advanceClock(2);
    const r = await api(emu, '/embedded/views', t1.access_token, { OperateType: 'signature_status' });
    assert.equal(r.status, 401);
    assert.equal(r.body.Response.Error!.Code, 'AuthFailure.TokenExpired');
    assert.equal((await refresh(t1.refresh_token!)).status, 200);
  });

  it('refresh tokens expire after 30 days', async () => {
    const t1 = await alice(emu);
    emu.advanceClock(30 * 24 * 3600 + 1);
    assert.equal((await refresh(t1.refresh_token!)).body.error, 'invalid_grant');
  });

  const revoke = (fields: Record<string, string>) =>
    fetch(`${emu.baseUrl}/openapi/v1/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });

  it('revoking the refresh token revokes the grant', async () => {
    const t1 = await alice(emu);
    const res = await revoke({ token: t1.refresh_token!, token_type_hint: 'refresh_token', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    assert.equal(res.status, 200);
    assert.equal((await api(emu, '/embedded/views', t1.access_token, { OperateType: 'signature_status' })).status, 401);
    assert.equal((await refresh(t1.refresh_token!)).body.error, 'invalid_grant');
  });

  it('revoking an access token ends that token only', async () => {
    const t1 = await alice(emu);
    assert.equal((await revoke({ token: t1.access_token, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })).status, 200);
    assert.equal((await api(emu, '/embedded/views', t1.access_token, { OperateType: 'signature_status' })).status, 401);
    assert.equal((await refresh(t1.refresh_token!)).status, 200);
  });

  it('unknown tokens answer 200; bad client 401; missing token 400', async () => {
    assert.equal((await revoke({ token: 'nope', client_id: CLIENT_ID, client_secret: CLIENT_SECRET })).status, 200);
    const bad = await revoke({ token: 'nope', client_id: CLIENT_ID, client_secret: 'wrong' });
    assert.equal(bad.status, 401);
    assert.equal(((await bad.json()) as { error: string }).error, 'invalid_client');
    assert.equal((await revoke({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET })).status, 400);
  });

  it("a client cannot revoke another client's tokens", async () => {
    const t1 = await alice(emu);
    assert.equal((await revoke({ token: t1.refresh_token!, client_id: 'http-app', client_secret: 'http-secret' })).status, 200);
    assert.equal((await refresh(t1.refresh_token!)).status, 200);
  });

  it('counts token requests per grant type', async () => {
    const t1 = await alice(emu);
    await refresh(t1.refresh_token!);
    const counts = (await (await helper(emu, 'requests', undefined, 'GET')).json()) as Record<string, number>;
    assert.equal(counts['POST /openapi/v1/oauth/token'], 2);
    assert.equal(counts['grant:authorization_code'], 1);
    assert.equal(counts['grant:refresh_token'], 1);
    assert.ok((await outbox(emu)).length === 0);
  });
});
