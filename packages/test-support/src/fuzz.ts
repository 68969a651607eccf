/**
 * The checks and generators the hardening fuzz tests share (fast-check over ./raw-http.ts): every answer a 4xx with
 * a clear error body (OAuth JSON, or the Response envelope with Error.Code and Error.Message), never a 5xx or a leak;
 * the bare refusals of Node's own HTTP parser counted apart.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import { codeExchangeForm, obtainAuthorizationCode } from './oauth-login.js';
import type { RawAnswer, RawRequest } from './raw-http.js';

// --- checks ------------------------------------------------------------------------------------------

export interface Tally {
  total: number;
  byStatus: Map<number, number>;
  parserRejects: number;
}

export function newTally(): Tally {
  return { total: 0, byStatus: new Map(), parserRejects: 0 };
}

export function describeRequest(request: RawRequest): string {
  return `${request.method} ${request.target.slice(0, 60)} [${request.headers.map(([n, v]) => `${n}: ${v.slice(0, 40)}`).join('; ')}] ${request.body.subarray(0, 120).toString('latin1')}`;
}

/** What no answer may carry: the client secret and every token or code the test holds (filled in as it gets them). */
export interface LeakCheck {
  clientSecret: string;
  held: readonly string[];
}

/** Common to every answer: no 5xx, no leaked secret or held token, and a body that says what went wrong. */
export function checkCommon(answer: RawAnswer, request: RawRequest, tally: Tally, secrets: LeakCheck): 'parser' | 'app' {
  tally.total += 1;
  tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
  const what = describeRequest(request);
  assert.ok(answer.status >= 200 && answer.status < 500, `HTTP ${answer.status} for ${what}: ${answer.body.slice(0, 200)}`);
  assert.ok(!answer.raw.includes(secrets.clientSecret), `client secret in the answer to ${what}`);
  for (const token of secrets.held) assert.ok(!answer.raw.includes(token), `a held token or code came back in the answer to ${what}`);
  // Node's HTTP parser refuses broken framing itself, before any application code: a bare 4xx, no body
  if (!answer.headers.has('content-type') && answer.body === '' && [400, 413, 414, 431].includes(answer.status)) {
    tally.parserRejects += 1;
    return 'parser';
  }
  return 'app';
}

export function parseJson(answer: RawAnswer, what: string): Record<string, unknown> {
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `JSON content type for ${what}`);
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    assert.fail(`the answer to ${what} is not JSON: ${answer.body.slice(0, 200)}`);
  }
  assert.ok(typeof json === 'object' && json !== null && !Array.isArray(json), `a JSON object for ${what}`);
  return json as Record<string, unknown>;
}

export function checkOAuthError(answer: RawAnswer, what: string): void {
  const json = parseJson(answer, what);
  assert.equal(typeof json.error, 'string', `OAuth error code for ${what}: ${answer.body.slice(0, 200)}`);
  assert.ok((json.error as string).length > 0, `non-empty error for ${what}`);
  assert.equal(typeof json.error_description, 'string', `error_description for ${what}`);
}

export function checkEnvelopeError(answer: RawAnswer, what: string): void {
  const json = parseJson(answer, what);
  const response = json.Response as { RequestId?: unknown; Error?: { Code?: unknown; Message?: unknown } } | undefined;
  assert.equal(typeof response?.RequestId, 'string', `RequestId for ${what}: ${answer.body.slice(0, 200)}`);
  assert.equal(typeof response?.Error?.Code, 'string', `Error.Code for ${what}: ${answer.body.slice(0, 200)}`);
  assert.equal(typeof response?.Error?.Message, 'string', `Error.Message for ${what}`);
}

export function report(t: TestContext, name: string, tally: Tally): void {
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  t.diagnostic(`${name}: ${tally.total} requests; ${statuses}; ${tally.parserRejects} refused by Node's HTTP parser`);
}

// --- generators --------------------------------------------------------------------------------------

export const unicode = fc.string({ unit: 'grapheme', maxLength: 40 });
export const huge = fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'x'.repeat(n));
export const badPercent = fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%AF', '%ff%fe', '+%2B+', '%%%');
/** Printable latin1 (what a header value may carry), sometimes long: up to 12 KB, within Node's 16 KiB header limit. */
export const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'a')) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: 'binary', maxLength: 20 })
      .map((s) => [...s].map((ch) => (ch.charCodeAt(0) >= 0xa0 && ch.charCodeAt(0) <= 0xff ? ch : 'b')).join('')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => 'h'.repeat(n)) },
);
/** Mostly `good`, so most requests pass the early gates and reach deeper validation. */
export function mostly<T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: bad });
}
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset=UTF-8',
    'application/x-www-form-urlencoded; charset=latin1',
    'APPLICATION/X-WWW-FORM-URLENCODED',
    'application/x-www-form-urlencoded, application/json',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data; boundary=zz',
    'multipart/form-data',
    '',
  ),
  headerValue,
);

export const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  { weight: 3, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'post', 'QUERY', 'M-SEARCH') },
);

/**
 * The form values the test holds, read when a request is generated (the test fills them in once it has them):
 * tokens and codes put into forms in the wrong places, and the refresh token that is never sent as `refresh_token`.
 */
export interface FormValues {
  clientId: string;
  redirect: string;
  /** Five tokens or codes (a sacrificial grant's, a used code, another Space's token); a generated request may revoke any of them. */
  inForms: string[];
  refreshToken: string;
  /** Sent instead of `refreshToken` wherever a generated form would carry it as `refresh_token`. */
  usedCode: string;
}

/** Form bodies for the token routes, and any body (mostly a form; JSON, bytes, empty or a huge refresh token). */
export function formArbitraries(values: FormValues): { formBody: fc.Arbitrary<Buffer>; anyBody: fc.Arbitrary<Buffer> } {
  const heldValue = fc.constantFrom(0, 1, 2, 3, 4).map((i) => values.inForms[i % values.inForms.length]!);
  /** One form parameter: known names (sometimes repeated), odd names; values odd, huge, unicode or a held token in the wrong place. */
  const formPair = fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'grant_type',
        'code',
        'code_verifier',
        'redirect_uri',
        'refresh_token',
        'token',
        'token_type_hint',
        'scope',
        'client_id',
        'client_secret',
        'session',
        'space_id',
        'force',
      ),
      fc.constantFrom('__proto__', 'constructor', 'grant_type[]', 'GRANT_TYPE', ' code', 'a=b', ''),
      unicode,
    ),
    fc.oneof(
      fc.constantFrom(
        'authorization_code',
        'refresh_token',
        'password',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:device_code',
        '',
        values.clientId,
        'other-client',
        values.redirect,
        `${values.redirect}/`,
        'envelope:read',
        'admin',
      ),
      unicode,
      huge,
      heldValue,
    ),
  );

  /** A form body; the held refresh token is never sent as refresh_token, so no generated request can be a real refresh. */
  const formBody = fc.tuple(fc.array(formPair, { maxLength: 8 }), fc.option(badPercent, { nil: undefined })).map(([pairs, raw]) => {
    const safe = pairs.map(([k, v]): [string, string] => [k, k === 'refresh_token' && v === values.refreshToken ? values.usedCode : v]);
    const encoded = new URLSearchParams(safe).toString();
    return Buffer.from(raw ? `${encoded}&${raw}=${raw}` : encoded, 'utf8');
  });

  const anyBody = fc.oneof(
    { weight: 5, arbitrary: formBody },
    { weight: 1, arbitrary: fc.json().map((j) => Buffer.from(j)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
    { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 40_000 }).map((n) => Buffer.from(`grant_type=refresh_token&refresh_token=${'r'.repeat(n)}`)) },
  );
  return { formBody, anyBody };
}

/** The fuzz's own grant of `app` at the emulator for `space`: its tokens and the (now used) code. */
export async function fuzzGrant(
  baseUrl: string,
  app: { clientId: string; clientSecret: string; redirectUri: string },
  space: string,
): Promise<{ access_token: string; refresh_token: string; code: string }> {
  const login = await obtainAuthorizationCode({ baseUrl, clientId: app.clientId, redirectUri: app.redirectUri, chooseSpaceId: space });
  const form = codeExchangeForm(login, app.clientId);
  form.set('client_secret', app.clientSecret);
  const response = await fetch(`${baseUrl}/openapi/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  assert.equal(response.status, 200, 'code exchange for the fuzz grants');
  return { ...body, code: login.code };
}
