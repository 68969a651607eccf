/**
 * The lockout scenario of issue 47, for every way the token proxy is mounted: one caller floods the sign-in (and the
 * token route without a session) from its own address, then another person connects and gets an access token.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { DEMO_LOGIN, signInThroughProxy } from './oauth-login.js';
import { ORIGIN, post, refreshFields } from './proxy-client.js';

/** The flooder's address: another loopback address than the test's own fetch (127.0.0.1 or ::1). */
export const FLOODER_ADDRESS = '127.0.0.2';

/** One HTTP request from `localAddress` to `url` (its host must be an IPv4 loopback name), its status and Location. */
function requestFrom(
  localAddress: string,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; location: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port: url.port, path: url.pathname + url.search, method, localAddress, headers: { Host: url.host, ...headers } },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, location: String(answer.headers.location ?? '') }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export interface FloodOptions {
  /** Sign-ins the flooder starts (each a GET /login with one attempt id, as a page stuck retrying), and token calls without a session. */
  count: number;
  /** Headers the flooder adds (a forged X-Forwarded-For, say). */
  headers?: Record<string, string>;
  localAddress?: string;
  /** The page's origin (default the test pages' ORIGIN). */
  origin?: string;
}

/**
 * The flooder: `count` sign-ins and `count` cookie-less token calls to the proxy at `base` (…/api/esign). Asserts
 * that the flooder itself ran into the limit (its last sign-in's outcome is `rate_limited`): the limit is there.
 */
export async function floodSignIn(base: string, options: FloodOptions): Promise<void> {
  const attempt = randomBytes(16).toString('base64url');
  const origin = options.origin ?? ORIGIN;
  const query = new URLSearchParams({ session: 'open', origin, display: 'popup', attempt, scope: DEMO_LOGIN.scope });
  const localAddress = options.localAddress ?? FLOODER_ADDRESS;
  let last = { status: 0, location: '' };
  for (let i = 0; i < options.count; i++) last = await requestFrom(localAddress, new URL(`${base}/login?${query}`), 'GET', options.headers ?? {});
  assert.equal(last.status, 303);
  assert.match(last.location, /error=rate_limited/, `the flooder's own sign-ins are limited: ${last.location}`);
  const form = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Esign-Proxy': '1', Origin: origin, ...options.headers };
  for (let i = 0; i < options.count; i++) await requestFrom(localAddress, new URL(`${base}/token`), 'POST', form, 'grant_type=refresh_token&session=open');
}

/** Another person, after the flood: connects through the proxy at `base` and gets an access token. */
export async function personConnects(base: string, headers: Record<string, string> = {}, origin = ORIGIN): Promise<void> {
  const signedIn = await signInThroughProxy({ proxyUrl: base, origin, chooseSpaceId: 'space_acme', headers });
  assert.equal(signedIn.outcome.get('outcome'), 'connected', `another person is not locked out: ${signedIn.finalUrl}`);
  const token = await post(`${base}/token`, refreshFields(), signedIn.jar, { Origin: origin, ...headers });
  assert.equal(token.status, 200, token.text);
}
