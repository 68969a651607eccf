/** Pure helpers of the client: Retry-After parsing, backoff, URL rules. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseRetryAfter } from '../../src/core/service/client.js';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../../src/core/service/retry.js';
import { isAllowedServiceUrl, isLoopbackHost, joinApiPath } from '@esign-elements/shared/url';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T10:00:00Z');
  test('delta-seconds', () => {
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 120 ', now), 120);
  });
  test('HTTP date, rounded up, never negative', () => {
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 10:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 10:00:00 GMT', now + 500), 0);
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 09:00:00 GMT', now), 0);
  });
  test('missing or malformed', () => {
    for (const value of [null, undefined, '', 'soon', '-3', '1.5', '1e3', '99999999999999999999']) {
      assert.equal(parseRetryAfter(value, now), undefined, String(value));
    }
  });
});

describe('backoffDelay', () => {
  test('full jitter stays within [0, min(max, base * 2^attempt)]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const delay = backoffDelay(attempt, DEFAULT_RETRY_POLICY, () => r);
        const ceiling = Math.min(DEFAULT_RETRY_POLICY.maxDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** attempt);
        return delay >= 0 && delay <= ceiling;
      }),
    );
  });
});

describe('url rules', () => {
  test('isLoopbackHost', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '[::1]', '::1', 'localhost.']) assert.ok(isLoopbackHost(host), host);
    for (const host of ['localhost.example.com', '127.0.0.2.example', '10.0.0.1', 'example.com', '']) assert.ok(!isLoopbackHost(host), host);
  });

  test('isAllowedServiceUrl', () => {
    for (const url of [
      'https://esign.example',
      'https://esign.example:8443/x',
      'http://localhost:4010',
      'http://127.0.0.1:4010/openapi/v1',
      'http://[::1]:4010',
    ]) {
      assert.ok(isAllowedServiceUrl(url), url);
    }
    for (const url of [
      'http://esign.example',
      'ftp://esign.example',
      'javascript:alert(1)',
      'not a url',
      'https://user:pw@esign.example',
      'http://localhost.evil.example',
    ]) {
      assert.ok(!isAllowedServiceUrl(url), url);
    }
    assert.ok(
      !isAllowedServiceUrl('http://localhost:4010', { allowLoopbackHttp: false }),
      '!isAllowedServiceUrl("http://localhost:4010", { allowLoopbackHttp: false })',
    );
    assert.ok(isAllowedServiceUrl(new URL('https://esign.example')), 'isAllowedServiceUrl(new URL("https://esign.example"))');
  });

  test('joinApiPath', () => {
    assert.equal(joinApiPath('https://esign.example', '/files/upload'), 'https://esign.example/openapi/v1/files/upload');
    assert.equal(joinApiPath('https://esign.example/', 'files/upload'), 'https://esign.example/openapi/v1/files/upload');
    assert.equal(joinApiPath('https://esign.example/openapi/v1/', '/embedded/views'), 'https://esign.example/openapi/v1/embedded/views');
    assert.equal(joinApiPath('https://esign.example', '/openapi/v1/members/add'), 'https://esign.example/openapi/v1/members/add');
    assert.equal(joinApiPath('https://gw.example/esign', '/envelopes'), 'https://gw.example/esign/openapi/v1/envelopes');
    for (const bad of ['https://evil.example/', '//evil.example/x', '/a/../b', '/a/%2E%2E/b', '\\\\evil', 'javascript:x']) {
      assert.throws(() => joinApiPath('https://esign.example', bad), /./, bad);
    }
  });
});
