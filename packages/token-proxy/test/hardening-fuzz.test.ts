/**
 * Property-based hardening of the token proxy over raw sockets (node:net, so methods, paths, headers and bodies can
 * be anything a client may send): thousands of generated malformed requests to the proxy, in front of the real
 * emulator. The emulator's own routes have theirs in the emulator package (test/hardening-fuzz.test.ts).
 *
 * Every answer must be a 4xx with an OAuth error body, never a 5xx, a hang or a dropped connection, and never carry
 * the client secret or a token or code the test holds. A 2xx is accepted only for a revocation (of any token) or a
 * CORS preflight. Node's own HTTP parser answers some requests (a bare 400/431 without a body): those are counted and
 * accepted only with no body at all.
 *
 * Complements the proxy property in proxy.test.ts (valid forms with extra fields); this file fuzzes structure and
 * framing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import {
  checkCommon,
  checkOAuthError,
  contentType,
  describeRequest,
  formArbitraries,
  fuzzGrant,
  headerValue,
  method,
  mostly,
  newTally,
  report,
  unicode,
  type FormValues,
  type LeakCheck,
} from '@esign-elements/test-support/fuzz';
import { codeExchangeForm, obtainAuthorizationCode } from '@esign-elements/test-support/oauth-login';
import { sendRaw, type RawRequest } from '@esign-elements/test-support/raw-http';
import { generateCookieKey } from '../src/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../src/node.js';

const CLIENT_ID = 'fuzz-client';
const SECRET = `fz-secret-${randomBytes(16).toString('hex')}`;
const REDIRECT = 'http://localhost:6006/iframe.html';
const ORIGIN = 'http://localhost:6006';
/** Per property: hard cap on time, so the whole file stays near 5 s even on a busy machine. */
const TIME_LIMIT_MS = 5_000;

let emu: RunningEmulator;
let proxy: ServedTokenProxy;
/** Every token or code this test holds: none may ever come back in an answer to another request. */
const held: string[] = [];
const leaks: LeakCheck = { clientSecret: SECRET, held };
/** Tokens and codes put into forms in the wrong places, filled in by before(). */
const formValues: FormValues = { clientId: CLIENT_ID, redirect: REDIRECT, inForms: [], refreshToken: '', usedCode: '' };
const { anyBody } = formArbitraries(formValues);

const grant = (space: string) => fuzzGrant(emu.baseUrl, { clientId: CLIENT_ID, clientSecret: SECRET, redirectUri: REDIRECT }, space);

before(async () => {
  emu = await createEmulator({
    port: 0,
    filePort: 0,
    // raised so the fuzz reaches the handlers instead of the per-token limit
    limits: { requestsPerMinute: 1_000_000, maxFileBytes: 4096, maxFilesPerRequest: 3 },
    seed: { apps: [{ clientId: CLIENT_ID, clientSecret: SECRET, name: 'Fuzz', scopes: ['envelope:create', 'envelope:read'], redirectUris: [REDIRECT] }] },
  });
  proxy = await serveTokenProxy({
    port: 0,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    baseUrl: emu.baseUrl,
    allowedOrigins: [ORIGIN],
    redirectUris: [REDIRECT],
    rateLimit: { windowMs: 60_000, max: 1_000_000 },
    timeoutMs: 3_000,
    // both modes: session requests (the default) and refresh tokens in the form (the opt-in)
    cookieKeys: [generateCookieKey()],
    browserHeldRefreshTokens: true,
  });
  const main = await grant('space_acme');
  const sacrificial = await grant('space_acme');
  formValues.refreshToken = sacrificial.refresh_token;
  // a second grant whose code is the "used code": replaying it revokes that grant, not the main one
  const spare = await grant('space_alice');
  formValues.usedCode = spare.code;
  formValues.inForms.push(sacrificial.access_token, sacrificial.refresh_token, sacrificial.code, spare.code, spare.access_token);
  held.push(main.access_token, main.refresh_token, main.code, ...formValues.inForms, spare.refresh_token);
});

after(async () => {
  await proxy.close();
  await emu.close();
});

describe('hardening: token proxy under generated malformed requests', () => {
  test('every answer is a 4xx OAuth error (or a legitimate revoke/preflight), never 5xx, hang or leak', async (t) => {
    const tally = newTally();
    const target = mostly(
      fc.constantFrom('/token', '/token', '/revoke', '/api/esign/token', '/api/esign/revoke', '/token/'),
      fc.oneof(
        fc.constantFrom('//token', '/%2e%2e/token', '/token?grant_type=refresh_token', '/authorize', '/', '*', 'http://evil.example/token', '/token/../revoke'),
        unicode.map((s) => `/${encodeURIComponent(s)}/token`),
      ),
    );
    const request = fc
      .record({
        method,
        target,
        contentType: mostly(
          fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8'),
          fc.option(contentType, { nil: undefined }),
        ),
        proxyHeader: mostly(fc.constant('1'), fc.option(fc.oneof(fc.constantFrom('0', '', ' 1 ', 'true', '1, 1'), headerValue), { nil: undefined })),
        origin: mostly(
          fc.constantFrom(ORIGIN, undefined),
          fc.oneof(fc.constantFrom('null', 'https://evil.example', 'http://localhost:6007', `${ORIGIN}/`, 'http://127.0.0.1'), headerValue),
        ),
        host: fc.option(fc.constantFrom('evil.example', 'localhost', '[::1]', 'a'.repeat(300), '127.0.0.1:1'), { nil: undefined, freq: 8 }),
        extra: fc.array(fc.tuple(fc.constantFrom('X-Pad', 'Authorization', 'X-Forwarded-For', 'Cookie', 'X-Esign-Proxy', 'Accept'), headerValue), {
          maxLength: 2,
        }),
        body: anyBody,
        chunked: fc.boolean(),
      })
      .map((r): RawRequest => {
        const headers: Array<[string, string]> = [];
        if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
        if (r.proxyHeader !== undefined) headers.push(['X-Esign-Proxy', r.proxyHeader]);
        if (r.origin !== undefined) headers.push(['Origin', r.origin]);
        if (r.host !== undefined) headers.push(['Host', r.host]);
        headers.push(...r.extra);
        return { method: r.method, target: r.target, headers, body: r.body, chunked: r.chunked };
      });

    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const answer = await sendRaw(proxy.url, req);
        if (checkCommon(answer, req, tally, leaks) === 'parser') return;
        const what = describeRequest(req);
        if (req.method === 'HEAD') return assert.ok(answer.status >= 400, `HEAD is refused: ${answer.status}`);
        if (answer.status === 204) return assert.equal(req.method, 'OPTIONS', `204 only for a preflight: ${what}`);
        if (answer.status === 200) {
          assert.ok(req.method === 'POST' && /revoke/.test(req.target), `only a revocation may succeed: ${what} -> ${answer.body.slice(0, 200)}`);
          assert.equal(answer.body, '{}', 'a revocation answers {}');
          return;
        }
        assert.ok(answer.status >= 400 && answer.status < 500, `4xx for ${what}, got ${answer.status}`);
        checkOAuthError(answer, what);
        assert.equal(answer.headers.get('cache-control'), 'no-store', `no-store on ${what}`);
      }),
      { numRuns: 3_000, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    report(t, 'proxy', tally);
    assert.ok(tally.total >= 200, `the property ran (${tally.total} requests)`);
    // the proxy still serves a real exchange afterwards
    const login = await obtainAuthorizationCode({ baseUrl: emu.baseUrl, clientId: CLIENT_ID, redirectUri: REDIRECT, chooseSpaceId: 'space_acme' });
    const ok = await fetch(`${proxy.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-esign-proxy': '1' },
      body: codeExchangeForm(login).toString(),
    });
    assert.equal(ok.status, 200, 'a real exchange still works after the fuzz');
  });
});
