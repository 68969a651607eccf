/**
 * The emulator's authorization endpoint and consent pages: `GET /openapi/v1/oauth/auth` checks the request
 * (client, redirect URI, PKCE, Space) and shows the login page; `/consent`, `/consent/login` and
 * `/consent/decision` sign the user in, let them choose a Space and agree or deny, and send the browser back
 * with a code (or an error). The code is redeemed at the token endpoint (oauth.ts).
 */
import type { Hono } from 'hono';
import { choicePage, consentErrorPage, loginPage, notInvitedPage, redirectErrorPage } from './consent-pages.js';
import { type Ctx, type EmuEnv, htmlResponse } from './http.js';
import type { Runtime } from './runtime.js';
import { type AuthRequest, safeEqual, secureToken } from './state.js';
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

export function mountAuthorization(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  // a sign-in page that moves its window to a browsing context group of its own, as many identity providers' do
  const consentHeaders = (): Record<string, string> =>
    store.consentOpenerPolicy ? { ...CONSENT_HEADERS, 'Cross-Origin-Opener-Policy': store.consentOpenerPolicy } : CONSENT_HEADERS;
  const htmlError = (title: string, message: string, status = 400) => htmlResponse(consentErrorPage(title, message), status, consentHeaders());

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
      htmlResponse(
        redirectErrorPage({ message, redirectUri: redirectUri ?? '', registered: oauthApp.redirectUris, devRedirects: rt.devRedirects }),
        400,
        CONSENT_HEADERS,
      );
    if (!redirectUri) return refused('The authorization request has no (or a repeated) redirect_uri.');
    const kind = classifyRedirectUri(redirectUri);
    const devLoopback = rt.devRedirects && kind === 'loopback-http';
    if (!oauthApp.redirectUris.includes(redirectUri) && !devLoopback)
      return refused('The redirect_uri does not exactly match an address registered for this app.');
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
    if (!challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(challenge)) return back('invalid_request', 'code_challenge must be 43 to 128 base64url characters.');
    if (one('code_challenge_method') !== 'S256') return back('invalid_request', 'code_challenge_method must be S256.');
    if (!state) return back('invalid_request', 'state is required.');
    const scope = one('scope');
    if (!scope || !scope.trim()) return back('invalid_request', 'scope is required.');
    const scopes = [...new Set(scope.split(' ').filter(Boolean))];
    if (scopes.some((s) => !oauthApp.scopes.includes(s))) return back('invalid_scope', 'A requested scope is not allowed for this app.');
    const spaceId = one('space_id') || undefined;
    const loginHint = one('login_hint') || undefined;
    if (Boolean(spaceId) !== Boolean(loginHint)) return back('invalid_request', 'Designated Space Mode needs both space_id and login_hint.');
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
    return htmlResponse(loginPage(found), 200, consentHeaders());
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
    return htmlResponse(choicePage({ ...found, user, spaces: store.activeSpacesOf(userId), ...(error ? { error } : {}) }), status, consentHeaders());
  };

  app.post('/consent/login', async (c) => {
    const form = await formOf(c);
    const found = loadRequest(form.request);
    if (!found) return expired();
    const email = (form.email ?? '').trim();
    const user = store.userByEmail(email);
    const again = (error: string) => htmlResponse(loginPage({ ...found, error, email }), 401, consentHeaders());
    if (!user || user.password === undefined) {
      if (user) return again('This account has no password yet. Open the invitation email and set one first.');
      return again('Wrong email or password.');
    }
    if (!safeEqual(user.password, form.password ?? '')) return again('Wrong email or password.');
    const { req } = found;
    if (req.loginHint && req.loginHint.toLowerCase() !== user.email.toLowerCase())
      return again(`This authorization is for ${req.loginHint}. Log in as that user.`);
    if (req.spaceId && !store.spaces.get(req.spaceId)?.members.has(user.userId)) return htmlResponse(notInvitedPage({ ...found, user }), 403, consentHeaders());
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
      return htmlResponse(loginPage({ ...found, error: 'Please log in first.' }), 401, consentHeaders());
    const userId = req.login.userId;
    let spaceId: string;
    if (req.spaceId) {
      const member = store.spaces.get(req.spaceId)?.members.get(userId);
      if (!member) return htmlResponse(notInvitedPage({ ...found, user: store.users.get(userId)! }), 403, consentHeaders());
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
}
