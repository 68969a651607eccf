/**
 * The idle pre-build of a blank frame is an activity of the states that wait for a Url (issue 45): the machine says
 * when (`activities`), view-activities.ts builds the frame in idle time on entering and forgets it on leaving.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { activities } from '../../src/elements/embedded-view/machine.js';
import type { HostFacts, ViewEvent } from '../../src/elements/embedded-view/machine-types.js';
import { ViewActivities } from '../../src/elements/embedded-view/view-activities.js';
import { initialViewState, type ViewState } from '../../src/elements/embedded-view/view-state.js';
import { answered, hostFacts, run } from './view-machine-steps.js';

/** The state after `events`. */
const after = (state: ViewState, ...events: ViewEvent[]): ViewState => run(state, ...events).state;
/** An inline element with a session, shown, settings valid, without `auto` (it waits for the person). */
const host = (over: Partial<HostFacts> = {}): ViewEvent => hostFacts({ auto: false, ...over });
const prebuilds = (state: ViewState): boolean => activities(state).some((a) => a.type === 'frame-prebuild');
const waiting = after(initialViewState('request_signatures'), host());

describe('view machine: the frame is pre-built while the view waits for a Url', () => {
  it('an idle view, inline, seen, with a session and valid settings has the pre-build; one fact missing, not', () => {
    assert.deepEqual(activities(waiting), [{ type: 'frame-prebuild', key: 'prebuild' }]);
    assert.equal(prebuilds(initialViewState('request_signatures')), false, 'before the host said anything');
    for (const missing of [{ session: false }, { inline: false }, { shown: false }, { problem: 'load-timeout is not a number' }]) {
      assert.equal(prebuilds(after(waiting, host(missing))), false, JSON.stringify(missing));
    }
    assert.equal(prebuilds(after(waiting, host({ inline: false }), host())), true, 'back inline: again');
  });

  it('asking for a Url leaves it (the request adopts the frame); expired and sent wait again, loading, loaded and error do not', () => {
    const requested = after(waiting, { type: 'open', display: 'inline' });
    assert.equal(prebuilds(requested), false, 'requesting');
    const loading = after(requested, answered(requested), { type: 'page-placed' });
    assert.equal(prebuilds(loading), false, 'loading');
    assert.equal(prebuilds(after(loading, { type: 'page-ready' })), false, 'loaded');
    assert.equal(prebuilds(after(loading, { type: 'page-error', code: 'url_expired', shown: false })), true, 'expired');
    assert.equal(prebuilds(after(loading, { type: 'envelope-sent', envelopeId: 'e1', status: 'sent', fileIds: ['f1'] })), true, 'sent');
    assert.equal(prebuilds(after(requested, { type: 'failed', error: new EsignError('no_files', 'No FileIds') })), false, 'error');
    assert.equal(prebuilds(after(requested, { type: 'closed' })), true, 'closed: idle again');
  });

  it('leaving the page stops it; seen again in the page, it starts again', () => {
    const gone = after(waiting, { type: 'hidden' });
    assert.equal(prebuilds(gone), false);
    assert.equal(prebuilds(after(gone, host())), true);
  });
});

describe('view activities: the pre-build starts on entering, stops on leaving', () => {
  /** The idle callbacks asked for and not cancelled (the browser's requestIdleCallback, run by the test). */
  let idle: Map<number, () => void>;
  const globals = globalThis as { requestIdleCallback?: unknown; cancelIdleCallback?: unknown };
  beforeEach(() => {
    idle = new Map();
    let next = 0;
    globals.requestIdleCallback = (callback: () => void) => (idle.set(++next, callback), next);
    globals.cancelIdleCallback = (handle: number) => idle.delete(handle);
  });
  afterEach(() => {
    delete globals.requestIdleCallback;
    delete globals.cancelIdleCallback;
  });

  function activitiesWith() {
    const calls: string[] = [];
    const running = new ViewActivities({
      send: () => undefined,
      shown: () => true,
      heldUntil: () => undefined,
      popupOpen: () => false,
      loadTimeout: () => 0,
      prebuildFrame: () => calls.push('build'),
      forgetPrebuiltFrame: () => calls.push('forget'),
    });
    return { calls, running };
  }
  const runIdle = (): void => [...idle.values()].forEach((callback) => callback());

  it('builds the frame in idle time, once per state that waits; leaving forgets it', () => {
    const { calls, running } = activitiesWith();
    running.sync(waiting);
    assert.deepEqual(calls, [], 'not at once: in idle time');
    runIdle();
    assert.deepEqual(calls, ['build']);
    running.sync(after(waiting, host({ autoKey: 'k2' })));
    assert.deepEqual(calls, ['build'], 'the same activity: kept, not built again');
    running.sync(after(waiting, { type: 'open', display: 'inline' }));
    assert.deepEqual(calls, ['build', 'forget'], 'requesting: stopped');
  });

  it('a state left before idle time builds nothing', () => {
    const { calls, running } = activitiesWith();
    running.sync(waiting);
    running.sync(after(waiting, host({ session: false })));
    assert.equal(idle.size, 0, 'the idle callback was cancelled');
    runIdle();
    assert.deepEqual(calls, ['forget']);
  });
});
