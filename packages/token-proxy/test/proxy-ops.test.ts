/**
 * What an operations team gets from the token proxy, over real sockets: the esign-token-proxy CLI on a real
 * redis-server in front of the emulator. `/health` and `/ready` (503 with the reason while Redis is away, without CORS
 * or cookies), `X-Request-Id` (a trusted proxy's kept, else a new one), one JSON log line per request holding no
 * token, code, cookie, key or secret, Prometheus metrics on their own port, and the start-up checks and messages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import { createEmulator } from '@esign-elements/emulator';
import { createJsonLog, createProxyMetrics, generateCookieKey } from '../src/index.js';
import { serveTokenProxy } from '../src/node.js';
import { decodeCookieKey, importCookieKeys, open } from '../src/seal.js';
import { DEMO_LOGIN, signInThroughProxy } from '@esign-elements/test-support/oauth-login';
import { startCli, type CliReplica, type CliStartError } from './proxy-cli-process.js';
import { ORIGIN, post, refreshFields } from '@esign-elements/test-support/proxy-client';
import { startRedisServer, type RedisServer } from '@esign-elements/test-support/redis-server';

type Emulator = Awaited<ReturnType<typeof createEmulator>>;

const KEY = generateCookieKey();
let redis: RedisServer;
let emulator: Emulator;

before(async () => {
  redis = await startRedisServer();
  emulator = await createEmulator({ port: 0, filePort: 0 });
});
after(async () => {
  await emulator.close();
  await redis.stop();
});

/** The refresh tokens inside session cookies (opened with the test's key, as only a key holder can). */
async function refreshTokensIn(cookies: Array<[string, string]>): Promise<string[]> {
  const keys = await importCookieKeys([decodeCookieKey(KEY)!]);
  const found = new Set<string>();
  for (const [name, value] of cookies) {
    const text = await open(keys, value, `${name}|${DEMO_LOGIN.clientId}`);
    const rt = text ? (JSON.parse(text) as { rt?: string }).rt : undefined;
    if (rt) found.add(rt);
  }
  return [...found];
}

/** The value of one sample of the metrics text (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

describe('token proxy operations (CLI on a real redis-server)', () => {
  let replica: CliReplica;
  before(async () => {
    replica = await startCli(emulator, KEY, ['--store', redis.url, '--metrics-port', '0', '--trusted-proxy', '127.0.0.1', '--rate-limit', '4'], {
      ESIGN_STORE_PREFIX: 'ops-a:',
      ESIGN_STORE_TIMEOUT_MS: '500',
    });
  });
  after(async () => {
    await replica.stop();
  });

  test('health, ready, request ids, JSON logs and metrics; Redis away: ready 503 with the reason', async () => {
    // health: alive, no CORS even for an allowed origin, no cookie, a request id, not logged
    const health = await get(`${replica.url}/health`, { Origin: ORIGIN });
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
    assert.equal(health.headers.get('access-control-allow-origin'), null, 'no CORS');
    assert.equal(health.headers.get('set-cookie'), null, 'no cookie');
    assert.equal(health.headers.get('cache-control'), 'no-store');
    assert.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'a new request id');
    const ready = await get(`${replica.url}/ready`);
    assert.equal(ready.status, 200, ready.body);
    assert.equal(JSON.parse(ready.body).status, 'ok');
    assert.equal((await fetch(`${replica.url}/ready`, { method: 'POST' })).status, 405);

    // a sign-in, a cached answer, a forced refresh (one call at the service), through the proxy's routes
    const signedIn = await signInThroughProxy({ proxyUrl: replica.url, origin: ORIGIN, chooseSpaceId: 'space_acme' });
    assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
    const code = new URL(signedIn.callbackUrl).searchParams.get('code')!;
    const state = new URL(signedIn.callbackUrl).searchParams.get('state')!;
    const jar = signedIn.jar;
    const cookies = [...jar.values()];
    const jarHistory: Array<[string, string]> = [...jar.entries()];
    const first = await post(`${replica.url}/token`, refreshFields(), jar, { 'X-Request-Id': 'trace-abc.123' });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('x-request-id'), 'trace-abc.123', "a trusted proxy's request id is kept");
    cookies.push(...jar.values());
    const forced = await post(`${replica.url}/token`, refreshFields({ force: '1' }), jar, { 'X-Request-Id': 'bad id with spaces' });
    assert.equal(forced.status, 200, forced.text);
    assert.match(forced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'an unsafe request id is replaced');
    cookies.push(...jar.values());
    jarHistory.push(...jar.entries());
    const accessTokens = [first.json.access_token, forced.json.access_token].map(String);
    const refreshTokens = await refreshTokensIn(jarHistory);
    assert.equal(refreshTokens.length, 2, 'the refresh token of the sign-in and the rotated one');

    // another caller (behind the trusted proxy) over the rate limit: 401 without a session, then 429
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(`${replica.url}/token`, refreshFields(), new Map(), { 'X-Forwarded-For': '203.0.113.9' })).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 429]);
    // the store prefix from the environment
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      assert.ok((await client.keys('ops-a:*')).length > 0, 'keys under the prefix');
      assert.deepEqual(await client.keys('esign-proxy:*'), [], 'none under the default prefix');
    } finally {
      client.destroy();
    }

    // Redis away: not ready (the reason said), token calls 503, health still 200
    await redis.stop();
    try {
      const notReady = await get(`${replica.url}/ready`);
      assert.equal(notReady.status, 503, notReady.body);
      const why = JSON.parse(notReady.body) as { status: string; reason: string };
      assert.equal(why.status, 'unavailable');
      assert.match(why.reason, /^store: /);
      assert.equal((await get(`${replica.url}/health`)).status, 200);
      const down = await post(`${replica.url}/token`, refreshFields({ force: '1' }), new Map(jar));
      assert.equal(down.status, 503, down.text);
    } finally {
      await redis.start();
    }
    const deadline = Date.now() + 10_000;
    let again = await get(`${replica.url}/ready`);
    while (again.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await get(`${replica.url}/ready`);
    }
    assert.equal(again.status, 200, `ready again once Redis is back: ${again.body}`);

    // metrics: on their own port only
    assert.ok(replica.metricsUrl, replica.stdout());
    assert.equal((await get(`${replica.url}/metrics`)).status, 404, 'not on the public port');
    const metrics = await get(replica.metricsUrl!);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = metrics.body;
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/login",outcome="ok"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/callback",outcome="ok"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/token",outcome="ok"}'), 2, text);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/token",outcome="rejected"}'), 4, text);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/token",outcome="rate_limited"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/token",outcome="store_unavailable"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_service_refreshes_total'), 1, 'one refresh at the service (the forced one)');
    assert.equal(sample(text, 'esign_proxy_cached_answers_total'), 1);
    assert.equal(sample(text, 'esign_proxy_rate_limited_total'), 1);
    assert.equal(sample(text, 'esign_proxy_store_errors_total'), 1);
    assert.equal(sample(text, 'esign_proxy_upstream_duration_seconds_count{type="refresh_token"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_upstream_duration_seconds_count{type="callback"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_upstream_duration_seconds_bucket{type="refresh_token",le="+Inf"}'), 1);
    assert.ok(sample(text, 'esign_proxy_upstream_duration_seconds_sum{type="refresh_token"}') > 0);

    // the log: one JSON line per request to the five routes (not for health or ready), nothing secret
    const requests = replica.lines().filter((line) => line.msg === 'request');
    assert.deepEqual(
      requests.map((line) => `${line.route} ${line.status} ${line.outcome}`),
      [
        '/login 303 ok',
        '/callback 303 ok',
        '/token 200 ok',
        '/token 200 ok',
        '/token 401 rejected',
        '/token 401 rejected',
        '/token 401 rejected',
        '/token 401 rejected',
        '/token 429 rate_limited',
        '/token 503 store_unavailable',
      ],
    );
    const traced = requests.find((line) => line.requestId === 'trace-abc.123');
    assert.equal(traced?.cached, true, 'the logged line of the request whose id came from the trusted proxy');
    assert.equal(requests.find((line) => line.requestId === forced.headers.get('x-request-id'))?.refreshed, true);
    for (const line of requests) {
      assert.equal(typeof line.time, 'string');
      assert.equal(typeof line.durationMs, 'number');
      assert.ok(line.level === 'info' || line.level === 'warn', JSON.stringify(line));
    }
    assert.equal(requests.find((line) => line.status === 429)?.level, 'warn');
    const all = replica.stdout() + replica.stderr();
    for (const [what, value] of [
      ['the client secret', DEMO_LOGIN.clientSecret],
      ['the cookie key', KEY],
      ['the authorization code', code],
      ['the state', state],
      ...cookies.map((cookie) => ['a cookie value', cookie]),
      ...accessTokens.map((token) => ['an access token', token]),
      ...refreshTokens.map((token) => ['a refresh token', token]),
    ] as const) {
      assert.ok(value.length >= 8, `${what} is a real value`);
      assert.ok(!all.includes(value), `${what} is never printed`);
    }
  });
});

describe('esign-token-proxy start-up', () => {
  test('every mistake in the configuration is said on its own line; exit 2', async () => {
    await assert.rejects(
      startCli(emulator, KEY, ['--log-level', 'loud', '--metrics-port', 'x', '--trusted-proxy', 'lb.internal', '--store', 'memcached://x'], {
        ESIGN_TRUST_REQUEST_ID: 'maybe',
        ESIGN_LOGIN_TIMEOUT: '10m',
      }),
      (error: Error) => {
        const lines = error.message.split('\n').filter((line) => line.startsWith('esign-token-proxy: '));
        for (const pattern of [
          /--log-level must be one of debug, info, warn, error, silent/,
          /--metrics-port must be 0\.\.65535/,
          /--trusted-proxy must be an IP address, got "lb\.internal"/,
          /--store must be memory, a redis:\/\/ \(rediss:\/\/, valkey:\/\/\) URL or a redis-cluster:\/\//,
          /ESIGN_TRUST_REQUEST_ID must be 1 or 0/,
          /--login-timeout must be a whole number of seconds/,
        ]) {
          assert.equal(lines.filter((line) => pattern.test(line)).length, 1, `one line for ${pattern}: ${error.message}`);
        }
        assert.equal(lines.length, 6, error.message);
        return true;
      },
    );
  });

  test("the options' own mistakes, all of them, one line each; exit 1, no secret or key quoted", async () => {
    await assert.rejects(
      startCli(emulator, KEY, ['--public-origin', 'http://proxy.example', '--base-path', 'api'], {
        ESIGN_ALLOWED_ORIGINS: '*,https://ok.example/path',
        ESIGN_COOKIE_KEYS: `${KEY},not-a-key-value`,
      }),
      (error: Error) => {
        const lines = error.message.split('\n').filter((line) => line.startsWith('esign-token-proxy: '));
        assert.deepEqual(
          lines.map((line) => line.slice('esign-token-proxy: '.length).split(/[ :]/)[0]),
          ['allowedOrigins', 'allowedOrigins', 'cookieKeys[1]', 'basePath', 'publicOrigin'],
          error.message,
        );
        assert.ok(
          !error.message.includes('not-a-key-value') && !error.message.includes(KEY) && !error.message.includes(DEMO_LOGIN.clientSecret),
          'nothing secret quoted',
        );
        return true;
      },
    );
  });

  test('says which store it uses: memory with a warning that it is one process only; Redis; a refused password, unprinted', async () => {
    const memory = await startCli(emulator, KEY, ['--log-level', 'warn']);
    try {
      assert.match(memory.stdout(), /store: memory \(this process's only\)/);
      assert.match(memory.stderr(), /warning: store: memory is this process's only/);
      // at warn, a 200 is not logged; a 405 neither (4xx other than 429 are info)
      assert.equal((await post(`${memory.url}/token`, refreshFields(), new Map())).status, 401);
      assert.equal(memory.lines().filter((line) => line.msg === 'request').length, 0, memory.stdout());
    } finally {
      await memory.stop();
    }
    const shared = await startCli(emulator, KEY, ['--store', redis.url]);
    try {
      assert.match(shared.stdout(), new RegExp(`store: redis redis://127\\.0\\.0\\.1:${redis.port}`));
      assert.doesNotMatch(shared.stderr(), /warning: store/);
      assert.equal((await get(`${shared.url}/ready`)).status, 200);
    } finally {
      await shared.stop();
    }
    // this Redis has no such user: the CLI stops at start with one line that names the store without its password
    const url = redis.url.replace('redis://', 'redis://ops:hunter2-redis-password@');
    // a CLI that starts anyway is stopped before the assertion fails, or it would keep this file's process (and the
    // whole node suite) waiting for ever
    const refused = startCli(emulator, KEY, ['--store', url]).then(async (started) => {
      await started.stop();
      return started;
    });
    await assert.rejects(refused, (error: CliStartError) => {
      assert.equal(error.code, 1, error.message);
      assert.match(error.stderr, new RegExp(`^esign-token-proxy: --store redis://127\\.0\\.0\\.1:${redis.port}: Redis refused the user name or password`));
      assert.equal(error.stderr.trimEnd().split('\n').length, 1, error.stderr);
      assert.ok(!(error.stdout + error.stderr).includes('hunter2-redis-password'), 'the store password is never printed');
      return true;
    });
  });
});

describe('serveTokenProxy in code: logLevel, metricsPort, shutdown()', () => {
  test('its log lines go to logWrite, its metrics to their own port; shutdown() stops accepting and resolves', async () => {
    const lines: string[] = [];
    const served = await serveTokenProxy({
      clientId: DEMO_LOGIN.clientId,
      clientSecret: DEMO_LOGIN.clientSecret,
      baseUrl: emulator.baseUrl,
      cookieKeys: [KEY],
      allowedOrigins: [ORIGIN],
      port: 0,
      logLevel: 'info',
      logWrite: (line) => lines.push(line),
      metricsPort: 0,
    });
    emulator.registerRedirectUri(DEMO_LOGIN.clientId, served.callbackUrl!);
    const url = served.url.replace('//127.0.0.1:', '//localhost:');
    const signedIn = await signInThroughProxy({ proxyUrl: url, origin: ORIGIN, chooseSpaceId: 'space_acme' });
    assert.equal(signedIn.outcome.get('outcome'), 'connected', signedIn.finalUrl);
    const answer = await post(`${url}/token`, refreshFields(), signedIn.jar);
    assert.equal(answer.status, 200, answer.text);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      logged.map((line) => `${line.level} ${line.route} ${line.status}`),
      ['info /login 303', 'info /callback 303', 'info /token 200'],
    );
    assert.equal(logged[2]!.requestId, answer.headers.get('x-request-id'));
    const metrics = await get(served.metricsUrl!);
    assert.equal(sample(metrics.body, 'esign_proxy_requests_total{route="/token",outcome="ok"}'), 1, metrics.body);
    assert.equal((await get(served.metricsUrl!.replace('/metrics', '/other'))).status, 404);
    await served.shutdown({ timeoutMs: 2_000 });
    await assert.rejects(fetch(`${url}/health`), 'no longer accepting');
    await assert.rejects(fetch(served.metricsUrl!), 'the metrics port is closed too');
    for (const line of lines) assert.ok(!line.includes(DEMO_LOGIN.clientSecret) && !line.includes(KEY) && !line.includes(String(answer.json.access_token)));
  });

  test('createProxyMetrics and createJsonLog in code: fixed labels whatever the event says; nothing below the level', () => {
    const metrics = createProxyMetrics();
    const base = { type: 'refresh_token', method: 'POST', status: 200, requestId: 'r', durationMs: 1 } as const;
    metrics.onEvent({ ...base, route: '/token', outcome: 'ok', upstreamMs: 30, refreshed: true });
    metrics.onEvent({ ...base, route: '/evil"}\n', outcome: 'weird' as never });
    const text = metrics.render();
    assert.equal(sample(text, 'esign_proxy_requests_total{route="/token",outcome="ok"}'), 1);
    assert.equal(sample(text, 'esign_proxy_requests_total{route="other",outcome="error"}'), 1, text);
    assert.equal(sample(text, 'esign_proxy_upstream_duration_seconds_bucket{type="refresh_token",le="0.025"}'), 0);
    assert.equal(sample(text, 'esign_proxy_upstream_duration_seconds_bucket{type="refresh_token",le="0.05"}'), 1);
    assert.ok(!text.includes('evil'));
    const written: string[] = [];
    const log = createJsonLog({ level: 'warn', write: (line) => written.push(line) });
    log.onEvent({ ...base, route: '/token', outcome: 'ok' });
    log.onEvent({ ...base, route: '/token', outcome: 'rate_limited', status: 429 });
    log.onEvent({ ...base, route: '/token', outcome: 'error', status: 500 });
    assert.deepEqual(
      written.map((line) => (JSON.parse(line) as { level: string }).level),
      ['warn', 'error'],
    );
    assert.throws(() => createJsonLog({ level: 'loud' as never }), /level must be one of/);
  });
});
