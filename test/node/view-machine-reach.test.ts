/** The view machine when something cannot be reached: which hop, what it promises, and that it keeps it (issues 51, 46). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { failedAt } from '../../src/core/service/unreachable.js';
import { activities } from '../../src/elements/embedded-view/machine.js';
import type { ViewEffect } from '../../src/elements/embedded-view/machine-types.js';
import { initialViewState } from '../../src/elements/embedded-view/view-state.js';
import { answered, run, types } from './view-machine-steps.js';

const errorDetail = (effects: ViewEffect[]) => effects.find((e) => e.type === 'emit' && e.name === 'esign-error') as { detail: { hop?: string } } | undefined;
const idle = initialViewState('signature_status');
const requesting = (display: 'inline' | 'popup' = 'inline') => run(idle, { type: 'open', display }).state;
const loading = () => run(requesting(), answered(requesting())).state;
const proxyDown = () => failedAt('token-proxy', new EsignError('network_error', 'Could not reach the token proxy.'));
const serviceDown = () => new EsignError('view_failed', 'The service did not give an embedded page', { status: 503 });
const timedOut = () => new EsignError('frame_blocked', 'no ready within 15 s');

describe('view machine: what could not be reached', () => {
  it('the token proxy down while online is not "offline": told as token-proxy, tried again after a backoff', () => {
    const asked = requesting();
    const { state, effects } = run(asked, { type: 'url-failed', request: asked.request, error: proxyDown(), online: true });
    assert.equal(state.status, 'error');
    assert.equal(state.unreachable, 'token-proxy');
    assert.equal(state.resumeOnline, false, 'no online event will come: the browser never went offline');
    assert.equal(state.retrying, true);
    assert.deepEqual(types(effects), ['cancel', 'esign-error']);
    assert.equal(errorDetail(effects)?.detail.hop, 'token-proxy');
    // the error state's activity: the backoff's wait, keyed by the try (a new failure restarts it)
    assert.deepEqual(activities(state), [{ type: 'retry-wait', key: 'retry-1', attempt: 0 }]);
  });

  it('a try that is due while visible asks again; each failure backs off further; a Url ends the backoff', () => {
    let state = requesting();
    for (let attempt = 0; attempt < 3; attempt++) {
      const failed = run(state, { type: 'url-failed', request: state.request, error: proxyDown(), online: true });
      assert.deepEqual(activities(failed.state), [{ type: 'retry-wait', key: `retry-${attempt + 1}`, attempt }]);
      const due = run(failed.state, { type: 'retry-due', visible: true });
      assert.equal(due.state.status, 'requesting');
      assert.deepEqual(types(due.effects), ['cancel', 'request-url']);
      state = due.state;
    }
    const loaded = run(state, answered(state), { type: 'page-ready' }).state;
    assert.equal(loaded.status, 'loaded');
    assert.equal(loaded.retries, 0);
  });

  it('a try due while hidden waits: the next look (visible, focus) tries at once', () => {
    const asked = requesting();
    const down = run(asked, { type: 'url-failed', request: asked.request, error: serviceDown(), online: true }).state;
    assert.equal(down.unreachable, 'service');
    assert.deepEqual(run(down, { type: 'retry-due', visible: false }), { state: down, effects: [] });
    assert.equal(run(down, { type: 'retry-due', visible: true }).state.status, 'requesting');
  });

  it('an answer retrying cannot fix stops the tries, and its words promise none', () => {
    const asked = requesting();
    const down = run(asked, { type: 'url-failed', request: asked.request, error: proxyDown(), online: true }).state;
    const again = run(down, { type: 'retry-due', visible: true }).state;
    const refused = failedAt('token-proxy', new EsignError('session_expired', 'connect again', { status: 400 }));
    const { state, effects } = run(again, { type: 'url-failed', request: again.request, error: refused, online: true });
    assert.equal(state.retrying, false);
    assert.equal(state.unreachable, undefined);
    assert.deepEqual(types(effects), ['cancel', 'esign-error']);
    assert.deepEqual(run(state, { type: 'retry-due', visible: true }).effects, []);
    // a 4xx of the service, a rejected Url: no tries either
    const bad = run(asked, { type: 'url-failed', request: asked.request, error: new EsignError('view_failed', 'bad', { status: 400 }), online: true });
    assert.equal(bad.state.retrying, false);
  });

  it('offline is said only when the browser says so, and then waits for the connection, not a timer', () => {
    const asked = requesting();
    const { state, effects } = run(asked, { type: 'url-failed', request: asked.request, error: proxyDown(), online: false });
    assert.equal(state.unreachable, 'offline');
    assert.equal(state.resumeOnline, true);
    assert.equal(state.retrying, false);
    assert.deepEqual(types(effects), ['cancel', 'esign-error']);
    assert.equal(run(state, { type: 'back-online' }).state.status, 'requesting');
  });

  it('a popup request is not tried again by itself (a new window needs a click)', () => {
    const asked = requesting('popup');
    const { state } = run(asked, { type: 'url-failed', request: asked.request, error: serviceDown(), online: true });
    assert.equal(state.unreachable, 'service');
    assert.equal(state.retrying, false);
  });

  it('the one wait before a try: the backoff, never sooner than the Retry-After the failure carried (wrapped or not)', () => {
    const asked = requesting();
    const busy = new EsignError('view_failed', 'wrapped', { status: 503, cause: new EsignError('service_error', 'busy', { status: 503, retryAfter: 120 }) });
    const { state } = run(asked, { type: 'url-failed', request: asked.request, error: busy, online: true });
    assert.equal(state.retrying, true);
    assert.deepEqual(activities(state), [{ type: 'retry-wait', key: 'retry-1', attempt: 0, retryAfter: 120 }]);
    // a person looking again (focus, shown) tries once at once all the same, as a click on Try again does
    assert.equal(run(state, { type: 'retry-due', visible: true }).state.status, 'requesting');
  });

  it('the person closing or opening again ends the tries', () => {
    const asked = requesting();
    const down = run(asked, { type: 'url-failed', request: asked.request, error: proxyDown(), online: true }).state;
    const closed = run(down, { type: 'closed' }).state;
    assert.equal(closed.retrying, false);
    assert.deepEqual(run(closed, { type: 'retry-due', visible: true }).effects, []);
    assert.equal(run(down, { type: 'open', display: 'inline' }).state.retries, 0);
  });
});

describe('view machine: a frame whose page cannot load offline', () => {
  it('going offline while the page loads says so at once and reopens when the connection returns', () => {
    const { state, effects } = run(loading(), { type: 'went-offline' });
    assert.equal(state.status, 'error');
    assert.equal(state.error?.code, 'network_error');
    assert.equal(state.unreachable, 'offline');
    assert.deepEqual(types(effects), ['cancel', 'esign-error']);
    assert.equal(errorDetail(effects)?.detail.hop, 'offline');
    const back = run(state, { type: 'back-online' });
    assert.deepEqual(types(back.effects), ['cancel', 'request-url']);
  });

  it('a loaded page is not taken away by going offline; nor is a request under way (its own failure tells)', () => {
    const loaded = run(loading(), { type: 'page-ready' }).state;
    assert.deepEqual(run(loaded, { type: 'went-offline' }).effects, []);
    assert.deepEqual(run(requesting(), { type: 'went-offline' }).effects, []);
  });

  it('the load timeout while offline is offline, not a CSP guess', () => {
    const { state } = run(loading(), { type: 'ready-timeout', error: timedOut(), online: false });
    assert.equal(state.unreachable, 'offline');
    assert.equal(state.resumeOnline, true);
    assert.equal(state.slow, false);
  });
});

describe('view machine: a page slow to say ready (issue 46)', () => {
  it('the load timeout keeps the page (no cancel) and tells frame_blocked with hop page', () => {
    const before = loading();
    const { state, effects } = run(before, { type: 'ready-timeout', error: timedOut(), online: true });
    assert.equal(state.status, 'error');
    assert.equal(state.error?.code, 'frame_blocked');
    assert.equal(state.slow, true);
    assert.equal(state.shownIn, 'inline', 'the frame stays');
    assert.deepEqual(types(effects), ['esign-error'], 'nothing cancelled: the page stays as it is');
    assert.equal(errorDetail(effects)?.detail.hop, 'page');
  });

  it('a late ready recovers the page: loaded, the error gone, nothing replaced', () => {
    const slow = run(loading(), { type: 'ready-timeout', error: timedOut(), online: true }).state;
    const { state, effects } = run(slow, { type: 'page-ready' });
    assert.equal(state.status, 'loaded');
    assert.equal(state.error, undefined);
    assert.equal(state.slow, false);
    assert.equal(state.request, slow.request, 'no new Url asked for');
    assert.deepEqual(types(effects), ['esign-view-loaded']);
  });

  it('the slow page still speaks: its envelope or error counts; Retry (open) replaces it; offline drops it', () => {
    const slow = run(loading(), { type: 'ready-timeout', error: timedOut(), online: true }).state;
    assert.equal(run(slow, { type: 'page-error', code: 'boom', shown: true }).state.error?.code, 'view_failed');
    assert.deepEqual(types(run(slow, { type: 'open', display: 'inline' }).effects), ['cancel', 'request-url']);
    assert.equal(run(slow, { type: 'went-offline' }).state.unreachable, 'offline');
    // a timeout after ready, or twice, does nothing
    const loaded = run(loading(), { type: 'page-ready' }).state;
    assert.deepEqual(run(loaded, { type: 'ready-timeout', error: timedOut(), online: true }).effects, []);
    assert.deepEqual(run(slow, { type: 'ready-timeout', error: timedOut(), online: true }).effects, []);
  });
});
