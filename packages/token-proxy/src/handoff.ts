/**
 * A page inside another site's frame (`framedBy`, opt-in) and the sign-in its popup runs. The frame's cookies are
 * partitioned by the top-level site, and the popup is a top-level window with the proxy's own jar: what the popup's
 * callback makes would never reach the frame. So the frame and its popup meet through a one-time handoff:
 *
 *   POST {basePath}/login/handoff  the framed page (a token call: allowed Origin, the proxy header) gets a partitioned
 *                                  handoff cookie holding a random secret N for its attempt (sealed, HttpOnly) and a
 *                                  ticket (sealed by the proxy: SHA-256 of N, the attempt, an expiry) for the popup.
 *   GET  {basePath}/login?…&handoff=<ticket>  the popup's sign-in carries the ticket; only a navigation a page of the
 *                                  proxy's own site started (`Sec-Fetch-Site`) may carry one.
 *   GET  {basePath}/callback       the new session (or the error) goes into the store under SHA-256 of N, for
 *                                  HANDOFF_SECONDS, set once; no session cookie is left in the popup's jar.
 *   POST {basePath}/login/status   the framed page's handoff cookie claims it once: the session cookie is set in
 *                                  the frame's partition (login-status.ts).
 *
 * A page can claim only a sign-in made for the secret in its own cookie (the ticket reveals its hash only), and a
 * sign-in carries a ticket only from a page of this site (docs/security.md, "Inside another site's frame").
 * Runtime-free: no `node:` import.
 */
import { isRecord } from '@esign-elements/shared';
import { callerKey, guard, oauthError, pickFields, rateLimited, randomId, timed, type C, type Ctx } from './context.js';
import { CookieConflict, type Session } from './session-cookie.js';
import type { Answer } from './upstream-answer.js';

/** How long a finished sign-in waits for its framed page to claim it: the page claims at once on the popup's message. */
export const HANDOFF_SECONDS = 30;
const ATTEMPT = /^[A-Za-z0-9_-]{16,128}$/;

/** The answer of a proxy that is not set up for framed pages, said to the page and the person. */
export function notFramed(top?: string): Answer {
  return oauthError(
    400,
    'framing_not_allowed',
    top
      ? `This page is shown inside ${top}'s frame, which this token proxy does not allow: add --framed-by ${top} (framedBy, ESIGN_FRAMED_BY).`
      : "This token proxy is not set up for pages inside another site's frame: start it with --framed-by <the framing site's origin> (framedBy, ESIGN_FRAMED_BY).",
  );
}

/** `POST {basePath}/login/handoff`: the framed page's handoff cookie, and the ticket its popup's sign-in carries. */
export async function handleHandoff(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  const { config } = ctx;
  c.get('st').type = 'login';
  c.get('st').mode = 'mediated';
  const picked = pickFields(form, ['attempt', 'session', 'client_id', 'top']);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const top = values.get('top');
  if (config.framedBy.size === 0) return notFramed();
  if (top !== undefined && !config.framedBy.has(top)) return notFramed(/^https?:\/\/[A-Za-z0-9.:[\]-]{1,260}$/.test(top) ? top : undefined);
  if (values.has('client_id') && values.get('client_id') !== config.clientId)
    return oauthError(400, 'invalid_client', 'This token proxy serves another client_id.');
  const attempt = values.get('attempt') ?? '';
  if (!ATTEMPT.test(attempt)) return oauthError(400, 'invalid_request', "attempt must be the page's attempt id.");
  const limited = await rateLimited(ctx, callerKey(ctx, c, `attempt:${attempt}`));
  if (limited) return limited;
  const secret = randomId(32);
  const exp = Date.now() + config.loginTimeoutSeconds * 1000;
  await ctx.cookies.writeHandoff(c, await ctx.cookies.handoffName(attempt), { a: attempt, n: secret, exp }, config.loginTimeoutSeconds);
  const ticket = await ctx.sealer.seal(JSON.stringify({ h: await ctx.sealer.sha256url(secret), a: attempt, exp }), ticketAad(ctx));
  return { status: 200, body: { attempt, handoff: ticket } };
}

/**
 * The login route's check of a ticket: the hash its sign-in's result will be kept under, or the outcome's error. Only
 * a popup that a page of this proxy's site opened (`Sec-Fetch-Site: same-origin` or `same-site`) may carry one: a
 * link from anywhere else (a mail, another site) never signs a person in for another's handoff cookie.
 */
export async function checkTicket(ctx: Ctx, c: C, ticket: string, attempt: string, display: string): Promise<{ h: string } | { error: string }> {
  if (ctx.config.framedBy.size === 0) return { error: 'framing_not_allowed' };
  const site = c.req.header('sec-fetch-site');
  if (site !== 'same-origin' && site !== 'same-site') return { error: 'state_mismatch' };
  if (display !== 'popup' || ticket.length > 1000) return { error: 'invalid_request' };
  const text = await ctx.sealer.open(ticket, ticketAad(ctx));
  let opened: unknown;
  try {
    opened = text === undefined ? undefined : JSON.parse(text);
  } catch {
    opened = undefined;
  }
  if (!isRecord(opened) || typeof opened.h !== 'string' || opened.a !== attempt || typeof opened.exp !== 'number') return { error: 'state_mismatch' };
  if (opened.exp <= Date.now()) return { error: 'login_expired' };
  return { h: opened.h };
}

/**
 * The callback's result for a framed page, kept under its handoff's hash for HANDOFF_SECONDS, sealed under the store
 * key: once per ticket (a second sign-in with the same ticket keeps nothing: false).
 */
export async function keepHandoff(ctx: Ctx, hash: string, attempt: string, result: { s: Session } | { err: string }): Promise<boolean> {
  const key = handoffKey(hash);
  // one result per ticket, for as long as the ticket lives (a result already claimed and gone included)
  if (!(await guard(ctx.config.store.claim(`hu:{${hash}}`, '1', ctx.config.loginTimeoutSeconds * 1000 + 60_000)))) return false;
  const sealed = await ctx.sealer.seal(JSON.stringify({ a: attempt, ...result }), key);
  await guard(ctx.config.store.set(key, sealed, HANDOFF_SECONDS * 1000));
  return true;
}

export type Claimed = { status: 'ready' | 'pending' | 'connected' | 'unknown' } | { status: 'error'; error: string };

/** The login route took the ticket: from now on the page hears `pending` (its popup's sign-in is under way), not `ready`. */
export async function markStarted(ctx: Ctx, hash: string): Promise<void> {
  await guard(ctx.config.store.set(`hs:{${hash}}`, '1', ctx.config.loginTimeoutSeconds * 1000 + 60_000));
}

/**
 * The status route's look at a framed page's handoff: undefined when the request carries no handoff cookie of this
 * attempt; `ready` while its popup has not reached the login route (the cookie came back: the page checks that before
 * the popup leaves), `pending` until the callback kept a result; that result claimed once (the session cookie written
 * in this partition, the handoff cookie cleared), or `unknown` when it was claimed before or belongs to no such attempt.
 */
export async function claimHandoff(ctx: Ctx, c: C, attempt: string, slot: string): Promise<Claimed | undefined> {
  if (ctx.config.framedBy.size === 0) return undefined;
  const name = await ctx.cookies.handoffName(attempt);
  const cookie = await ctx.cookies.readHandoff(c, name);
  if (typeof cookie !== 'object' || cookie instanceof CookieConflict || cookie.a !== attempt || cookie.exp <= Date.now()) return undefined;
  const hash = await ctx.sealer.sha256url(cookie.n);
  const key = handoffKey(hash);
  const store = ctx.config.store;
  const sealed = await guard(store.get(key));
  const taken = `hc:{${hash}}`;
  if (sealed === undefined) {
    if ((await guard(store.get(taken))) !== undefined) return { status: 'unknown' };
    return { status: (await guard(store.get(`hs:{${hash}}`))) === undefined ? 'ready' : 'pending' };
  }
  // once, across replicas: the first claim takes it
  if (!(await guard(store.claim(taken, '1', HANDOFF_SECONDS * 2 * 1000)))) return { status: 'unknown' };
  await guard(store.delete(key));
  ctx.cookies.clear(c, name);
  let result: unknown;
  try {
    result = JSON.parse((await ctx.sealer.open(sealed, key)) ?? 'null');
  } catch {
    result = undefined;
  }
  if (!isRecord(result) || result.a !== attempt) return { status: 'unknown' };
  if (typeof result.err === 'string') return { status: 'error', error: result.err };
  const session = result.s as Session | undefined;
  if (!isRecord(session) || session.sl !== slot || session.cid !== ctx.config.clientId) return { status: 'unknown' };
  const sessionName = await ctx.cookies.sessionName(slot);
  await endPrevious(ctx, c, sessionName);
  await ctx.cookies.write(c, sessionName, session);
  return { status: 'connected' };
}

/** A new sign-in replaces the slot's session: the old one ends everywhere (its mark) and its grant is revoked, so none is orphaned. */
export async function endPrevious(ctx: Ctx, c: C, name: string): Promise<void> {
  const previous = await ctx.cookies.read(c, name);
  if (typeof previous !== 'object' || previous instanceof CookieConflict || previous.cid !== ctx.config.clientId) return;
  await ctx.cookies.markRevoked(previous).catch(() => undefined);
  if (previous.rt) await timed(c, ctx.upstream.revoke(previous.rt, 'refresh_token')).catch(() => undefined);
}

function handoffKey(hash: string): string {
  // a Redis Cluster hash tag: the result and its claim on one node
  return `ho:{${hash}}`;
}

function ticketAad(ctx: Ctx): string {
  return `esign-handoff-ticket|${ctx.config.clientId}|${ctx.config.basePath}`;
}
