/** @esign-elements/shared on its own: the error type's wire form, the URL rules and base64url, as both sides use them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64url, EsignError, isAllowedServiceUrl, isLoopbackHost, joinApiPath, PROXY_HEADER, PROXY_HEADER_VALUE } from '../src/index.js';

describe('@esign-elements/shared', () => {
  it('EsignError crosses a structured clone as JSON and comes back an EsignError with every field', () => {
    const error = new EsignError('rate_limited', 'Slow down.', { status: 429, requestId: 'req-1', serviceCode: 'RequestLimitExceeded', retryAfter: 3 });
    const back = EsignError.fromJSON(structuredClone(error.toJSON()));
    assert.ok(back instanceof EsignError && back instanceof Error);
    assert.deepEqual(
      [back.name, back.code, back.message, back.status, back.requestId, back.serviceCode, back.retryAfter],
      ['EsignError', 'rate_limited', 'Slow down.', 429, 'req-1', 'RequestLimitExceeded', 3],
    );
    const aborted = EsignError.from(new DOMException('stop', 'AbortError'));
    assert.equal(aborted.code, 'aborted');
    assert.equal(EsignError.from(error), error, 'an EsignError is kept as it is');
  });

  it('allows https and loopback http service URLs only, never with credentials', () => {
    assert.ok(isAllowedServiceUrl('https://esign.example.com'));
    assert.ok(isAllowedServiceUrl('http://127.0.0.1:4010') && isAllowedServiceUrl('http://localhost.:4010') && isAllowedServiceUrl('http://[::1]:4010'));
    assert.ok(!isAllowedServiceUrl('http://127.0.0.1:4010', { allowLoopbackHttp: false }));
    assert.ok(!isAllowedServiceUrl('http://esign.example.com'));
    assert.ok(!isAllowedServiceUrl('https://user:pass@esign.example.com'));
    assert.ok(!isAllowedServiceUrl('javascript:alert(1)') && !isAllowedServiceUrl('not a url'));
    assert.ok(isLoopbackHost('LOCALHOST') && !isLoopbackHost('localhost.example.com'));
  });

  it('joins API paths without doubling the prefix, and refuses paths that would leave it', () => {
    assert.equal(joinApiPath('https://s.example.com/', 'files/upload'), 'https://s.example.com/openapi/v1/files/upload');
    assert.equal(joinApiPath('https://s.example.com/openapi/v1', '/openapi/v1/envelopes'), 'https://s.example.com/openapi/v1/envelopes');
    for (const path of ['https://evil.example.com/x', '//evil.example.com/x', '../oauth/token', 'a/%2e%2e/b', 'a\\b']) {
      assert.throws(
        () => joinApiPath('https://s.example.com', path),
        (e: unknown) => e instanceof EsignError && e.code === 'invalid_argument',
        path,
      );
    }
  });

  it('base64url has no padding and the URL-safe alphabet, as Node encodes it', () => {
    const bytes = new Uint8Array([251, 255, 191, 0, 1]);
    assert.equal(base64url(bytes), Buffer.from(bytes).toString('base64url'));
    assert.equal(base64url(new Uint8Array()), '');
  });

  it('names the proxy header once, for the elements and the proxy', () => {
    assert.equal(PROXY_HEADER, 'X-Esign-Proxy');
    assert.equal(PROXY_HEADER_VALUE, '1');
  });
});
