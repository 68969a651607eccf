/**
 * `POST {basePath}/login/status`: what the proxy knows of one of this browser's popup sign-ins, for a page whose popup
 * reads as closed before any outcome came. A sign-in page that sends `Cross-Origin-Opener-Policy: same-origin` moves
 * the popup to another browsing context group: its opener reads `popup.closed === true` while the person is still
 * there, and the done page has no opener to tell (docs/security.md, "A consent page that severs the popup").
 *
 * Keyed by the page's own attempt id and bound to this browser's cookies, never answered from the id alone:
 * - `pending`: the attempt's pre-login cookie came with the request (the popup reached the login route and went on to
 *   the sign-in page; nothing came back yet);
 * - `error` with the outcome's code: the callback ended that attempt with an error and left its outcome in place of
 *   the pre-login cookie: sealed, HttpOnly, two minutes, and nothing in it that can start or finish a sign-in;
 * - `connected`: the slot's session cookie came with it and was made by that attempt (its `la`);
 * - `unknown`: none of these (the popup never reached the login route, or it all expired).
 * A framed page's attempt (`framedBy`) is answered from its handoff cookie first: `ready` (its popup has not started),
 * `pending`, or the popup's result claimed once (handoff.ts).
 * The answer holds no secret, no code and no token: only what the done page says to the opener. The route is one of
 * the token calls (app.ts): the proxy header, an allowed Origin, a form body, CORS with credentials. Runtime-free.
 */
import { oauthError, pickFields, slotOf, type C, type Ctx } from './context.js';
import { CookieConflict, type PendingLogin } from './session-cookie.js';
import { claimHandoff } from './handoff.js';
import type { Answer } from './upstream-answer.js';

/** How long an error outcome stays readable: the page asks within seconds (backing off to 5 s, at once on focus). */
export const OUTCOME_SECONDS = 120;
const ATTEMPT = /^[A-Za-z0-9_-]{16,128}$/;

/** A pre-login cookie after its callback ended with an error: no state, no verifier; the outcome's code. */
type EndedLogin = PendingLogin & { err?: string };

/**
 * A popup's error outcome, kept for its page in this browser only: the pre-login cookie (cleared by the callback in
 * the same answer, before this line) comes back as the outcome alone. A success needs none: the session cookie says
 * which attempt made it.
 */
export async function keepOutcome(ctx: Ctx, c: C, login: PendingLogin, error: string | undefined): Promise<void> {
  if (error === undefined || login.d !== 'popup' || !login.st || !ATTEMPT.test(login.a)) return;
  const ended: EndedLogin = { st: '', cv: '', sl: '', o: login.o, d: 'popup', a: login.a, exp: Date.now() + OUTCOME_SECONDS * 1000, err: error };
  await ctx.cookies.writeLogin(c, await ctx.cookies.loginName(login.st), ended, OUTCOME_SECONDS);
}

export async function handleLoginStatus(ctx: Ctx, c: C, form: URLSearchParams): Promise<Answer> {
  c.get('st').type = 'login';
  c.get('st').mode = 'mediated';
  if (ctx.config.callbackUrl === undefined) return oauthError(400, 'invalid_request', 'This token proxy runs no sign-in (its token-mediating mode is off).');
  const picked = pickFields(form, ['attempt', 'session', 'client_id']);
  if ('duplicate' in picked) return oauthError(400, 'invalid_request', `${picked.duplicate} is repeated.`);
  const { values } = picked;
  const attempt = values.get('attempt') ?? '';
  if (values.has('client_id') && values.get('client_id') !== ctx.config.clientId)
    return oauthError(400, 'invalid_client', 'This token proxy serves another client_id.');
  if (!ATTEMPT.test(attempt)) return oauthError(400, 'invalid_request', "attempt must be the page's attempt id.");
  if (!values.has('session')) return oauthError(400, 'invalid_request', 'session is required.');
  const slot = slotOf(values);
  if (typeof slot !== 'string') return slot;
  const answer = (status: string, error?: string): Answer => ({ status: 200, body: { attempt, status, ...(error ? { error } : {}) } });

  // a framed page: its popup's sign-in waits in the store for this partition's handoff cookie (handoff.ts)
  const claimed = await claimHandoff(ctx, c, attempt, slot);
  if (claimed?.status === 'error') return answer('error', claimed.error);
  if (claimed?.status === 'ready' || claimed?.status === 'pending' || claimed?.status === 'connected') return answer(claimed.status);

  for (const name of ctx.cookies.loginNames(c)) {
    const login = (await ctx.cookies.readLogin(c, name)) as EndedLogin | 'missing' | 'invalid' | CookieConflict;
    if (login instanceof CookieConflict || typeof login === 'string' || login.a !== attempt || login.exp <= Date.now()) continue;
    if (typeof login.err === 'string' && login.st === '') return answer('error', login.err);
    if (login.st !== '') return answer('pending');
  }
  const session = await ctx.cookies.read(c, await ctx.cookies.sessionName(slot));
  if (typeof session === 'object' && !(session instanceof CookieConflict) && session.la === attempt && session.cid === ctx.config.clientId)
    return answer('connected');
  return answer('unknown');
}
