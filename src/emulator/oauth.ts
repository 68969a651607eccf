import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { choicePage, consentErrorPage, loginPage, notInvitedPage, redirectErrorPage } from './consent-pages.js';
import { type Ctx, type EmuEnv, htmlResponse, jsonResponse, mediaType, oauthError, ServiceError } from './http.js';
import type { Runtime } from './runtime.js';
import { type AccessTokenRec, type AuthRequest, type GrantRec, secureToken, shortId } from './state.js';
import type { SeedApp } from './types.js';

const API = '/openapi/v1';
const CONSENT_HEADERS = {
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

export type RedirectKind = 'https' | 'custom' | 'loopback-http' | 'refused';

/** redirect_uri rule: custom scheme or https; plain http only for loopback hosts (development). */
export function classifyRedirectUri(uri: string): RedirectKind {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'refused';
  }
  if (u.hash) return 'refused';
  if (u.protocol === 'https:') return 'https';
  if (u.protocol === 'http:') return ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) ? 'loopback-http' : 'refused';
  // other special schemes are not app callbacks
  if (['javascript:', 'data:', 'file:', 'ftp:', 'ws:', 'wss:', 'blob:', 'about:'].includes(u.protocol)) return 'refused';
  return 'custom';
}

function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export interface BearerAuth {
  token: string;
  grant: GrantRec;
  access: AccessTokenRec;
}

/** Resolves the Bearer token of a business call or throws the matching AuthFailure. */
export function authenticate(rt: Runtime, c: Ctx): BearerAuth {
  const header = c.req.header('authorization') ?? '';
  const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  if (!m) throw new ServiceError(401, 'AuthFailure.TokenMissing', 'Authorization: Bearer <access token> is required.', { 'WWW-Authenticate': 'Bearer realm="esign"' });
  const token = m[1]!;
  const access = rt.store.accessTokens.get(token);
  const grant = access ? rt.store.grants.get(access.grantId) : undefined;
  const invalid = { 'WWW-Authenticate': 'Bearer realm="esign", error="invalid_token"' };
  if (!access || !grant || grant.revoked) throw new ServiceError(401, 'AuthFailure.TokenInvalid', 'The access token is unknown or revoked.', invalid);
  if (access.expiresAt <= rt.store.nowMs()) throw new ServiceError(401, 'AuthFailure.TokenExpired', 'The access token has expired.', invalid);
  return { token, grant, access };
}

/** Per-token sliding one-minute window (assumption: 60/min, a setting). */
export function rateLimit(rt: Runtime, token: string): void {
  const now = rt.store.nowMs();
  const hits = (rt.store.rate.get(token) ?? []).filter((t) => t > now - 60_000);
  if (hits.length >= rt.limits.requestsPerMinute) {
    const retry = Math.max(1, Math.ceil((hits[0]! + 60_000 - now) / 1000));
    rt.store.rate.set(token, hits);
    throw new ServiceError(429, 'RequestLimitExceeded', `More than ${rt.limits.requestsPerMinute} requests per minute for this token.`, {
      'Retry-After': String(retry),
    });
  }
  hits.push(now);
  rt.store.rate.set(token, hits);
}

export function mountOAuth(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  const htmlError = (title: string, message: string, status = 400) => htmlResponse(consentErrorPage(title, message), status, CONSENT_HEADERS);

  app.get(`${API}/oauth/auth`, (c) => {
    const q = new URL(c.req.url).searchParams;
    const one = (k: string): string | undefined | null => {
      const all = q.getAll(k);
      return all.length > 1 ? null : all[0];
    };
    const clientId = one('client_id');
    if (!clientId) return htmlError('Unknown app', 'The authorization request has no (or a repeated) client_id.');
    const oauthApp = store.apps.get(clientId);
    if (!oauthApp) return htmlError('Unknown app', 'No app is registered with this client_id.');
    const redirectUri = one('redirect_uri');
    const refused = (message: string) =>
      htmlResponse(redirectErrorPage({ message, redirectUri: redirectUri ?? '', registered: oauthApp.redirectUris, devRedirects: rt.devRedirects }), 400, CONSENT_HEADERS);
    if (!redirectUri) return refused('The authorization request has no (or a repeated) redirect_uri.');
    const kind = classifyRedirectUri(redirectUri);
    const devLoopback = rt.devRedirects && kind === 'loopback-http';
    if (!oauthApp.redirectUris.includes(redirectUri) && !devLoopback) return refused('The redirect_uri does not exactly match an address registered for this app.');
    if (kind === 'refused') return refused('The redirect_uri must be https or a custom scheme; plain http is accepted only for loopback hosts.');

    // from here on the redirect_uri is safe: errors go back to it (RFC 6749 4.1.2.1)
    const state = one('state') ?? undefined;
    const back = (error: string, description: string) => redirect(withParams(redirectUri, { error, error_description: description, state }));
    for (const k of ['response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'space_id', 'login_hint'])
      if (one(k) === null) return back('invalid_request', `Parameter ${k} is repeated.`);
    const responseType = one('response_type');
    if (!responseType) return back('invalid_request', 'response_type is required.');
    if (responseType !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported.');
    const challenge = one('code_challenge');
    if (!challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(challenge))
      return back('invalid_request', 'code_challenge must be 43 to 128 base64url characters.');
    if (one('code_challenge_method') !== 'S256') return back('invalid_request', 'code_challenge_method must be S256.');
    if (!state) return back('invalid_request', 'state is required.');
    const scope = one('scope');
    if (!scope || !scope.trim()) return back('invalid_request', 'scope is required.');
    const scopes = [...new Set(scope.split(' ').filter(Boolean))];
    if (scopes.some((s) => !oauthApp.scopes.includes(s))) return back('invalid_scope', 'A requested scope is not allowed for this app.');
    const spaceId = one('space_id') || undefined;
    const loginHint = one('login_hint') || undefined;
    if (Boolean(spaceId) !== Boolean(loginHint))
      return back('invalid_request', 'Designated Space Mode needs both space_id and login_hint.');
    if (spaceId && !store.spaces.has(spaceId)) return back('invalid_request', 'Unknown space_id.');

    store.sweep();
    const req: AuthRequest = {
      id: secureToken(),
      clientId,
      redirectUri,
      codeChallenge: challenge,
      state,
      scope: scopes.join(' '),
      spaceId,
      loginHint,
      loopbackHttp: kind === 'loopback-http',
      expiresAt: store.nowMs() + rt.limits.authRequestTtlSeconds * 1000,
      login: undefined,
    };
    store.authRequests.set(req.id, req);
    return redirect(`${rt.publicUrl}/consent?request=${encodeURIComponent(req.id)}`);
  });

  const loadRequest = (id: unknown): { req: AuthRequest; app: SeedApp } | undefined => {
    if (typeof id !== 'string') return undefined;
    const req = store.authRequests.get(id);
    if (!req) return undefined;
    if (req.expiresAt <= store.nowMs()) {
      store.authRequests.delete(id);
      return undefined;
    }
    const oauthApp = store.apps.get(req.clientId);
    return oauthApp ? { req, app: oauthApp } : undefined;
  };
  const expired = () => htmlError('Sign-in expired', 'This authorization request is unknown, already finished or expired.');
  const formOf = async (c: Ctx): Promise<Record<string, string>> => {
    const body = await c.req.parseBody().catch(() => ({}));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
    return out;
  };

  app.get('/consent', (c) => {
    const found = loadRequest(c.req.query('request'));
    if (!found) return expired();
    return htmlResponse(loginPage(found), 200, CONSENT_HEADERS);
  });

  const showChoice = (found: { req: AuthRequest; app: SeedApp }, userId: string, error?: string, status = 200) => {
    const user = store.users.get(userId)!;
    const { req } = found;
    if (req.spaceId) {
      const space = store.spaces.get(req.spaceId)!;
      const member = space.members.get(userId);
      return htmlResponse(
        choicePage({ ...found, user, spaces: [], designated: { space, pending: member?.status === 'pending' }, ...(error ? { error } : {}) }),
        status,
        CONSENT_HEADERS,
      );
    }
    return htmlResponse(choicePage({ ...found, user, spaces: store.activeSpacesOf(userId), ...(error ? { error } : {}) }), status, CONSENT_HEADERS);
  };

  app.post('/consent/login', async (c) => {
    const form = await formOf(c);
    const found = loadRequest(form.request);
    if (!found) return expired();
    const email = (form.email ?? '').trim();
    const user = store.userByEmail(email);
    const again = (error: string) => htmlResponse(loginPage({ ...found, error, email }), 401, CONSENT_HEADERS);
    if (!user || user.password === undefined) {
      if (user) return again('This account has no password yet. Open the invitation email and set one first.');
      return again('Wrong email or password.');
    }
    if (!safeEqual(user.password, form.password ?? '')) return again('Wrong email or password.');
    const { req } = found;
    if (req.loginHint && req.loginHint.toLowerCase() !== user.email.toLowerCase())
      return again(`This authorization is for ${req.loginHint}. Log in as that user.`);
    if (req.spaceId && !store.spaces.get(req.spaceId)?.members.has(user.userId))
      return htmlResponse(notInvitedPage({ ...found, user }), 403, CONSENT_HEADERS);
    req.login = { userId: user.userId, ticket: secureToken() };
    return showChoice(found, user.userId);
  });

  app.post('/consent/decision', async (c) => {
    const form = await formOf(c);
    const found = loadRequest(form.request);
    if (!found) return expired();
    const { req } = found;
    if (form.decision === 'deny') {
      store.authRequests.delete(req.id);
      return redirect(withParams(req.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: req.state }));
    }
    if (form.decision !== 'agree' || !req.login || !form.ticket || !safeEqual(req.login.ticket, form.ticket))
      return htmlResponse(loginPage({ ...found, error: 'Please log in first.' }), 401, CONSENT_HEADERS);
    const userId = req.login.userId;
    let spaceId: string;
    if (req.spaceId) {
      const member = store.spaces.get(req.spaceId)?.members.get(userId);
      if (!member) return htmlResponse(notInvitedPage({ ...found, user: store.users.get(userId)! }), 403, CONSENT_HEADERS);
      // Agree counts as accepting the invitation (spec section 3)
      member.status = 'active';
      spaceId = req.spaceId;
    } else {
      const chosen = form.space_id ?? '';
      if (!store.isActiveMember(chosen, userId)) return showChoice(found, userId, 'Choose one of your Spaces.', 400);
      spaceId = chosen;
    }
    store.authRequests.delete(req.id);
    const code = secureToken();
    store.codes.set(code, {
      clientId: req.clientId,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      userId,
      spaceId,
      scope: req.scope,
      expiresAt: store.nowMs() + rt.limits.codeTtlSeconds * 1000,
      used: false,
      grantId: undefined,
    });
    rt.log(`consent: ${store.users.get(userId)?.email} authorized ${req.clientId} for ${spaceId}`);
    return redirect(withParams(req.redirectUri, { code, state: req.state }));
  });

  /** Client authentication: form client_id + client_secret, or HTTP Basic (RFC 6749 2.3.1), not both. */
  const clientAuth = (c: Ctx, form: URLSearchParams): SeedApp | Response => {
    const basic = /^Basic\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    let id: string | undefined;
    let secret: string | undefined;
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i < 0) return oauthError(401, 'invalid_client', 'Malformed HTTP Basic credentials.', { 'WWW-Authenticate': 'Basic realm="esign"' });
      try {
        id = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' '));
        secret = decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' '));
      } catch {
        return oauthError(401, 'invalid_client', 'Malformed HTTP Basic credentials.', { 'WWW-Authenticate': 'Basic realm="esign"' });
      }
      if (form.has('client_secret')) return oauthError(400, 'invalid_request', 'Use one client authentication method, not both.');
      const formId = form.get('client_id');
      if (formId && formId !== id) return oauthError(400, 'invalid_request', 'client_id differs from the HTTP Basic user.');
    } else {
      id = form.get('client_id') ?? undefined;
      secret = form.get('client_secret') ?? undefined;
    }
    if (!id || secret === undefined) return oauthError(401, 'invalid_client', 'Client authentication is required.');
    const oauthApp = store.apps.get(id);
    if (!oauthApp || !safeEqual(oauthApp.clientSecret, secret))
      return oauthError(401, 'invalid_client', 'Unknown client or wrong client secret.', basic ? { 'WWW-Authenticate': 'Basic realm="esign"' } : {});
    return oauthApp;
  };

  const readForm = async (c: Ctx): Promise<URLSearchParams | Response> => {
    if (mediaType(c) !== 'application/x-www-form-urlencoded')
      return oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    const form = new URLSearchParams(await c.req.text());
    for (const k of new Set(form.keys())) if (form.getAll(k).length > 1) return oauthError(400, 'invalid_request', `Parameter ${k} is repeated.`);
    return form;
  };

  const displayNames = (grant: GrantRec): Record<string, string> => {
    const user = store.users.get(grant.userId);
    const space = store.spaces.get(grant.spaceId);
    return {
      ...(user ? { user_name: user.name, user_email: user.email } : {}),
      ...(space ? { space_name: space.name } : {}),
    };
  };

  const issue = (grant: GrantRec, scope: string): Response => {
    const now = store.nowMs();
    const access = secureToken('at_');
    const refresh = secureToken('rt_');
    store.accessTokens.set(access, { grantId: grant.id, scope, expiresAt: now + rt.limits.accessTokenTtlSeconds * 1000 });
    store.refreshTokens.set(refresh, { grantId: grant.id, expiresAt: now + rt.limits.refreshTokenTtlSeconds * 1000, rotated: false });
    grant.accessTokens.add(access);
    grant.refreshTokens.add(refresh);
    return jsonResponse(
      {
        access_token: access,
        token_type: 'Bearer',
        expires_in: rt.limits.accessTokenTtlSeconds,
        refresh_token: refresh,
        scope,
        space_id: grant.spaceId,
        // (assumption, docs/emulator.md) optional display names, so a client can say who is connected where
        ...displayNames(grant),
      },
      200,
      { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    );
  };

  app.post(`${API}/oauth/token`, async (c) => {
    store.sweep();
    const form = await readForm(c);
    if (form instanceof Response) return form;
    const client = clientAuth(c, form);
    if (client instanceof Response) return client;
    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      return oauthError(400, 'unsupported_grant_type', 'Supported: authorization_code, refresh_token.');
    store.count(`grant:${grantType}`);
    const now = store.nowMs();

    if (grantType === 'authorization_code') {
      const code = form.get('code');
      const redirectUri = form.get('redirect_uri');
      const verifier = form.get('code_verifier');
      if (!code || !redirectUri || !verifier) return oauthError(400, 'invalid_request', 'code, redirect_uri and code_verifier are required.');
      if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier))
        return oauthError(400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters.');
      const rec = store.codes.get(code);
      if (!rec || rec.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'Unknown authorization code.');
      if (rec.used) {
        // replay: revoke what the code produced (RFC 6749 4.1.2)
        if (rec.grantId) store.revokeGrant(rec.grantId);
        return oauthError(400, 'invalid_grant', 'The authorization code was already used.');
      }
      if (rec.expiresAt <= now) {
        store.codes.delete(code);
        return oauthError(400, 'invalid_grant', 'The authorization code has expired.');
      }
      if (rec.redirectUri !== redirectUri) return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
      if (!safeEqual(s256(verifier), rec.codeChallenge)) return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge.');
      rec.used = true;
      const grant: GrantRec = {
        id: shortId('grant_'),
        clientId: rec.clientId,
        userId: rec.userId,
        spaceId: rec.spaceId,
        scope: rec.scope,
        revoked: false,
        accessTokens: new Set(),
        refreshTokens: new Set(),
      };
      store.grants.set(grant.id, grant);
      rec.grantId = grant.id;
      return issue(grant, rec.scope);
    }

    const refresh = form.get('refresh_token');
    if (!refresh) return oauthError(400, 'invalid_request', 'refresh_token is required.');
    const rec = store.refreshTokens.get(refresh);
    const grant = rec ? store.grants.get(rec.grantId) : undefined;
    if (!rec || !grant || grant.revoked || grant.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'Unknown or revoked refresh token.');
    const inGrace = rec.rotated && rec.rotatedAt !== undefined && now - rec.rotatedAt <= rt.limits.refreshReuseGraceSeconds * 1000;
    if (rec.rotated && !inGrace) {
      // a rotated token came back: someone holds a copy, end the whole grant
      store.revokeGrant(grant.id);
      rt.log(`token: rotated refresh token reused, grant ${grant.id} revoked`);
      return oauthError(400, 'invalid_grant', 'The refresh token was already used; the grant is revoked.');
    }
    if (rec.expiresAt <= now) return oauthError(400, 'invalid_grant', 'The refresh token has expired.');
    let scope = grant.scope;
    const asked = form.get('scope');
    if (asked) {
      const wanted = [...new Set(asked.split(' ').filter(Boolean))];
      const granted = grant.scope.split(' ');
      if (wanted.some((s) => !granted.includes(s))) return oauthError(400, 'invalid_scope', 'The scope exceeds the original grant.');
      scope = wanted.join(' ');
    }
    if (!rec.rotated) {
      rec.rotated = true;
      rec.rotatedAt = now;
    }
    return issue(grant, scope);
  });

  app.post(`${API}/oauth/revoke`, async (c) => {
    const form = await readForm(c);
    if (form instanceof Response) return form;
    const client = clientAuth(c, form);
    if (client instanceof Response) return client;
    const token = form.get('token');
    if (!token) return oauthError(400, 'invalid_request', 'token is required.');
    const refresh = store.refreshTokens.get(token);
    const access = store.accessTokens.get(token);
    const grantId = refresh?.grantId ?? access?.grantId;
    const grant = grantId ? store.grants.get(grantId) : undefined;
    // RFC 7009 2.2: unknown tokens, or tokens of another client, answer 200 and change nothing
    if (grant && grant.clientId === client.clientId) {
      if (refresh) store.revokeGrant(grant.id);
      else {
        store.accessTokens.delete(token);
        grant.accessTokens.delete(token);
      }
    }
    return new Response(null, { status: 200, headers: { 'Cache-Control': 'no-store' } });
  });
}
