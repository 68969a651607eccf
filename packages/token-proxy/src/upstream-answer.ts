/**
 * What the proxy passes on of the service's answers: the token fields of a success (sanitizeTokenResponse), the
 * service's error as the proxy's own (its code and RequestId only), and the proxy's `temporarily_unavailable`.
 * Runtime-free.
 */
import { isRecord } from '@esign-elements/shared';

/** A proxy answer before the common headers: status, JSON body, extra headers. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * A token request's outcome. `unknown`: the request may have reached the service and been processed (no answer in
 * time, or the connection lost), so a refresh token sent may have been rotated.
 */
export type TokenResult = { ok: true; tokens: Record<string, unknown> } | { ok: false; answer: Answer; unknown?: true };

/**
 * The service's error as the proxy's: its code (OAuth `error` or business `Error.Code`) and RequestId, each
 * only as a short token, with the proxy's own description. No text of the service is passed on: an
 * error text may echo the request, and with it the secret in some encoding. Anything else is a 502.
 */
export function serviceError(status: number, body: unknown, retryAfter: string | null, clientSecret: string): Answer {
  const business = isRecord(body) && isRecord(body.Response) ? body.Response : undefined;
  const error = identifier(isRecord(business?.Error) ? business.Error.Code : isRecord(body) ? body.error : undefined, clientSecret);
  if (!error) return unavailable(502, `The service answered HTTP ${status} without an OAuth error.`);
  if (status === 429) return unavailable(429, 'The service is rate limiting token requests.', retryAfter);
  const out: Record<string, string> = { error, error_description: ERROR_DESCRIPTIONS.get(error) ?? `The service refused the request (HTTP ${status}).` };
  const requestId = identifier(business?.RequestId, clientSecret);
  if (requestId) out.request_id = requestId;
  return { status: status >= 400 && status < 500 ? status : 502, body: out };
}

const KNOWN_RESPONSE_FIELDS = ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'space_id'];

/** The known token fields plus other plain fields, minus anything secret-like or equal to the secret. */
export function sanitizeTokenResponse(body: Record<string, unknown>, clientSecret: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of KNOWN_RESPONSE_FIELDS) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (field === 'expires_in') {
      const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof seconds === 'number' && Number.isFinite(seconds)) out.expires_in = seconds;
      continue;
    }
    if (typeof value === 'string' && !value.includes(clientSecret)) out[field] = value;
  }
  for (const [key, value] of Object.entries(body)) {
    if (KNOWN_RESPONSE_FIELDS.includes(key) || /secret|password|client_assertion/i.test(key) || key.includes(clientSecret)) continue;
    if (value === undefined || value === null) continue;
    const serialized = JSON.stringify(value);
    if (serialized === undefined || serialized.includes(clientSecret)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/** The proxy's description of the service's error codes (RFC 6749 section 5.2, RFC 7009 section 2.2.1). */
const ERROR_DESCRIPTIONS = new Map([
  ['invalid_request', 'The service found the request malformed.'],
  ['invalid_client', "The service did not accept the token proxy's client credentials."],
  ['invalid_grant', 'The authorization code or refresh token is invalid, expired, revoked or already used.'],
  ['unauthorized_client', 'The client is not allowed to use this grant type.'],
  ['unsupported_grant_type', 'The service does not support this grant type.'],
  ['invalid_scope', 'The requested scope is invalid or exceeds the grant.'],
  ['unsupported_token_type', 'The service cannot revoke this type of token.'],
  ['access_denied', 'The service denied the request.'],
]);

/** A value of the service passed on only as an identifier (letters, digits, `_.-`, at most 64) that is not the secret. */
function identifier(value: unknown, secret: string): string | undefined {
  return typeof value === 'string' && /^[\w.-]{1,64}$/.test(value) && !value.includes(secret) ? value : undefined;
}

export function unavailable(status: number, description: string, retryAfter?: string | null): Answer {
  const answer: Answer = { status, body: { error: 'temporarily_unavailable', error_description: description } };
  if (retryAfter && /^\d{1,6}$/.test(retryAfter.trim())) answer.headers = { 'Retry-After': retryAfter.trim() };
  return answer;
}
