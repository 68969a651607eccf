import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { activities, MAX_AUTO_RENEWALS } from '../../src/elements/embedded-view/machine.js';
import { initialViewState, type ViewState } from '../../src/elements/embedded-view/view-state.js';
import { answered, EXPIRES, ORIGIN, run, types } from './view-machine-steps.js';

const idle = initialViewState('request_signatures');
/** Opened inline and answered: `loading`, the Url on its way to the frame. */
function loading(display: 'inline' | 'popup' = 'inline'): ViewState {
  const requesting = run(idle, { type: 'open', display }).state;
  return run(requesting, answered(requesting)).state;
}
const loaded = () => run(loading(), { type: 'page-ready' }).state;

describe('view machine', () => {
  it('starts idle with nothing asked for', () => {
    assert.equal(idle.status, 'idle');
    assert.equal(idle.renewals, 0);
    assert.equal(idle.request, 0);
  });

  it('open asks for a Url for the display, dropping any page first', () => {
    const { state, effects } = run(idle, { type: 'open', display: 'popup' });
    assert.equal(state.status, 'requesting');
    assert.equal(state.shownIn, 'popup');
    assert.deepEqual(effects, [
      { type: 'cancel', keepPopup: true },
      { type: 'request-url', request: 1, display: 'popup' },
    ]);
  });

  it('open starts the renewals again', () => {
    const renewing = run(loading(), { type: 'url-expiring', shown: true }).state;
    assert.equal(renewing.renewals, 1);
    assert.equal(run(renewing, { type: 'open', display: 'inline' }).state.renewals, 0);
  });

  it('an answer makes the page load: view-ready (origin, no Url), then show it', () => {
    const requesting = run(idle, { type: 'open', display: 'inline' }).state;
    const { state, effects } = run(requesting, answered(requesting));
    assert.equal(state.status, 'loading');
    assert.equal(state.origin, ORIGIN);
    assert.equal(state.expiresAt, EXPIRES);
    assert.deepEqual(effects, [
      { type: 'emit', name: 'esign-view-ready', detail: { origin: ORIGIN, expiresAt: EXPIRES, operateType: 'request_signatures' } },
      { type: 'show-page', display: 'inline', url: `${ORIGIN}/view?token=t`, expiresAt: EXPIRES },
    ]);
    assert.equal(JSON.stringify(state).includes('token'), false, 'the Url (it carries a token) never enters the state');
  });

  it('ignores the answer or failure of a superseded request, and any when not requesting', () => {
    const first = run(idle, { type: 'open', display: 'inline' }).state;
    const second = run(first, { type: 'open', display: 'inline' }).state;
    assert.equal(second.request, first.request + 1);
    assert.deepEqual(run(second, answered(first)), { state: second, effects: [] });
    const error = new EsignError('view_failed', 'no');
    assert.deepEqual(run(second, { type: 'url-failed', request: first.request, error, online: true }), { state: second, effects: [] });
    const closed = run(second, { type: 'closed' }).state;
    assert.deepEqual(run(closed, answered(second)).effects, []);
  });

  it('a failed request is the error state, told once; offline, it opens again when the connection returns', () => {
    const requesting = run(idle, { type: 'open', display: 'inline' }).state;
    const rejected = new EsignError('url_rejected', 'not trusted');
    const failed = run(requesting, { type: 'url-failed', request: requesting.request, error: rejected, online: true });
    assert.equal(failed.state.status, 'error');
    assert.equal(failed.state.error, rejected);
    assert.equal(failed.state.resumeOnline, false);
    assert.deepEqual(failed.state.lastResult, { event: 'esign-error', detail: { error: rejected } });
    assert.deepEqual(types(failed.effects), ['cancel', 'esign-error']);
    assert.deepEqual(run(failed.state, { type: 'back-online' }).effects, []);

    const offline = new EsignError('network_error', 'offline');
    const down = run(requesting, { type: 'url-failed', request: requesting.request, error: offline, online: false }).state;
    assert.equal(down.resumeOnline, true);
    const back = run(down, { type: 'back-online' });
    assert.equal(back.state.status, 'requesting');
    assert.equal(back.state.resumeOnline, false);
    assert.deepEqual(types(back.effects), ['cancel', 'request-url']);
    // once: a second "online" finds it requesting
    assert.deepEqual(run(back.state, { type: 'back-online' }).effects, []);
  });

  it('back online does nothing unless an offline failure waits for it', () => {
    assert.deepEqual(run(idle, { type: 'back-online' }).effects, []);
    assert.deepEqual(run(loaded(), { type: 'back-online' }).effects, []);
    // another failure after the offline one (a CSP block) does not open again
    const requesting = run(idle, { type: 'open', display: 'inline' }).state;
    const down = run(requesting, { type: 'url-failed', request: requesting.request, error: new EsignError('network_error', 'offline'), online: false }).state;
    const blocked = run(down, { type: 'failed', error: new EsignError('csp_blocked', 'connect-src') }).state;
    assert.equal(blocked.error?.code, 'csp_blocked');
    assert.deepEqual(run(blocked, { type: 'back-online' }).effects, []);
  });

  it('ready: loaded, told once, renewals counted from zero again', () => {
    const renewed = run(loading(), { type: 'url-expiring', shown: true });
    const again = run(renewed.state, answered(renewed.state)).state;
    assert.equal(again.renewals, 1);
    const ready = run(again, { type: 'page-ready' });
    assert.equal(ready.state.status, 'loaded');
    assert.equal(ready.state.renewals, 0);
    assert.deepEqual(ready.effects, [{ type: 'emit', name: 'esign-view-loaded', detail: { origin: ORIGIN } }]);
    assert.deepEqual(run(ready.state, { type: 'page-ready' }).effects, []);
    // no page, no ready
    assert.deepEqual(run(idle, { type: 'page-ready' }), { state: idle, effects: [] });
  });

  it('a held Url that expires is renewed while shown, counted, at most MAX_AUTO_RENEWALS times', () => {
    let state = loading();
    for (let n = 1; n <= MAX_AUTO_RENEWALS; n++) {
      const next = run(state, { type: 'url-expiring', shown: true });
      assert.equal(next.state.status, 'requesting');
      assert.equal(next.state.renewals, n);
      assert.deepEqual(next.effects[0], { type: 'emit', name: 'esign-view-expired', detail: { expiresAt: EXPIRES, renewing: true } });
      assert.deepEqual(types(next.effects), ['esign-view-expired', 'cancel', 'request-url']);
      state = run(next.state, answered(next.state)).state;
    }
    const stop = run(state, { type: 'url-expiring', shown: true });
    assert.equal(stop.state.status, 'expired');
    assert.deepEqual(types(stop.effects), ['cancel', 'esign-view-expired']);
    assert.equal((stop.effects[1] as { detail: { renewing: boolean } }).detail.renewing, false);
  });

  it('a held Url that expires out of sight makes the view expired; seen again, a new Url is asked for (counted)', () => {
    const hidden = run(loading(), { type: 'url-expiring', shown: false });
    assert.equal(hidden.state.status, 'expired');
    assert.equal(hidden.state.shownIn, 'inline');
    assert.deepEqual(hidden.effects[1], { type: 'emit', name: 'esign-view-expired', detail: { expiresAt: EXPIRES, renewing: false } });
    const seen = run(hidden.state, { type: 'shown' });
    assert.equal(seen.state.status, 'requesting');
    assert.equal(seen.state.renewals, 1);
    assert.deepEqual(types(seen.effects), ['cancel', 'request-url']);
    // a Url that expires while nothing is held (requesting, loaded) is not one
    assert.deepEqual(run(loaded(), { type: 'url-expiring', shown: true }).effects, []);
  });

  it('shown does nothing unless expired inline', () => {
    assert.deepEqual(run(loaded(), { type: 'shown' }).effects, []);
    const popupExpired = run(loading('popup'), { type: 'url-expiring', shown: false }).state;
    assert.equal(popupExpired.status, 'expired');
    assert.deepEqual(run(popupExpired, { type: 'shown' }).effects, []);
  });

  it('a page that says its Url expired is renewed like an expired Url, and stops after MAX_AUTO_RENEWALS', () => {
    let state = loaded();
    for (const code of ['url_expired', 'url_used']) {
      const next = run(state, { type: 'page-error', code, shown: true });
      assert.equal(next.state.status, 'requesting');
      state = run(next.state, answered(next.state)).state;
    }
    assert.equal(state.renewals, MAX_AUTO_RENEWALS);
    const stop = run(state, { type: 'page-error', code: 'session_expired', shown: true });
    assert.equal(stop.state.status, 'expired');
    // not shown: expired at once
    assert.equal(run(loaded(), { type: 'page-error', code: 'url_expired', shown: false }).state.status, 'expired');
  });

  it('any other page error is view_failed with the page code', () => {
    const { state, effects } = run(loaded(), { type: 'page-error', code: 'boom', shown: true });
    assert.equal(state.status, 'error');
    assert.equal(state.error?.code, 'view_failed');
    assert.equal(state.error?.serviceCode, 'boom');
    assert.deepEqual(types(effects), ['cancel', 'esign-error']);
    assert.deepEqual(run(idle, { type: 'page-error', code: 'boom', shown: true }).effects, []);
  });

  it('a sent envelope: the sent state, told to the page and the other tabs, the popup kept', () => {
    const { state, effects } = run(loaded(), { type: 'envelope-sent', envelopeId: 'env_1', status: 'sent', fileIds: ['f1'] });
    const detail = { envelopeId: 'env_1', fileIds: ['f1'], status: 'sent' };
    assert.equal(state.status, 'sent');
    assert.equal(state.sentEnvelopeId, 'env_1');
    assert.deepEqual(state.lastResult, { event: 'esign-envelope-sent', detail });
    assert.deepEqual(effects, [
      { type: 'cancel', keepPopup: true },
      { type: 'emit', name: 'esign-envelope-sent', detail },
      { type: 'tell-tabs', detail },
    ]);
    // the contract list sends none; nor does a view without a page
    const list = initialViewState('signature_status');
    const listLoading = run(list, { type: 'open', display: 'inline' }).state;
    const listLoaded = run(listLoading, answered(listLoading), { type: 'page-ready' }).state;
    assert.deepEqual(run(listLoaded, { type: 'envelope-sent', envelopeId: 'e', status: 'sent', fileIds: [] }).effects, []);
    assert.deepEqual(run(idle, { type: 'envelope-sent', envelopeId: 'e', status: 'sent', fileIds: [] }).effects, []);
  });

  it('hidden (left the document) drops the page, and a frame whose Url was given asks for a new one when back', () => {
    for (const before of [
      loading(),
      loaded(),
      run(idle, { type: 'open', display: 'inline' }).state,
      run(loading(), { type: 'url-expiring', shown: false }).state,
    ]) {
      const gone = run(before, { type: 'hidden' });
      assert.equal(gone.state.status, 'idle', before.status);
      assert.equal(gone.state.reopen, true, before.status);
      assert.deepEqual(gone.effects, [{ type: 'cancel' }]);
      const back = run(gone.state, { type: 'reattached' });
      assert.equal(back.state.status, 'requesting');
      assert.equal(back.state.reopen, false);
      assert.deepEqual(types(back.effects), ['cancel', 'request-url']);
    }
    // a popup, or nothing open: nothing to ask for again
    assert.equal(run(loading('popup'), { type: 'hidden' }).state.reopen, false);
    assert.equal(run(idle, { type: 'hidden' }).state.reopen, false);
    assert.deepEqual(run(run(idle, { type: 'hidden' }).state, { type: 'reattached' }).effects, []);
  });

  it('a sent envelope stays said when the element leaves and comes back', () => {
    const sent = run(loaded(), { type: 'envelope-sent', envelopeId: 'env_1', status: 'sent', fileIds: ['f1'] }).state;
    const gone = run(sent, { type: 'hidden' }).state;
    assert.equal(gone.status, 'sent');
    assert.equal(gone.sentEnvelopeId, 'env_1');
    assert.deepEqual(run(gone, { type: 'reattached' }).effects, []);
  });

  it('reattached while a frame shows a used Url (the back/forward cache) asks for a new one', () => {
    const restored = run(loaded(), { type: 'reattached' });
    assert.equal(restored.state.status, 'requesting');
    assert.deepEqual(types(restored.effects), ['cancel', 'request-url']);
    assert.deepEqual(run(run(loading('popup'), { type: 'page-ready' }).state, { type: 'reattached' }).effects, []);
  });

  it('closed goes back to idle from any page, sent or error state', () => {
    const sent = run(loaded(), { type: 'envelope-sent', envelopeId: 'env_1', status: 'sent', fileIds: ['f1'] }).state;
    const failed = run(idle, { type: 'failed', error: new EsignError('no_session', 'no') }).state;
    for (const before of [loading(), loaded(), sent, failed, run(idle, { type: 'open', display: 'popup' }).state]) {
      const { state, effects } = run(before, { type: 'closed' });
      assert.equal(state.status, 'idle');
      assert.equal(state.shownIn, undefined);
      assert.equal(state.error, undefined);
      assert.equal(state.sentEnvelopeId, undefined);
      assert.deepEqual(effects, [{ type: 'cancel' }]);
    }
    assert.deepEqual(run(idle, { type: 'closed' }).effects, []);
  });

  it('failed: the error state from anywhere, the page dropped', () => {
    const error = new EsignError('frame_blocked', 'did not load');
    const { state, effects } = run(loading(), { type: 'failed', error });
    assert.equal(state.status, 'error');
    assert.equal(state.error, error);
    assert.equal(state.origin, ORIGIN, 'the origin stays for the error text');
    assert.equal(state.shownIn, undefined);
    assert.deepEqual(effects, [{ type: 'cancel' }, { type: 'emit', name: 'esign-error', detail: { error, hop: 'page' } }]);
  });

  it('states own their activities: entering loading starts the expiry watch, placing starts the ready wait, leaving stops them', () => {
    const keys = (state: ViewState) => activities(state).map((a) => a.type);
    assert.deepEqual(keys(idle), []);
    const held = loading();
    assert.deepEqual(keys(held), ['expiry-watch'], 'a held Url is watched for its expiry');
    const placed = run(held, { type: 'page-placed' }).state;
    assert.equal(placed.placed, true);
    assert.deepEqual(keys(placed), ['ready-wait'], 'given to its frame: no expiry watch, the ready wait');
    assert.deepEqual(run(placed, { type: 'url-expiring', shown: true }), { state: placed, effects: [] }, 'a placed page expires by its own message');
    assert.deepEqual(keys(run(placed, { type: 'page-ready' }).state), [], 'loaded: nothing waits');
    const popup = run(loading('popup'), { type: 'page-placed' }).state;
    assert.deepEqual(keys(popup), ['ready-wait', 'popup-watch']);
    assert.deepEqual(keys(run(popup, { type: 'page-ready' }).state), ['popup-watch'], 'the popup is watched while its page lasts');
    assert.deepEqual(keys(run(popup, { type: 'closed' }).state), []);
    // a new Url restarts them: their keys name the request
    const renewed = run(placed, { type: 'page-error', code: 'url_expired', shown: true }).state;
    const again = run(renewed, answered(renewed)).state;
    assert.notDeepEqual(activities(again), activities(held));
  });
});
