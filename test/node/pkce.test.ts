import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64url } from '@esign-elements/shared/base64url';
import { createCodeChallenge, createCodeVerifier } from '../../src/core/sign-in/pkce.js';
import { createState } from '../../src/core/random.js';
import { EsignError } from '@esign-elements/shared/errors';
import { sessionKeyOf, type SessionConfig } from '../../src/core/session/session-manager.js';
import { defaultRevocationEndpoint, validateConfig } from '../../src/core/session/config.js';

describe('PKCE (RFC 7636, S256)', () => {
  it('matches the RFC 7636 Appendix B test vector', async () => {
    // the RFC's 32 octets, encoded by our own base64url
    const octets = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ];
    const verifier = base64url(new Uint8Array(octets));
    assert.equal(verifier, 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
    assert.equal(await createCodeChallenge(verifier), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes verifiers from 64 random bytes: 86 base64url characters, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const verifier = createCodeVerifier();
      assert.equal(verifier.length, 86);
      assert.match(verifier, /^[A-Za-z0-9_-]{86}$/);
      seen.add(verifier);
    }
    assert.equal(seen.size, 200);
  });

  it('refuses verifiers outside 43..128 unreserved characters', async () => {
    await assert.rejects(createCodeChallenge('short'), RangeError);
    await assert.rejects(createCodeChallenge('a'.repeat(129)), RangeError);
    await assert.rejects(createCodeChallenge(`${'a'.repeat(50)}+/=`), RangeError);
  });

  it('makes unguessable states', () => {
    const a = createState();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, createState());
  });

  it('encodes base64url without padding', () => {
    assert.equal(base64url(new Uint8Array([0xfb, 0xff])), '-_8');
  });
});

describe('session configuration', () => {
  const good: SessionConfig = {
    clientId: 'demo-client',
    baseUrl: 'https://esign.example.com',
    tokenEndpoint: 'https://app.example.com/api/esign/token',
    redirectUri: 'https://app.example.com/sign',
    scope: 'envelope:create envelope:read',
    storage: 'indexeddb',
  };

  it('accepts https, loopback http and custom-scheme redirect URIs', () => {
    validateConfig(good);
    validateConfig({ ...good, baseUrl: 'http://127.0.0.1:4010', tokenEndpoint: 'http://localhost:4020/token', redirectUri: 'http://[::1]:6006/x' });
    validateConfig({ ...good, redirectUri: 'com.example.esign:/oauth/callback' });
  });

  for (const [name, patch] of [
    ['plain http base URL', { baseUrl: 'http://esign.example.com' }],
    ['plain http token endpoint', { tokenEndpoint: 'http://app.example.com/token' }],
    ['plain http redirect URI', { redirectUri: 'http://app.example.com/cb' }],
    ['missing client id', { clientId: '' }],
    ['unknown storage', { storage: 'cookies' }],
    ['empty scope', { scope: '  ' }],
    ['not a URL', { baseUrl: 'not a url' }],
    ['javascript: redirect URI', { redirectUri: 'javascript:alert(document.cookie)' }],
    ['data: redirect URI', { redirectUri: 'data:text/html,<script>alert(1)</script>' }],
    ['blob: redirect URI', { redirectUri: 'blob:https://app.example.com/6c1f' }],
    ['file: redirect URI', { redirectUri: 'file:///etc/passwd' }],
    ['base URL with credentials', { baseUrl: 'https://user:pass@esign.example.com' }],
    ['token endpoint with credentials', { tokenEndpoint: 'https://admin:hunter2@app.example.com/api/esign/token' }],
    ['revocation endpoint with credentials', { revocationEndpoint: 'https://u:p@app.example.com/revoke' }],
    ['authorization endpoint over plain http', { authorizationEndpoint: 'http://esign.example.com/authorize' }],
    ['unknown refresh-token holder', { refreshTokens: 'cookie' }],
  ] as const) {
    it(`refuses a ${name} with invalid_config`, () => {
      assert.throws(
        () => validateConfig({ ...good, ...(patch as Partial<SessionConfig>) }),
        (error: unknown) => error instanceof EsignError && error.code === 'invalid_config' && error.message.length > 10,
      );
    });
  }

  it('never quotes a password it refuses', () => {
    assert.throws(
      () => validateConfig({ ...good, tokenEndpoint: 'https://admin:hunter2@app.example.com/token' }),
      (error: unknown) => error instanceof EsignError && error.message.includes('credentials') && !error.message.includes('hunter2'),
    );
  });

  it('keys sessions by base URL and client id so they never mix', () => {
    assert.notEqual(sessionKeyOf(good), sessionKeyOf({ ...good, clientId: 'other' }));
    assert.notEqual(sessionKeyOf(good), sessionKeyOf({ ...good, baseUrl: 'https://test.esign.example.com' }));
    assert.equal(sessionKeyOf(good), sessionKeyOf({ ...good, baseUrl: 'https://esign.example.com/' }));
    assert.notEqual(sessionKeyOf(good), sessionKeyOf({ ...good, spaceId: 'space_acme' }));
  });

  it('puts the revocation route beside the token route of the proxy', () => {
    assert.equal(defaultRevocationEndpoint('https://app.example.com/api/esign/token'), 'https://app.example.com/api/esign/revoke');
  });
});
