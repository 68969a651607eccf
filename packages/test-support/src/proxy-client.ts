/**
 * A browser in front of a token proxy, for the proxy's Redis and multi-replica suites and the benches: its cookie jar,
 * form posts, connecting a session, the emulator's counters and faults.
 */
import assert from 'node:assert/strict';
import { applyCookies, cookieHeader, DEMO_LOGIN, signInThroughProxy, type Jar } from './oauth-login.js';

export { applyCookies, type Jar } from './oauth-login.js';

export const ORIGIN = 'http://localhost:6006';

export interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
  headers: Headers;
  setCookies: string[];
}

export async function post(
  url: string,
  fields: Record<string, string> | URLSearchParams,
  jar?: Jar,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const cookie = jar ? cookieHeader(jar) : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: ORIGIN, ...(cookie ? { Cookie: cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
    signal,
  });
  const text = await response.text();
  const setCookies = response.headers.getSetCookie();
  if (jar) applyCookies(jar, setCookies);
  assert.ok(!text.includes(DEMO_LOGIN.clientSecret), 'the secret in a body');
  if (new URLSearchParams(fields).has('session')) assert.ok(!/"refresh_token"\s*:/.test(text), 'a refresh token in a mediated answer');
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text, headers: response.headers, setCookies };
}

export async function counters(emulatorUrl: string): Promise<Record<string, number>> {
  return (await (await fetch(`${emulatorUrl}/__emulator/requests`)).json()) as Record<string, number>;
}

export async function refreshCount(emulatorUrl: string): Promise<number> {
  return (await counters(emulatorUrl))['grant:refresh_token'] ?? 0;
}

export async function fault(emulatorUrl: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulatorUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

/** Status of a call the access token authorizes at the emulator (200 while the grant lives). */
export async function embeddedStatus(emulatorUrl: string, accessToken: unknown): Promise<number> {
  const response = await fetch(`${emulatorUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${String(accessToken)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * Connects the slot `open` through `proxyUrl` as a browser does in the default mode (the proxy's login route, a person
 * agreeing on the consent page, the proxy's callback), then asks for the first access token as the page does; returns
 * the jar holding the session cookie and that answer.
 */
export async function connectSession(_emulatorUrl: string, proxyUrl: string, jar: Jar = new Map()): Promise<{ jar: Jar; answer: Answer }> {
  const signedIn = await signInThroughProxy({ proxyUrl, origin: ORIGIN, jar, chooseSpaceId: 'space_acme' });
  assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
  const answer = await post(`${proxyUrl}/token`, refreshFields(), jar);
  assert.equal(answer.status, 200, answer.text);
  return { jar, answer };
}

export const refreshFields = (extra: Record<string, string> = {}): Record<string, string> => ({ grant_type: 'refresh_token', session: 'open', ...extra });
