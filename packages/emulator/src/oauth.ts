/**
 * The emulator's token endpoint (`POST /openapi/v1/oauth/token`: authorization_code with PKCE, refresh_token with
 * rotation and reuse detection) and revocation endpoint (RFC 7009), with client authentication (form or HTTP Basic).
 * The authorization endpoint and consent pages are in authorize.ts, the business API's Bearer check in bearer.ts.
 */
import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import { mountAuthorization } from './authorize.js';
import { type Ctx, type EmuEnv, jsonResponse, mediaType, oauthError } from './http.js';
import type { Runtime } from './runtime.js';
import { type GrantRec, safeEqual, secureToken, shortId } from './state.js';
import type { SeedApp } from './types.js';

const API = '/openapi/v1';

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** The whole OAuth side: the authorization endpoint and consent pages (authorize.ts), the token and revocation endpoints. */
export function mountOAuth(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  mountAuthorization(app, rt);

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
      if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return oauthError(400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters.');
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
