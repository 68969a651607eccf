/** What could not be reached, told from an error and the browser's online flag (src/core/service/unreachable.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { backoffDelay, retryWaitMs } from '../../src/core/service/retry.js';
import { failedAt, retryAfterOf, transient, unreachable, UNREACHABLE_RETRY } from '../../src/core/service/unreachable.js';

describe('unreachable', () => {
  const network = () => new EsignError('network_error', 'no connection');

  it('offline only when the browser says so', () => {
    assert.equal(unreachable(network(), false), 'offline');
    assert.equal(unreachable(failedAt('token-proxy', network()), false), 'offline');
    assert.equal(unreachable(failedAt('token-proxy', network()), true), 'token-proxy');
    assert.equal(unreachable(network(), true), 'service');
  });

  it('finds the hop through the causes of a wrapped error', () => {
    const inner = failedAt('token-proxy', new EsignError('refresh_failed', 'HTTP 503', { status: 503 }));
    assert.equal(unreachable(new EsignError('view_failed', 'wrapped', { status: 503, cause: inner }), true), 'token-proxy');
  });

  it('an upload that failed because the token proxy could not be reached is the token proxy; a final answer first is none', () => {
    const upload = new EsignError('upload_failed', 'wrapped', { cause: failedAt('token-proxy', network()) });
    assert.equal(unreachable(upload, true), 'token-proxy');
    assert.equal(unreachable(new EsignError('session_expired', 'over', { cause: network() }), true), undefined);
  });

  it('a 5xx, 429 or timeout is one of reaching; a refusal, a setting or an ended session is not', () => {
    assert.equal(unreachable(new EsignError('service_error', 'x', { status: 503 }), true), 'service');
    assert.equal(unreachable(new EsignError('timeout', 'x'), true), 'service');
    assert.equal(unreachable(new EsignError('rate_limited', 'x', { status: 429 }), true), 'service');
    for (const code of ['session_expired', 'refresh_interrupted'] as const) assert.equal(transient(new EsignError(code, 'x', { status: 500 })), false, code);
    for (const code of ['invalid_config', 'url_rejected', 'csp_blocked'] as const) assert.equal(unreachable(new EsignError(code, 'x'), true), undefined, code);
    assert.equal(unreachable(new EsignError('session_expired', 'x', { status: 500 }), true), undefined);
    assert.equal(unreachable(new EsignError('view_failed', 'x', { status: 400 }), true), undefined);
  });

  it('a page that never said ready is the page, or offline', () => {
    assert.equal(unreachable(new EsignError('frame_blocked', 'x'), true), 'page');
    assert.equal(unreachable(new EsignError('frame_blocked', 'x'), false), 'offline');
  });

  it('the retry backoff: full jitter from 1 s, capped at 30 s; six tries fit in the first minute', () => {
    assert.equal(
      backoffDelay(0, UNREACHABLE_RETRY, () => 0.999),
      999,
    );
    assert.equal(
      backoffDelay(10, UNREACHABLE_RETRY, () => 0.5),
      15_000,
    );
    let worst = 0;
    for (let attempt = 0; attempt < 6; attempt++) worst += backoffDelay(attempt, UNREACHABLE_RETRY, () => 1);
    assert.ok(worst <= 61_000, `${worst}`);
  });

  it("an element's wait before a try: the backoff, and never less than the hop's Retry-After", () => {
    assert.equal(
      retryWaitMs(0, undefined, UNREACHABLE_RETRY, () => 0.5),
      500,
    );
    assert.equal(
      retryWaitMs(0, 120, UNREACHABLE_RETRY, () => 0.5),
      120_000,
    );
    assert.equal(
      retryWaitMs(5, 1, UNREACHABLE_RETRY, () => 1),
      30_000,
    );
    assert.equal(
      retryWaitMs(0, 0, UNREACHABLE_RETRY, () => 0),
      0,
    );
    const wrapped = new EsignError('view_failed', 'x', { cause: new EsignError('rate_limited', 'y', { status: 429, retryAfter: 7 }) });
    assert.equal(retryAfterOf(wrapped), 7);
    assert.equal(retryAfterOf(network()), undefined);
    assert.equal(retryAfterOf(undefined), undefined);
  });
});
