/**
 * The emulator's HTTP API from a test, with fetch: PKCE, the consent forms, the token endpoint, business calls and
 * the `/__emulator` helpers. For the emulator's own suites and for tests of what runs against it; an emulator is
 * anything with a `baseUrl` (a `RunningEmulator`), so this package does not depend on the emulator.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TokenResponse } from '@esign-elements/shared';

/** Where an emulator answers (a `RunningEmulator` is one). */
export interface EmulatorAddress {
  baseUrl: string;
}

export const CLIENT_ID = 'demo-client';
export const CLIENT_SECRET = 'demo-secret';
export const REDIRECT = 'http://localhost:8000/test/browser/callback.html';
export const SCOPE = 'envelope:create envelope:read';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(64).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authUrl(emu: EmulatorAddress, params: Record<string, string | undefined>): string {
  const u = new URL('/openapi/v1/oauth/auth', emu.baseUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

export function defaultAuthParams(challenge: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-' + randomBytes(6).toString('hex'),
    scope: SCOPE,
    ...extra,
  };
}

export async function get(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', ...init });
}

export async function postForm(url: string, fields: Record<string, string | string[]>, init: RequestInit = {}): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return fetch(url, { method: 'POST', redirect: 'manual', body, ...init });
}

/** Value of a hidden input in an HTML page. */
export function hidden(html: string, name: string): string | undefined {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return m?.[1]?.replace(/&amp;/g, '&');
}

export function radios(html: string, name: string): string[] {
  return [...html.matchAll(new RegExp(`type="radio" name="${name}" id="[^"]*" value="([^"]*)"`, 'g'))].map((m) => m[1]!);
}

export interface ConsentStart {
  consentUrl: string;
  requestId: string;
  html: string;
}

/** GET /oauth/auth → 302 → consent page. */
export async function openConsent(emu: EmulatorAddress, params: Record<string, string | undefined>): Promise<ConsentStart> {
  const res = await get(authUrl(emu, params));
  assert.equal(res.status, 302, 'auth answers 302 to the consent page');
  const consentUrl = res.headers.get('location')!;
  assert.ok(consentUrl.startsWith(`${emu.baseUrl}/consent?request=`), consentUrl);
  const page = await get(consentUrl);
  assert.equal(page.status, 200);
  const html = await page.text();
  const requestId = hidden(html, 'request');
  assert.ok(requestId);
  return { consentUrl, requestId, html };
}

export async function login(emu: EmulatorAddress, requestId: string, email: string, password: string): Promise<{ res: Response; html: string }> {
  const res = await postForm(`${emu.baseUrl}/consent/login`, { request: requestId, email, password });
  return { res, html: await res.text() };
}

export async function decide(emu: EmulatorAddress, html: string, decision: 'agree' | 'deny', spaceId?: string): Promise<Response> {
  const fields: Record<string, string> = { request: hidden(html, 'request')!, decision };
  const ticket = hidden(html, 'ticket');
  if (ticket) fields.ticket = ticket;
  if (spaceId) fields.space_id = spaceId;
  return postForm(`${emu.baseUrl}/consent/decision`, fields);
}

/** Full consent as a person: log in, pick the Space (Open Mode), Agree. Returns the callback URL. */
export async function consent(
  emu: EmulatorAddress,
  opts: { email: string; password: string; spaceId?: string; challenge: string; extra?: Record<string, string | undefined> },
): Promise<URL> {
  const params = defaultAuthParams(opts.challenge, opts.extra);
  const { requestId } = await openConsent(emu, params);
  const { res, html } = await login(emu, requestId, opts.email, opts.password);
  assert.equal(res.status, 200, html);
  const agree = await decide(emu, html, 'agree', opts.spaceId);
  assert.equal(agree.status, 302);
  const cb = new URL(agree.headers.get('location')!);
  assert.equal(cb.searchParams.get('state'), params.state);
  return cb;
}

export async function token(
  emu: EmulatorAddress,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const res = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, res };
}

export async function exchange(emu: EmulatorAddress, code: string, verifier: string, extra: Record<string, string> = {}) {
  return token(emu, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uri: REDIRECT,
    ...extra,
  });
}

/** Logs a seed user in (Open Mode) and returns the token response. */
export async function signIn(emu: EmulatorAddress, email: string, password: string, spaceId: string): Promise<TokenResponse> {
  const { verifier, challenge } = pkce();
  const cb = await consent(emu, { email, password, spaceId, challenge });
  const t = await exchange(emu, cb.searchParams.get('code')!, verifier);
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return t.body as unknown as TokenResponse;
}

export const alice = (emu: EmulatorAddress, spaceId = 'space_acme') => signIn(emu, 'alice@example.com', 'alice-password', spaceId);

export interface ApiResult {
  status: number;
  body: { Response: { RequestId: string; Data?: any; Error?: { Code: string; Message: string } } };
  res: Response;
}

export async function api(
  emu: EmulatorAddress,
  path: string,
  accessToken: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResult> {
  const res = await fetch(`${emu.baseUrl}/openapi/v1${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/json',
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), res };
}

export function b64(text: string | Uint8Array): string {
  return Buffer.from(text).toString('base64');
}

export async function upload(emu: EmulatorAddress, accessToken: string, files: Array<{ FileName: string; FileBody: string }>): Promise<ApiResult> {
  return api(emu, '/files/upload', accessToken, { Files: files });
}

export async function outbox(emu: EmulatorAddress): Promise<Array<{ id: string; to: string; subject: string; kind: string; link: string; sentAt: string }>> {
  return (await fetch(`${emu.baseUrl}/__emulator/outbox`)).json() as never;
}

export async function helper(emu: EmulatorAddress, path: string, body?: unknown, method = 'POST'): Promise<Response> {
  return fetch(`${emu.baseUrl}/__emulator/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
