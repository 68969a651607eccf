/**
 * The view machine decides what the host's facts mean (issue 45): auto-open, re-open after the back/forward cache or a
 * move, settings faults, CSP blocks. The controller only reports them (the `host`, `page-restored`, `csp-blocked` events).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { cspBlocked } from '../../src/core/service/csp-violation.js';
import { initialViewState } from '../../src/elements/embedded-view/view-state.js';
import { answered, hostFacts, ORIGIN, run, types } from './view-machine-steps.js';

const idle = initialViewState('request_signatures');
const facts = hostFacts;

describe('view machine: the host decides nothing, the machine does', () => {
  it('auto opens once per key: the same facts again do nothing, new FileIds open again', () => {
    const opened = run(idle, facts());
    assert.equal(opened.state.status, 'requesting');
    assert.deepEqual(types(opened.effects), ['cancel', 'request-url']);
    assert.deepEqual(run(opened.state, facts()).effects, [], 'the same session, Space, origins and FileIds: not again');
    const loaded = run(opened.state, answered(opened.state), { type: 'page-placed' }, { type: 'page-ready' }, facts()).state;
    assert.equal(loaded.status, 'loaded');
    assert.deepEqual(types(run(loaded, facts({ autoKey: 'k2' })).effects), ['cancel', 'request-url']);
  });

  it('auto waits for everything it needs: a session, FileIds, inline display, `auto` itself', () => {
    for (const missing of [{ session: false }, { hasFiles: false }, { inline: false }, { auto: false }]) {
      assert.equal(run(idle, facts(missing)).state.status, 'idle', JSON.stringify(missing));
    }
  });

  it('a click counts as auto’s opening for the same key', () => {
    const clicked = run(idle, { type: 'open', display: 'inline', autoKey: 'k1' }).state;
    const closed = run(clicked, { type: 'closed' }).state;
    assert.deepEqual(run(closed, facts()).effects, [], 'closed by the person: auto does not open the same files again');
  });

  it('the session gone closes the page and forgets the key', () => {
    const loading = run(idle, facts(), answered(run(idle, facts()).state)).state;
    const gone = run(loading, facts({ session: false }));
    assert.equal(gone.state.status, 'idle');
    assert.equal(gone.state.autoKey, '');
    assert.deepEqual(types(run(gone.state, facts()).effects), ['cancel', 'request-url'], 'back: auto opens again');
  });

  it('a settings fault is reported once, and once fixed the view is idle and auto may open again', () => {
    const bad = run(idle, facts({ problem: 'load-timeout is not a number' }));
    assert.equal(bad.state.status, 'error');
    assert.equal(bad.state.error?.code, 'invalid_config');
    assert.deepEqual(types(bad.effects), ['cancel', 'esign-error']);
    assert.deepEqual(run(bad.state, facts({ problem: 'load-timeout is not a number' })).effects, [], 'not told twice');
    assert.equal(run(bad.state, facts({ problem: 'display is not inline or popup' })).state.error?.message, 'display is not inline or popup');
    const fixed = run(bad.state, facts({ auto: false }));
    assert.equal(fixed.state.status, 'idle');
    assert.equal(fixed.state.problem, undefined);
    const reopened = run(bad.state, facts());
    assert.equal(reopened.state.status, 'requesting', 'fixed with auto: it opens');
    assert.equal(types(reopened.effects).at(-1), 'request-url');
  });

  it('re-opens after a move or the back/forward cache: a frame’s used Url is replaced, a popup is not', () => {
    const requested = run(idle, facts()).state;
    const loading = run(requested, answered(requested), { type: 'page-placed' }).state;
    const moved = run(loading, { type: 'hidden' }).state;
    assert.equal(moved.reopen, true);
    assert.equal(moved.autoKey, '', 'left the page: auto may open again');
    const back = run(moved, facts());
    assert.equal(back.state.status, 'requesting');
    assert.equal(back.state.reopen, false);
    assert.equal(back.state.autoKey, 'k1', 'the re-open is auto’s opening too: not a second request');
    assert.equal(back.effects.filter((e) => e.type === 'request-url').length, 1);

    const restored = run(loading, { type: 'page-restored' }, facts({ auto: false }));
    assert.deepEqual(types(restored.effects), ['cancel', 'request-url'], 'restored from the cache: a new Url');
    assert.equal(restored.state.restored, false);
    assert.deepEqual(run(idle, { type: 'page-restored' }, facts({ auto: false })).effects, [], 'nothing was open: nothing to re-open');
  });

  it('an expired page is renewed when the element is seen again, not while it stays hidden', () => {
    const requested = run(idle, facts({ auto: false, shown: false }), { type: 'open', display: 'inline' }).state;
    const expired = run(requested, answered(requested), { type: 'url-expiring', shown: false }).state;
    assert.equal(expired.status, 'expired');
    assert.deepEqual(run(expired, facts({ auto: false, shown: false })).effects, []);
    assert.equal(run(expired, facts({ auto: false })).state.status, 'requesting');
  });

  it('CSP: a blocked frame fails the frame at once; a blocked call is what the request’s failure means', () => {
    const requested = run(idle, facts()).state;
    const loading = run(requested, answered(requested)).state;
    const frame = run(loading, { type: 'csp-blocked', error: cspBlocked('frame-src', ORIGIN) });
    assert.equal(frame.state.error?.code, 'csp_blocked');
    assert.deepEqual(run(idle, { type: 'csp-blocked', error: cspBlocked('frame-src', ORIGIN) }).effects, [], 'no frame of that origin: nothing');

    const blocked = run(requested, { type: 'csp-blocked', error: cspBlocked('connect-src', ORIGIN) });
    assert.deepEqual(blocked.effects, [], 'told when the request fails');
    const failed = run(blocked.state, {
      type: 'url-failed',
      request: requested.request,
      error: new EsignError('network_error', 'Failed to fetch'),
      online: true,
    });
    assert.equal(failed.state.error?.code, 'csp_blocked');
    assert.equal(failed.state.error?.directive, 'connect-src');

    // the violation told after the failure turns the network error into what it is
    const network = run(requested, {
      type: 'url-failed',
      request: requested.request,
      error: new EsignError('network_error', 'Failed to fetch'),
      online: true,
    }).state;
    assert.equal(run(network, { type: 'csp-blocked', error: cspBlocked('connect-src', ORIGIN) }).state.error?.code, 'csp_blocked');
    assert.equal(run(run(network, facts()).state, { type: 'open', display: 'inline' }).state.cspError, undefined, 'a new request starts clean');
  });

  it('open() with a settings fault or a refused popup is an error, not a request', () => {
    const bad = run(idle, { type: 'open', display: 'inline', problem: 'allowed-origins has no origin' });
    assert.equal(bad.state.error?.code, 'invalid_config');
    assert.equal(bad.state.error?.message, 'allowed-origins has no origin');
    assert.deepEqual(types(bad.effects), ['cancel', 'esign-error']);
    const blocked = run(idle, { type: 'open', display: 'popup', blocked: true });
    assert.equal(blocked.state.error?.code, 'popup_blocked');
    assert.equal(blocked.state.request, idle.request, 'nothing asked for');
  });
});
