/**
 * The business API's caller: the Bearer access token of a call resolved to its grant, and the per-token rate
 * limit. The tokens are issued by the token endpoint (oauth.ts).
 */
import type { Ctx } from './http.js';
import { ServiceError } from './http.js';
import type { Runtime } from './runtime.js';
import type { AccessTokenRec, GrantRec } from './state.js';

export interface BearerAuth {
  token: string;
  grant: GrantRec;
  access: AccessTokenRec;
}

/** Resolves the Bearer token of a business call or throws the matching AuthFailure. */
export function authenticate(rt: Runtime, c: Ctx): BearerAuth {
  const header = c.req.header('authorization') ?? '';
  const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  if (!m)
    throw new ServiceError(401, 'AuthFailure.TokenMissing', 'Authorization: Bearer <access token> is required.', {
      'WWW-Authenticate': 'Bearer realm="esign"',
    });
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
