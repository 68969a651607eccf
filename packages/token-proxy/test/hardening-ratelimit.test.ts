/**
 * The token proxy's rate-limit counters (MemoryStore) under a flood of distinct keys (spoofed addresses
 * through a `clientAddress` read from a header): memory stays capped, and a hot address is still limited. Before an
 * earlier fix, once 10 000 keys were live in one window every hit swept the whole map (30 000 keys took
 * about 10 s of CPU) and the map grew without a cap until the window ended. What a hit costs is the bench's to say
 * (`npm run bench -- proxy`), not a timed test's: the cap is held here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTokenProxy, generateCookieKey, MemoryStore } from '../src/index.js';

describe('hardening: proxy rate limiter', () => {
  test('30 000 distinct keys in one window: no more keys held than maxKeys', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ maxKeys: 1_000, now: () => now });
    for (let i = 0; i < 30_000; i++) {
      now += 1;
      assert.equal((await store.hit(`flood-${i}`, 60_000)).count, 1, 'a fresh key starts at 1');
    }
    assert.equal(store.size, 1_000, 'capped at maxKeys');
  });

  test('counts per key, tells when the window ends, resets after it and sweeps expired keys', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    assert.equal((await store.hit('a', 10_000)).count, 1);
    assert.equal((await store.hit('a', 10_000)).count, 2);
    now = 4_000;
    const third = await store.hit('a', 10_000);
    assert.equal(third.count, 3);
    assert.equal(third.resetMs, 6_000);
    assert.equal((await store.hit('b', 10_000)).count, 1, 'another key has its own window');
    now = 10_000;
    assert.equal((await store.hit('a', 10_000)).count, 1, 'a new window for a');
    assert.equal(store.size, 2, 'a and b');
    now = 14_000;
    await store.hit('c', 10_000);
    assert.equal(store.size, 2, "b's expired window was swept, a and c remain");
    now = 30_000;
    await store.hit('d', 10_000);
    assert.equal(store.size, 1, 'only d');
  });

  test('through the handler: a flood of spoofed addresses stays capped and still limits a hot address', async () => {
    const store = new MemoryStore({ maxKeys: 1_000 });
    const handler = createTokenProxy({
      store,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      baseUrl: 'https://esign.example',
      allowedOrigins: [],
      publicOrigin: 'https://app.example',
      cookieKeys: [generateCookieKey()],
      rateLimit: { windowMs: 60_000, max: 3 },
      // a spoofable address, as a careless deployment might configure it
      clientAddress: (request) => request.headers.get('x-client') ?? 'none',
      fetch: async () => Response.json({ error: 'invalid_grant', error_description: 'x' }, { status: 400 }),
    });
    const call = (key: string): Promise<Response> =>
      handler(
        new Request('http://127.0.0.1/token', {
          method: 'POST',
          headers: { 'x-client': key, 'x-esign-proxy': '1', 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token&session=open',
        }),
      );
    for (let i = 0; i < 3_000; i++) await (await call(`spoof-${i}`)).arrayBuffer();
    assert.equal(store.size, 1_000, "the flood's counters are capped at maxKeys");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('hot')).status);
    // no session cookie: the first three are 401 session_missing; the fourth is over the limit
    assert.deepEqual(statuses, [401, 401, 401, 429], 'the hot address is still limited');
  });
});
