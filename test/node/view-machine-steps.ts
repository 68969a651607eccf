/**
 * What the view machine's node tests share (view-machine*.test.ts, view-prebuild.test.ts): running events through
 * `transition`, the effects by name, the host's facts, and a Url answered for the latest request.
 */
import { transition } from '../../src/elements/embedded-view/machine.js';
import type { HostFacts, ViewEffect, ViewEvent } from '../../src/elements/embedded-view/machine-types.js';
import type { ViewState } from '../../src/elements/embedded-view/view-state.js';

export const ORIGIN = 'https://esign.example.com';
export const EXPIRES = '2030-01-01T00:00:00Z';

/** Runs `events` from `state`; returns the last state and every effect on the way. */
export function run(state: ViewState, ...events: ViewEvent[]): { state: ViewState; effects: ViewEffect[] } {
  const effects: ViewEffect[] = [];
  for (const event of events) {
    const next = transition(state, event);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** The effects by type, an event by its name. */
export const types = (effects: ViewEffect[]) => effects.map((e) => (e.type === 'emit' ? e.name : e.type));

/** The host's facts: an inline element with a session and FileIds, shown, with `auto`, settings valid; `over` changes some. */
export const hostFacts = (over: Partial<HostFacts> = {}): ViewEvent => ({
  type: 'host',
  facts: { problem: undefined, session: true, shown: true, inline: true, auto: true, hasFiles: true, autoKey: 'k1', ...over },
});

/** The service's answer to `state`'s latest Url request. */
export const answered = (state: ViewState): ViewEvent => ({
  type: 'url-answered',
  request: state.request,
  url: `${ORIGIN}/view?token=t`,
  origin: ORIGIN,
  expiresAt: EXPIRES,
});
