/**
 * The token proxy's rate limiter under a flood of distinct keys (spoofed Origin-less addresses, or a
 * clientKey read from a header): memory stays capped and each hit stays cheap. Before the fix, once 10 000
 * keys were live in one window every hit swept the whole map (30 000 keys took about 10 s of CPU) and the
 * map grew without a cap until the window ended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTokenProxy } from '../../src/proxy/index.js';
import { FixedWindowLimiter } from '../../src/proxy/rate-limit.js';

describe('hardening: proxy rate limiter', () => {
  test('30 000 distinct keys in one window: fast, and no more keys held than maxKeys', () => {
    let now = 1_000_000;
    const limiter = new FixedWindowLimiter({ windowMs: 60_000, max: 5, maxKeys: 1_000 }, () => now);
    const started = performance.now();
    for (let i = 0; i < 30_000; i++) {
      now += 1;
      assert.equal(limiter.hit(`flood-${i}`).allowed, true, 'a fresh key is allowed');
    }
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 3_000, `30 000 hits took ${elapsed.toFixed(0)} ms`);
    assert.equal(limiter.size, 1_000, 'capped at maxKeys');
  });

  test('limits per key, answers Retry-After, resets after the window and sweeps expired keys', () => {
    let now = 0;
    const limiter = new FixedWindowLimiter({ windowMs: 10_000, max: 2 }, () => now);
    assert.equal(limiter.hit('a').allowed, true, 'first');
    assert.equal(limiter.hit('a').allowed, true, 'second');
    now = 4_000;
    const third = limiter.hit('a');
    assert.equal(third.allowed, false, 'third is over the limit');
    assert.equal(third.retryAfterSeconds, 6);
    assert.equal(limiter.hit('b').allowed, true, 'another key has its own window');
    now = 10_000;
    assert.equal(limiter.hit('a').allowed, true, 'a new window for a');
    assert.equal(limiter.size, 2, 'a and b');
    now = 14_000;
    limiter.hit('c');
    assert.equal(limiter.size, 2, "b's expired window was swept, a and c remain");
    now = 30_000;
    limiter.hit('d');
    assert.equal(limiter.size, 1, 'only d');
  });

  test('through the handler: a flood of header-keyed clients stays fast and still limits a hot key', async () => {
    const handler = createTokenProxy({
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      baseUrl: 'https://esign.example',
      allowedOrigins: [],
      redirectUris: ['https://app.example/cb'],
      rateLimit: { windowMs: 60_000, max: 3 },
      // a spoofable key, as a careless deployment might configure it
      clientKey: (request) => request.headers.get('x-client') ?? 'none',
      fetch: async () => Response.json({ error: 'invalid_grant', error_description: 'x' }, { status: 400 }),
    });
    const call = (key: string): Promise<Response> =>
      handler(new Request('http://127.0.0.1/token', { method: 'POST', headers: { 'x-client': key }, body: '' }));
    const started = performance.now();
    for (let i = 0; i < 12_000; i++) await (await call(`spoof-${i}`)).arrayBuffer();
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 15_000, `12 000 flood requests took ${elapsed.toFixed(0)} ms`);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('hot')).status);
    // without X-Esign-Proxy the first three are 403; the fourth is over the limit
    assert.deepEqual(statuses, [403, 403, 403, 429], 'the hot key is still limited');
  });
});
