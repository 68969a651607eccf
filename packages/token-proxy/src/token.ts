/**
 * `POST {basePath}/token` and `POST {basePath}/revoke`: one handler per grant and mode. In the default mode a
 * request names its session slot (`session`) and the refresh token is the cookie's; in the opt-in browser-held mode
 * the page sends its code + verifier or its refresh token. Wire format: docs/proxy.md. Runtime-free.
 */
import {
  checkClientId,
  guard,
  oauthError,
  pickFields,
  randomId,
  rateHit,
  rateLimited,
  slotOf,
  timed,
  tooMany,
  callerKey,
  type C,
  type Ctx,
} from './context.js';
import { tokenPart } from './login.js';
import { CookieConflict, type Session } from './session-cookie.js';
import type { Answer, TokenResult } from './upstream-answer.js';

const TOKEN_FIELDS = [
  'grant_type',
  'code',
  'code_verifier',
  'redirect_uri',
  'refresh_token',
  'scope',
  'session',
  'space_id',
  'force',
  'request_id',
  'iss',
] as const;
const REVOKE_FIELDS = ['token', 'token_type_hint', 'session'] as const;
const BROWSER_HELD_OFF =
  'This token proxy keeps refresh tokens itself (token-mediating mode): send the session field. Returning refresh tokens to the browser needs the proxy option browserHeldRefreshTokens (CLI --browser-held-refresh-tokens).';
/** How stale the cookie's last-activity time may get before a cached answer writes it again (the idle timeout's grain). */
const ACTIVITY_GRAIN_SECONDS = 300;

export async function handleToken(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  const { config } = ctx;
  const state = c.get('st');
  const picked = pickFields(form, TOKEN_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const grantType = values.get('grant_type');
  if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    return oauthError(400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
  }
  state.type = grantType;
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;

  if (values.has('session')) {
    state.mode = 'mediated';
    if (values.has('refresh_token'))
      return oauthError(400, 'invalid_request', 'Send either session (token-mediating mode) or refresh_token (browser-held mode), not both.');
    if (config.cookieKeys.length === 0) return oauthError(400, 'invalid_request', 'This token proxy has no cookie keys: the token-mediating mode is off.');
    // the code never reaches the page in this mode: a code presented here was taken from somewhere it should not be
    if (grantType === 'authorization_code') {
      return oauthError(
        400,
        'unsupported_grant_type',
        `In the token-mediating mode the proxy runs the sign-in itself (${config.basePath}/login); it redeems no code a page sends.`,
      );
    }
    const slot = slotOf(values);
    if (typeof slot !== 'string') return slot;
    return mediatedRefresh(ctx, c, values, slot);
  }
  if (!config.browserHeld) return oauthError(400, 'invalid_request', BROWSER_HELD_OFF);
  state.mode = 'browser-held';
  return grantType === 'authorization_code' ? browserHeldCode(ctx, c, values) : browserHeldRefresh(ctx, c, values);
}

// --- browser-held mode (opt-in) ------------------------------------------------------------------------------

async function browserHeldCode(ctx: Ctx, c: C, values: Map<string, string>): Promise<Answer> {
  const limited = await rateLimited(ctx, callerKey(ctx, c));
  if (limited) return limited;
  for (const field of ['code', 'code_verifier', 'redirect_uri'] as const) {
    if (!values.has(field)) return oauthError(400, 'invalid_request', `${field} is required for authorization_code.`);
  }
  if (!ctx.config.redirectUris.has(values.get('redirect_uri')!)) {
    return oauthError(400, 'invalid_request', 'redirect_uri is not one of the redirect URIs configured on the token proxy.');
  }
  // RFC 9207: the page checked the authorization response's `iss` and sends it along; checked here again
  const result = await timed(
    c,
    ctx.upstream.exchangeCode(values.get('code')!, values.get('code_verifier')!, values.get('redirect_uri')!, c.req.raw.signal, values.get('iss')),
  );
  return result.ok ? { status: 200, body: result.tokens } : result.answer;
}

async function browserHeldRefresh(ctx: Ctx, c: C, values: Map<string, string>): Promise<Answer> {
  const address = callerKey(ctx, c);
  const refreshToken = values.get('refresh_token');
  if (!refreshToken) {
    const limited = await rateLimited(ctx, address);
    return limited ?? oauthError(400, 'invalid_request', 'refresh_token is required.');
  }
  const scope = values.get('scope');
  const owner = `${address}|${c.req.header('origin') ?? ''}`;
  // the rate-limit hit goes with the refresh's claim: one store step
  // no id comes with a token the page holds: its refresh key is a hash of it
  const tokenId = await ctx.sealer.sha256url(`${scope ?? ''}\u0000${refreshToken}`);
  const run = await guard(ctx.refreshes.run(tokenId, owner, refreshCall(ctx, c, refreshToken, scope), rateHit(ctx, address), undefined, waitUntil(ctx, c)));
  if ('limitedMs' in run) return tooMany(run.limitedMs);
  if (run.replayed) c.get('st').replayed = true;
  return run.result.ok ? { status: 200, body: run.result.tokens } : run.result.answer;
}

/** The runtime's `waitUntil` for this request (Workers' ExecutionContext), so store writes after the answer still land. */
function waitUntil(ctx: Ctx, c: C): ((write: Promise<unknown>) => void) | undefined {
  // an adapter that keeps the writes itself (the Node server) passes no ExecutionContext: no need to ask Hono,
  // which answers that with a thrown Error (its stack costs more than the rest of this function)
  if (ctx.hooks.background) return undefined;
  let executionCtx: { waitUntil?: (promise: Promise<unknown>) => void } | undefined;
  try {
    executionCtx = c.executionCtx;
  } catch {
    // no ExecutionContext on this runtime (Hono throws when none was given)
    return undefined;
  }
  return typeof executionCtx?.waitUntil === 'function' ? (write) => executionCtx.waitUntil!(write) : undefined;
}

/** The refresh at the service, when this request is the one that makes it (metrics: refreshes at the service). */
function refreshCall(ctx: Ctx, c: C, refreshToken: string, scope: string | undefined): () => Promise<TokenResult> {
  return () => {
    c.get('st').refreshed = true;
    return timed(c, () => ctx.upstream.refresh(refreshToken, scope));
  };
}

// --- default mode: the session cookie ------------------------------------------------------------------------

async function mediatedRefresh(ctx: Ctx, c: C, values: Map<string, string>, slot: string): Promise<Answer> {
  const state = c.get('st');
  const name = await ctx.cookies.sessionName(slot);
  const session = await ctx.cookies.read(c, name);
  const valid = typeof session === 'object' && !(session instanceof CookieConflict) ? session : undefined;
  const rateKey = valid ? `session:${valid.sid}` : callerKey(ctx, c);
  const cached = valid !== undefined && cachedAnswer(valid, values);
  // every request counts against the caller's limit; one that refreshes counts in the same store step as its claim
  if (!valid || cached || !valid.rt) {
    const limited = await rateLimited(ctx, rateKey);
    if (limited) return limited;
  }
  if (session instanceof CookieConflict) return conflict();
  if (session === 'missing')
    return oauthError(
      401,
      'session_missing',
      'No session cookie came with this request: connect first (the cookie may be blocked if the proxy is on another site).',
    );
  if (session === 'invalid' || !valid) {
    ctx.cookies.clear(c, name);
    return oauthError(401, 'session_invalid', 'The session cookie is not valid for this request; connect again.');
  }
  if (sessionEnded(ctx, valid, slot, values)) return endSession(ctx, c, name, valid, 'ended');
  // Disconnect ended this session: any copy of the cookie is useless wherever the store is shared. A refresh does not
  // wait for this look before its claim (both go to the store at once); a revoked grant is refused at the service anyway
  const revoked = guard(ctx.cookies.isRevoked(valid));

  if (cached) {
    if (await revoked) return endSession(ctx, c, name, valid, 'revoked');
    state.cached = true;
    const now = Math.floor(Date.now() / 1000);
    if (now - (valid.lat ?? valid.iat) > ACTIVITY_GRAIN_SECONDS) await ctx.cookies.write(c, name, { ...valid, lat: now });
    return sessionAnswer(valid);
  }
  if (!valid.rt) {
    if (await revoked) return endSession(ctx, c, name, valid, 'revoked');
    ctx.cookies.clear(c, name);
    return oauthError(400, 'invalid_grant', 'The service issued no refresh token for this session; connect again.');
  }
  const refreshToken = valid.rt;
  const scope = values.get('scope');
  const retryId = values.get('request_id');
  // the refresh token's id, sealed beside it (`rk`): no hash of the token per request; a scope asked for is its own refresh
  const tokenId = scope === undefined ? valid.rk! : `${valid.rk!}.${await ctx.sealer.sha256url(scope)}`;
  const [isRevoked, run] = await Promise.all([
    revoked,
    guard(
      ctx.refreshes.run(
        tokenId,
        `session:${valid.sid}`,
        refreshCall(ctx, c, refreshToken, scope),
        rateHit(ctx, rateKey),
        retryId && /^[A-Za-z0-9_-]{16,64}$/.test(retryId) ? retryId : undefined,
        waitUntil(ctx, c),
      ),
    ),
  ]);
  if (isRevoked) return endSession(ctx, c, name, valid, 'revoked');
  if ('limitedMs' in run) return tooMany(run.limitedMs);
  if (run.replayed) state.replayed = true;
  // this refresh token was rotated a moment ago by another request of the session (a page that won the race, maybe
  // through another replica): this page gets that refresh's access token, with no new refresh at the service. The
  // new refresh token is only for the retry of that request: no cookie here (a tab of the same browser holds the new
  // one already; a copy of the old cookie never gets it, and its old refresh token is reuse after the window)
  if (run.latecomer && run.result.ok) return sessionAnswer(nextSession(valid, run.result.tokens));
  return afterRefresh(ctx, c, name, valid, run.result);
}

/** A readable session the proxy will not serve: another client, slot or Space, past its lifetime, unused too long. */
function sessionEnded(ctx: Ctx, session: Session, slot: string, values: Map<string, string>): boolean {
  const { config } = ctx;
  const now = Date.now() / 1000;
  const space = values.get('space_id');
  return (
    session.cid !== config.clientId ||
    session.sl !== slot ||
    (space !== undefined && session.sp !== space) ||
    session.iat + config.sessionMaxAgeSeconds <= now ||
    (session.lat ?? session.iat) + config.sessionIdleSeconds <= now
  );
}

/** Ends a session the proxy will not serve: its grant is revoked at the service first (unless Disconnect did), then the cookie goes. */
async function endSession(ctx: Ctx, c: C, name: string, session: Session, why: 'revoked' | 'ended'): Promise<Answer> {
  if (why === 'ended' && session.rt) await timed(c, ctx.upstream.revoke(session.rt, 'refresh_token')).catch(() => undefined);
  ctx.cookies.clear(c, name);
  return oauthError(
    401,
    'session_invalid',
    why === 'revoked' ? 'This session was disconnected; connect again.' : 'This session is over (unused too long, or past its lifetime); connect again.',
  );
}

function conflict(): Answer {
  return oauthError(
    400,
    'session_conflict',
    "Two session cookies of one name came with this request (one was set by another subdomain or path); the proxy uses neither. Clear this site's cookies and connect again.",
  );
}

/** The session's access token still serves this request (not forced, same scope, enough time left). */
function cachedAnswer(session: Session, values: Map<string, string>): boolean {
  const scope = values.get('scope');
  if (values.get('force') === '1' || !session.at || session.exp === undefined || (scope !== undefined && scope !== session.sc)) return false;
  const left = session.exp - Date.now();
  const lifetime = (session.life ?? 0) * 1000;
  return left > Math.min(60_000, lifetime / 2);
}

async function afterRefresh(ctx: Ctx, c: C, name: string, session: Session, result: TokenResult): Promise<Answer> {
  if (!result.ok) {
    // the service ended the grant (or no longer takes the refresh token an interrupted refresh sent): so does the session
    if (result.answer.body.error === 'invalid_grant' || result.answer.body.error === 'refresh_interrupted') ctx.cookies.clear(c, name);
    return result.answer;
  }
  const next = nextSession(session, result.tokens);
  await ctx.cookies.write(c, name, next);
  return sessionAnswer(next);
}

/** The session after a refresh answered `tokens`. */
function nextSession(session: Session, tokens: Record<string, unknown>): Session {
  const next: Session = {
    v: 1,
    sid: session.sid,
    cid: session.cid,
    sp: session.sp,
    sl: session.sl,
    iat: session.iat,
    lat: Math.floor(Date.now() / 1000),
    ...tokenPart(tokens),
  };
  if (session.la !== undefined) next.la = session.la;
  // a new refresh token gets a new id; a service that does not rotate leaves both as they were
  if (typeof tokens.refresh_token === 'string' && tokens.refresh_token !== session.rt) {
    next.rt = tokens.refresh_token;
    next.rk = randomId(16);
  } else if (session.rt !== undefined) {
    next.rt = session.rt;
    next.rk = session.rk!;
  }
  if (typeof tokens.space_id === 'string' && session.sp === '') next.sp = tokens.space_id;
  return next;
}

/** What the browser gets for a session: the access token and plain fields, never the refresh token. */
function sessionAnswer(session: Session): Answer {
  const body: Record<string, unknown> = { access_token: session.at, token_type: session.tt };
  if (session.exp !== undefined) body.expires_in = Math.max(0, Math.floor((session.exp - Date.now()) / 1000));
  if (session.sc !== undefined) body.scope = session.sc;
  if (session.sp) body.space_id = session.sp;
  // which sign-in made this session: a page whose popup closed unheard learns whether it was its own
  if (session.la !== undefined) body.login_attempt = session.la;
  for (const [key, value] of Object.entries(session.x ?? {})) if (!(key in body)) body[key] = value;
  return { status: 200, body };
}

// --- /revoke -------------------------------------------------------------------------------------------------

export async function handleRevoke(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  const { config } = ctx;
  const state = c.get('st');
  state.type = 'revoke';
  const picked = pickFields(form, REVOKE_FIELDS);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const badClient = checkClientId(config, form);
  if (badClient) return badClient;
  const { values } = picked;

  if (values.has('session')) {
    state.mode = 'mediated';
    if (values.has('token')) return oauthError(400, 'invalid_request', 'Send either session (token-mediating mode) or token (browser-held mode), not both.');
    if (config.cookieKeys.length === 0) return oauthError(400, 'invalid_request', 'This token proxy has no cookie keys: the token-mediating mode is off.');
    const slot = slotOf(values);
    if (typeof slot !== 'string') return slot;
    const name = await ctx.cookies.sessionName(slot);
    const session = await ctx.cookies.read(c, name);
    const valid = typeof session === 'object' && !(session instanceof CookieConflict) ? session : undefined;
    const limited = await rateLimited(ctx, valid ? `session:${valid.sid}` : callerKey(ctx, c));
    if (limited) return limited;
    if (session instanceof CookieConflict) return conflict();
    // the cookie goes whatever the service says: the user asked to end the session
    ctx.cookies.clear(c, name);
    if (!valid || valid.cid !== config.clientId) return { status: 200, body: {} };
    // every copy of the cookie ends too (where the store is shared), even if the service cannot be reached now
    await ctx.cookies.markRevoked(valid).catch(() => undefined);
    if (!valid.rt) return { status: 200, body: {} };
    const revoked = await timed(c, ctx.upstream.revoke(valid.rt, 'refresh_token', c.req.raw.signal));
    return revoked.ok ? { status: 200, body: {} } : revoked.answer;
  }
  if (!config.browserHeld) return oauthError(400, 'invalid_request', BROWSER_HELD_OFF);
  state.mode = 'browser-held';
  const limited = await rateLimited(ctx, callerKey(ctx, c));
  if (limited) return limited;
  const token = values.get('token');
  if (!token) return oauthError(400, 'invalid_request', 'token is required.');
  const revoked = await timed(c, ctx.upstream.revoke(token, values.get('token_type_hint'), c.req.raw.signal));
  // RFC 7009: 200 with any (usually empty) body means revoked or already invalid
  return revoked.ok ? { status: 200, body: {} } : revoked.answer;
}
