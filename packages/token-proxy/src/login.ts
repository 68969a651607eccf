/**
 * The default mode's sign-in, run by the proxy (RFC 10017 token-mediating backend): the page never holds a code, a
 * verifier or a refresh token.
 *
 *   GET {basePath}/login     the popup (or the tab) comes here from the page. The proxy makes the PKCE verifier
 *                            (64 random bytes, S256) and `state`, seals them in a short-lived HttpOnly pre-login
 *                            cookie (SameSite=Lax, one per sign-in), and sends the browser to the authorization page
 *                            with its own callback as `redirect_uri`.
 *   GET {basePath}/callback  the authorization server sends the browser back here. The code is redeemed only when
 *                            its `state` matches a pre-login cookie that came with this very request, once; the
 *                            session cookie is set, and the browser goes on to a clean URL (no code in any URL a
 *                            page can read; Referrer-Policy: no-referrer). A code with an unknown state is never
 *                            redeemed and never shown.
 *   GET {basePath}/login/done  popup only: tells the opener the outcome (no secret in it), or, when the consent page
 *                            severed `window.opener`, same-origin pages through a BroadcastChannel; then closes.
 *   POST {basePath}/login/status  a popup's outcome for its page, in this browser only (login-status.ts).
 *
 * The page then asks `{basePath}/token` for an access token, as after a reload. Runtime-free: no `node:` import.
 */
import { isLoopbackHost } from '@esign-elements/shared';
import { callerKey, guard, randomId, rateLimited, timed, type C, type Ctx } from './context.js';
import { CookieConflict, type PendingLogin, type Session } from './session-cookie.js';
import type { AuthorizationInfo } from './upstream.js';
import type { Answer } from './upstream-answer.js';
import { escapeHtml, PAGE_HEADERS, proxyPage } from './pages.js';
import { keepOutcome } from './login-status.js';
import { checkTicket, endPrevious, keepHandoff, markStarted } from './handoff.js';

/** The outcome's error codes the page knows; another code from the service passes through as it is (RFC 6749 characters), one that is not one becomes `oauth_error`. */
const OUTCOME_ERRORS = new Set([
  'access_denied',
  'state_mismatch',
  'login_expired',
  'cookie_blocked',
  'token_exchange_failed',
  'invalid_issuer',
  'space_mismatch',
  'temporarily_unavailable',
  'rate_limited',
  'invalid_request',
  'oauth_error',
  'framing_not_allowed',
]);

/** RFC 6749 scope: scope-tokens of %x21 / %x23-5B / %x5D-7E, one space apart. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
/** An OAuth error code as the service may send it back (RFC 6749 error charset), short. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
const ATTEMPT = /^[A-Za-z0-9_-]{16,128}$/;
/** Pre-login cookies one browser may carry at once (sign-ins in several tabs); past that the older ones are dropped. */
const MAX_PENDING_LOGINS = 5;
const LOGIN_FIELDS = ['session', 'origin', 'display', 'return', 'attempt', 'scope', 'space_id', 'login_hint', 'client_id', 'handoff'] as const;
const CALLBACK_FIELDS = ['state', 'code', 'error', 'iss'] as const;

// --- GET /login ----------------------------------------------------------------------------------------------

export async function handleLogin(ctx: Ctx, c: C): Promise<Response> {
  const { config } = ctx;
  c.get('st').type = 'login';
  c.get('st').mode = 'mediated';
  if (config.callbackUrl === undefined) return page(c, 400, 'This token proxy runs no sign-in (its token-mediating mode is off: no cookie keys).');
  const query = single(new URL(c.req.url).searchParams, LOGIN_FIELDS);
  if (!query) return page(c, 400, 'This sign-in link is malformed (a repeated parameter). Close this window and try again.');
  const origin = query.get('origin') ?? '';
  if (!(config.allowedOrigins.has(origin) || origin === config.publicOrigin)) return refused(ctx, c, origin, query.get('attempt') ?? '');
  const attempt = query.get('attempt') ?? '';
  const display = query.get('display') === 'page' ? 'page' : 'popup';
  let back: string | undefined;
  if (display === 'page') {
    back = returnUrl(query.get('return'), origin);
    if (!back) return page(c, 400, 'This sign-in link names no page of the allowed origin to come back to.');
  }
  if (!ATTEMPT.test(attempt)) return page(c, 400, 'This sign-in link is malformed (attempt). Close this window and try again.');
  // from here on the page is known: every failure goes back to it as an outcome
  const login: PendingLogin = { st: '', cv: '', sl: '', o: origin, d: display, a: attempt, exp: 0, ...(back ? { r: back } : {}) };
  const fail = (error: string): Promise<Response> => outcome(ctx, c, login, error);

  const slot = query.get('session') ?? '';
  const spaceId = query.get('space_id');
  const hint = query.get('login_hint');
  const scope = query.get('scope');
  if (
    (query.has('client_id') && query.get('client_id') !== config.clientId) ||
    slot === '' ||
    slot.length > 200 ||
    (spaceId !== undefined ? slot !== `space:${spaceId}` || !/^[\x21-\x7e]{1,128}$/.test(spaceId) : slot !== 'open') ||
    (hint !== undefined && (hint.length > 320 || /[\x00-\x1f\x7f]/.test(hint))) ||
    (scope !== undefined && (scope.length > 1000 || !SCOPE.test(scope)))
  ) {
    return fail('invalid_request');
  }
  // a page on another site would never get the session cookie back: stop before the consent page, so no grant is left unused
  if (c.req.header('sec-fetch-site') === 'cross-site') return fail('cookie_blocked');
  // a framed page's sign-in: its result goes to the page's handoff (handoff.ts), not into this window's cookies
  const ticket = query.get('handoff');
  if (ticket !== undefined) {
    const checked = await checkTicket(ctx, c, ticket, attempt, display);
    if ('error' in checked) return fail(checked.error);
    login.h = checked.h;
    await markStarted(ctx, checked.h);
  }
  if (await rateLimited(ctx, callerKey(ctx, c, `attempt:${attempt}`))) return fail('rate_limited');
  const server = await authorization(ctx);
  if ('status' in server) return fail('temporarily_unavailable');

  login.st = await ctx.states.issue();
  login.cv = randomId(64);
  login.sl = slot;
  if (spaceId !== undefined) login.sp = spaceId;
  login.exp = Date.now() + config.loginTimeoutSeconds * 1000;
  // sign-ins started and abandoned leave their cookies for ten minutes: past a few, they go, so the Cookie header stays small
  const pending = ctx.cookies.loginNames(c);
  if (pending.length >= MAX_PENDING_LOGINS) for (const old of pending) ctx.cookies.clear(c, old, 'Lax');
  await ctx.cookies.writeLogin(c, await ctx.cookies.loginName(login.st), login, config.loginTimeoutSeconds);

  const url = new URL(server.authorizationEndpoint);
  const params: Record<string, string> = {
    client_id: config.clientId,
    response_type: 'code',
    redirect_uri: config.callbackUrl!,
    code_challenge: await ctx.sealer.sha256url(login.cv),
    code_challenge_method: 'S256',
    state: login.st,
  };
  if (scope !== undefined) params['scope'] = scope;
  if (spaceId !== undefined) params['space_id'] = spaceId;
  if (hint !== undefined) params['login_hint'] = hint;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return redirect(c, url.href);
}

// --- GET /callback -------------------------------------------------------------------------------------------

export async function handleCallback(ctx: Ctx, c: C): Promise<Response> {
  const { config } = ctx;
  c.get('st').type = 'callback';
  c.get('st').mode = 'mediated';
  if (config.callbackUrl === undefined) return page(c, 400, 'This token proxy runs no sign-in (its token-mediating mode is off: no cookie keys).');
  const query = single(new URL(c.req.url).searchParams, CALLBACK_FIELDS);
  const state = query?.get('state');
  // a state this proxy issued (its MAC), checked without the store: one it never issued is refused with nothing written
  const issued = state && state.length <= 200 ? await ctx.states.check(state) : undefined;
  // counted like /login: whatever the state, each request is a hit against the caller's address (unknown: against
  // the sign-in's own state when this proxy issued it, else the global guard)
  const own = issued?.ok ? `state:${(await ctx.sealer.sha256url(state!)).slice(0, 22)}` : undefined;
  const limited = await rateLimited(ctx, callerKey(ctx, c, own));
  const once = async (issuedAt: number): Promise<boolean> =>
    guard(
      config.store.claim(
        `ls:${(await ctx.sealer.sha256url(state!)).slice(0, 22)}`,
        '1',
        // as long as the state could be redeemed (its MAC holds the issue time), not longer
        Math.max(1_000, issuedAt + config.loginTimeoutSeconds * 1000 + 60_000 - Date.now()),
      ),
    );
  // never a page at this URL: the code in it would be readable by a script of the same origin (popup.location)
  const unknown = (error = 'state_mismatch'): Response =>
    redirect(c, `${config.publicOrigin}${config.basePath}/login/done#${new URLSearchParams({ outcome: 'error', error })}`);
  if (!query || !state || !issued || (!issued.ok && issued.reason === 'unknown')) return unknown(limited ? 'rate_limited' : 'state_mismatch');
  const name = await ctx.cookies.loginName(state);
  const login = await ctx.cookies.readLogin(c, name);
  // single use: the pre-login cookie goes whatever happens next
  ctx.cookies.clear(c, name, 'Lax');
  if (login instanceof CookieConflict || typeof login === 'string' || login.st !== state) {
    // this browser did not start that sign-in: the state is burnt (issued by this proxy, under the login route's
    // rate limit), so that whoever holds its pre-login cookie (the server that asked for it) cannot redeem the code
    // later either. An expired state can be redeemed by no one: nothing to burn
    if (issued.ok) await once(issued.issuedAt);
    return unknown(limited ? 'rate_limited' : 'state_mismatch');
  }
  if (!issued.ok || login.exp < Date.now()) return outcome(ctx, c, login, 'login_expired');
  // once across replicas too: a second request with the same cookie (a copy) redeems nothing
  if (!(await once(issued.issuedAt))) return outcome(ctx, c, login, 'state_mismatch');
  if (limited) return outcome(ctx, c, login, 'rate_limited');

  const server = await authorization(ctx);
  if ('status' in server) return outcome(ctx, c, login, 'temporarily_unavailable');
  // RFC 9207: the answer names the issuer this sign-in went to (always, when the server says it sends one)
  const iss = query.get('iss');
  if ((iss !== undefined && iss !== server.issuer) || (iss === undefined && server.issRequired)) return outcome(ctx, c, login, 'invalid_issuer');
  const error = query.get('error');
  if (error !== undefined) return outcome(ctx, c, login, ERROR_CODE.test(error) ? error : 'oauth_error');
  const code = query.get('code');
  if (code === undefined || code.length > 2000) return outcome(ctx, c, login, 'invalid_request');

  const result = await timed(c, ctx.upstream.exchangeCode(code, login.cv, config.callbackUrl!, c.req.raw.signal, iss));
  if (!result.ok)
    return outcome(
      ctx,
      c,
      login,
      result.answer.status === 429 ? 'rate_limited' : result.answer.status >= 500 ? 'temporarily_unavailable' : 'token_exchange_failed',
    );
  const tokens = result.tokens;
  const answered = typeof tokens.space_id === 'string' ? tokens.space_id : undefined;
  if (login.sp !== undefined && answered !== undefined && answered !== login.sp) {
    // not the Space the page asked for: end the grant just obtained rather than leave it unused
    if (typeof tokens.refresh_token === 'string') await timed(c, ctx.upstream.revoke(tokens.refresh_token, 'refresh_token')).catch(() => undefined);
    return outcome(ctx, c, login, 'space_mismatch');
  }
  const now = Math.floor(Date.now() / 1000);
  const session: Session = {
    v: 1,
    sid: randomId(16),
    cid: config.clientId,
    sp: answered ?? login.sp ?? '',
    sl: login.sl,
    iat: now,
    lat: now,
    la: login.a,
    ...tokenPart(tokens),
  };
  if (typeof tokens.refresh_token === 'string') {
    session.rt = tokens.refresh_token;
    session.rk = randomId(16);
  }
  if (login.h !== undefined) {
    // for the framed page that holds the handoff's secret; this window keeps no session of its own
    if (await keepHandoff(ctx, login.h, login.a, { s: session })) return outcome(ctx, c, login, undefined);
    if (session.rt) await timed(c, ctx.upstream.revoke(session.rt, 'refresh_token')).catch(() => undefined);
    return outcome(ctx, c, login, 'state_mismatch');
  }
  const sessionName = await ctx.cookies.sessionName(login.sl);
  await endPrevious(ctx, c, sessionName);
  await ctx.cookies.write(c, sessionName, session);
  return outcome(ctx, c, login, undefined);
}

/** The access-token part of a session and the extras, from a token answer. */
export function tokenPart(tokens: Record<string, unknown>): Pick<Session, 'at' | 'tt' | 'exp' | 'life' | 'sc' | 'x'> {
  const part: Pick<Session, 'at' | 'tt' | 'exp' | 'life' | 'sc' | 'x'> = { at: tokens.access_token as string, tt: tokens.token_type as string };
  if (typeof tokens.expires_in === 'number') {
    part.life = tokens.expires_in;
    part.exp = Date.now() + tokens.expires_in * 1000;
  }
  if (typeof tokens.scope === 'string') part.sc = tokens.scope;
  const extras: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(tokens)) {
    if (['access_token', 'refresh_token', 'token_type', 'expires_in', 'scope', 'space_id', 'id_token'].includes(key)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') extras[key] = value;
  }
  if (Object.keys(extras).length > 0) part.x = extras;
  return part;
}

// --- the outcome ---------------------------------------------------------------------------------------------

/**
 * Sends the browser on with the outcome and no secret: a popup to the done page (the outcome in its fragment, which
 * no server sees), a tab back to its page with `esign_login` (the page's attempt id), `esign_outcome`, `esign_error`.
 */
async function outcome(ctx: Ctx, c: C, login: PendingLogin, error: string | undefined): Promise<Response> {
  const code = error === undefined ? undefined : OUTCOME_ERRORS.has(error) || error === 'server_error' ? error : ERROR_CODE.test(error) ? error : 'oauth_error';
  const fields: Record<string, string> = { attempt: login.a, outcome: code ? 'error' : 'connected', ...(code ? { error: code } : {}) };
  if (code) c.get('st').error = code;
  if (login.d === 'page' && login.r) {
    const back = new URL(login.r);
    back.searchParams.set('esign_login', fields.attempt!);
    back.searchParams.set('esign_outcome', fields.outcome!);
    if (code) back.searchParams.set('esign_error', code);
    return redirect(c, back.href);
  }
  // kept for the page too, in case the sign-in page severed the popup from it (login-status.ts); a framed page's
  // error waits in its handoff (a success is there already)
  await keepOutcome(ctx, c, login, code);
  if (code && login.h !== undefined) await keepHandoff(ctx, login.h, login.a, { err: code });
  const done = `${ctx.config.publicOrigin}${ctx.config.basePath}/login/done#${new URLSearchParams({ ...fields, origin: login.o })}`;
  return redirect(c, done);
}

// --- GET /login/done -----------------------------------------------------------------------------------------

/**
 * The done page's only script: the outcome to the opener (its origin from the fragment; any opener when there is none,
 * as after a state this browser did not start: the outcome holds no secret), or, when there is no opener to tell, to
 * same-origin pages. One path, so that a page on the proxy's own origin hears one outcome.
 */
const DONE_SCRIPT = `(function(){var p=new URLSearchParams(location.hash.slice(1));history.replaceState(null,'',location.pathname);
var m={source:'esign-token-proxy',type:'login',attempt:p.get('attempt')||'',outcome:p.get('outcome')==='connected'?'connected':'error',error:p.get('error')||''};
var sent=false;try{if(window.opener){window.opener.postMessage(m,p.get('origin')||'*');sent=true}}catch(e){}
if(!sent)try{var b=new BroadcastChannel('esign-login');b.postMessage(m);b.close()}catch(e){}
document.getElementById('m').textContent=m.outcome==='connected'?'Connected. You can close this window.':'The sign-in did not complete. Close this window and try again.';
setTimeout(function(){window.close()},sent?50:1500)})();`;

export async function handleDone(c: C): Promise<Response> {
  c.get('st').type = 'login';
  const { html, headers } = await proxyPage('Connecting', '<p id="m">Finishing the sign-in. You can close this window.</p>', { script: DONE_SCRIPT });
  return c.html(html, 200, headers);
}

// --- helpers -------------------------------------------------------------------------------------------------

async function authorization(ctx: Ctx): Promise<AuthorizationInfo | Answer> {
  return ctx.upstream.authorization(ctx.config.baseIssuer);
}

/** Each allowed parameter at most once; undefined when one is repeated. */
function single(params: URLSearchParams, fields: readonly string[]): Map<string, string> | undefined {
  const values = new Map<string, string>();
  for (const field of fields) {
    const all = params.getAll(field);
    if (all.length > 1) return undefined;
    if (all.length === 1) values.set(field, all[0]!);
  }
  return values;
}

/** The page to go back to: an http(s) URL of the page's own origin (no credentials, no fragment), else undefined. */
function returnUrl(value: string | undefined, origin: string): string | undefined {
  if (!value || value.length > 2000) return undefined;
  try {
    const url = new URL(value);
    if (url.origin !== origin || url.username || url.password) return undefined;
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) return undefined;
    url.hash = '';
    for (const name of ['esign_login', 'esign_outcome', 'esign_error']) url.searchParams.delete(name);
    return url.href;
  } catch {
    return undefined;
  }
}

function redirect(c: C, location: string): Response {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.header(name, value);
  return c.redirect(location, 303);
}

/** A page a person reads when there is no page to send the outcome to (no script, nothing echoed). */
async function page(c: C, status: 400 | 403, text: string): Promise<Response> {
  const { html, headers } = await proxyPage('Sign-in', `<h1>The sign-in cannot start</h1><p class="error">${text}</p>`);
  return c.html(html, status, headers);
}

/** The refusal page's only script: the refusal to the opener, at the origin the page gave (the refusal holds no secret). */
const REFUSED_SCRIPT = `(function(){var d=document.body.dataset;try{if(window.opener&&d.origin)window.opener.postMessage({source:'esign-token-proxy',type:'login',attempt:d.attempt||'',outcome:'error',error:d.error},d.origin)}catch(e){}})();`;

/**
 * The login route's refusal of a page whose origin it does not serve, with its reason, as a page that names the setting
 * to change (it stays open for the person to read) and as an outcome for the page that opened it, so that the page
 * leaves "Connecting…": `public_origin_mismatch` when the request came through the page's own origin (a dev server that
 * forwards to the proxy: `publicOrigin`), else `origin_not_allowed` (`allowedOrigins`). The reason is the log's `error`.
 */
async function refused(ctx: Ctx, c: C, origin: string, attempt: string): Promise<Response> {
  const { config } = ctx;
  // a value of the request is shown only when it is an origin, and escaped
  let shown: string | undefined;
  try {
    shown = new URL(origin).origin === origin ? origin : undefined;
  } catch {
    shown = undefined;
  }
  const through = new URL(c.req.url).origin === origin;
  const reason = through ? 'public_origin_mismatch' : 'origin_not_allowed';
  c.get('st').error = reason;
  const page = escapeHtml(shown ?? "this page's origin");
  const text = through
    ? `<p class="error">This sign-in came through ${page}, but the token proxy's public origin is ${escapeHtml(config.publicOrigin ?? '(not set)')}.</p>` +
      `<p>When the proxy is reached through the page's own server (a dev server that forwards to it), set its public origin to that origin: ` +
      `<code>--public-origin ${page}</code> (<code>publicOrigin</code>, <code>ESIGN_PUBLIC_ORIGIN</code>), and register its callback at the service.</p>`
    : `<p class="error">This token proxy does not accept sign-ins from ${page}.</p>` +
      `<p>Add the page's origin to the proxy's allowed origins: <code>--allowed-origin ${page}</code> (<code>allowedOrigins</code>, <code>ESIGN_ALLOWED_ORIGINS</code>).</p>`;
  const { html, headers } = await proxyPage(
    'Sign-in refused',
    `<h1>This page cannot sign in here</h1>${text}<p class="muted">Close this window, change the setting and try again.</p>`,
    {
      script: REFUSED_SCRIPT,
      data: { error: reason, ...(shown ? { origin: shown } : {}), ...(ATTEMPT.test(attempt) ? { attempt } : {}) },
    },
  );
  return c.html(html, 403, headers);
}
