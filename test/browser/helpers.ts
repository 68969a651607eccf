/** Shared helpers of the browser tests: mounting, events, waiting, the services' config, real clicks, the consent page. */
import { expect, fixtureSync, html, oneEvent } from '@open-wc/testing';
import { executeServerCommand, sendMouse } from '@web/test-runner-commands';
import { clear, createStore } from 'idb-keyval';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignEventDetailMap, EsignEventName } from '../../src/elements/shared/events.js';
import type { SessionInfo } from '../../src/core/session/session-manager.js';
import type { BrowserTestConfig } from '../helpers/services.js';

export const cfg = (window as unknown as { __ESIGN_TEST__: BrowserTestConfig }).__ESIGN_TEST__;

// ---- a failed assertion reaches the runner as a failure ----
//
// The page sends its results through @web/dev-server-core's `stable()`, which begins with structuredClone: a failed
// assertion whose actual or expected value is a DOM node or a window (`expect(frame).to.equal(null)`) makes it throw,
// the page never reports, and the runner waits for testsFinishTimeout ("did not finish", no result at all; upstream:
// modernweb-dev/web#2967, open-wc/open-wc#2880). Every failure's actual and expected are made cloneable as soon as
// mocha records it; chai's message already names them.

/** `value`, or a string naming it when structuredClone cannot copy it. */
function cloneable(value: unknown): unknown {
  try {
    structuredClone(value);
    return value;
  } catch {
    const html = (value as { outerHTML?: unknown } | null)?.outerHTML;
    if (typeof html === 'string') return html.length > 300 ? `${html.slice(0, 300)}…` : html;
    try {
      return String(value);
    } catch {
      return Object.prototype.toString.call(value); // e.g. a window of another origin
    }
  }
}

function reportable(error: unknown): void {
  if (typeof error !== 'object' || error === null) return;
  const fields = error as { actual?: unknown; expected?: unknown };
  if ('actual' in fields) fields.actual = cloneable(fields.actual);
  if ('expected' in fields) fields.expected = cloneable(fields.expected);
}

before(() => {
  // every failure, hooks and late ones included; the afterEach below covers a runner that does not expose itself
  (window as { __WTR_MOCHA_RUNNER__?: Mocha.Runner }).__WTR_MOCHA_RUNNER__?.on('fail', (_runnable: Mocha.Runnable, error: unknown) => reportable(error));
});
afterEach(function () {
  reportable(this.currentTest?.err);
});

// ---- mounting, events, waiting ----

/**
 * Creates `<tag attrs>`, lets `before` act on it while it is still detached (listen, so no event is missed; slotted
 * content), attaches it to `parent` (by default a fixture of its own, removed after the test) and waits for its first
 * update.
 */
export async function mount<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  options: { parent?: Element; before?: (el: HTMLElementTagNameMap[K]) => void } = {},
): Promise<HTMLElementTagNameMap[K]> {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  options.before?.(el);
  (options.parent ?? fixtureSync(html`<div></div>`)).append(el);
  await (el as Element & { updateComplete?: Promise<unknown> }).updateComplete;
  return el;
}

/** The next `name` event on `target`, typed by its event map (esign-* events with their detail). */
export function once<K extends keyof HTMLElementEventMap>(target: EventTarget, name: K): Promise<HTMLElementEventMap[K]> {
  return oneEvent(target, name) as Promise<HTMLElementEventMap[K]>;
}

/** One esign-* event as it was received. */
export type Recorded<K extends EsignEventName = EsignEventName> = { [N in K]: { type: N; detail: EsignEventDetailMap[N] } }[K];

/** Every `types` event `target` fires from now on, in order (a live list). */
export function record<K extends EsignEventName>(target: EventTarget, types: readonly K[]): Array<Recorded<K>> {
  const seen: Array<Recorded<K>> = [];
  for (const type of types) target.addEventListener(type, (event) => seen.push({ type, detail: (event as CustomEvent).detail } as Recorded<K>));
  return seen;
}

/** The events of the embedded-page elements. */
export const VIEW_EVENTS = ['esign-view-ready', 'esign-view-loaded', 'esign-view-expired', 'esign-view-message', 'esign-error'] as const;

/** `<esign-signing-frame>` or `<esign-contract-list>`, mounted with its VIEW_EVENTS recorded from before it was attached. */
export async function mountView<K extends 'esign-signing-frame' | 'esign-contract-list'>(
  tag: K,
  attrs: Record<string, string> = {},
  parent?: Element,
): Promise<{ el: HTMLElementTagNameMap[K]; events: Array<Recorded<(typeof VIEW_EVENTS)[number]>> }> {
  let events: Array<Recorded<(typeof VIEW_EVENTS)[number]>> = [];
  const el = await mount(tag, attrs, { ...(parent ? { parent } : {}), before: (created) => (events = record(created, VIEW_EVENTS)) });
  return { el, events };
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** The first truthy value of `condition` (which may be async), checked every `interval` ms; fails after `timeout` ms, naming `what`. */
export async function until<T>(condition: () => T | Promise<T>, what = 'the condition', { timeout = 5_000, interval = 20 } = {}): Promise<Truthy<T>> {
  const deadline = performance.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    if (performance.now() > deadline) throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * Resolves once `el` has been rendered and laid out (resize observers delivered), every update that asked for is done,
 * and the page has had idle time after that, with the update that idle work asked for done too. Idle callbacks run in
 * the order they were asked for (or earlier, at their timeout), so whatever the element scheduled with
 * requestIdleCallback has run by then: the positive signal that "nothing was built in idle time" is true, not a sleep.
 */
export async function settled(el: Element & { updateComplete: Promise<unknown> }): Promise<void> {
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  await el.updateComplete;
  await idle();
  await el.updateComplete;
}

/**
 * After the idle work asked for so far: requestIdleCallback where the engine has it; in WebKit, which has none, a
 * timeout asked for after (and no shorter than) the library's own fallback for it (100 ms after a render), so it runs
 * after that one.
 */
function idle(): Promise<void> {
  if (typeof requestIdleCallback === 'function') return new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 10_000 }));
  return new Promise((resolve) => setTimeout(resolve, 150));
}

// ---- embedded frames ----

export function frameOf(el: Element): HTMLIFrameElement | null {
  return el.shadowRoot!.querySelector('iframe');
}

/** The URL a frame's document shows, or 'cross-origin' when this page cannot read it (it navigated to the service). */
export function locationOf(frame: HTMLIFrameElement): string {
  try {
    return frame.contentWindow!.location.href;
  } catch {
    return 'cross-origin';
  }
}

/** Waits for the blank frame the element builds ahead of need, in idle time (a new one when `not` is given). */
export function prebuiltFrame(el: Element, not?: HTMLIFrameElement): Promise<HTMLIFrameElement> {
  return until(() => {
    const frame = frameOf(el);
    return frame !== null && frame !== not && frame.classList.contains('prebuilt') && frame;
  }, 'a blank frame built in idle time');
}

/**
 * Posts a message from inside a blank frame (same origin as this page), as a script of that frame would, and resolves
 * once this window has dispatched it: every listener of this window (the elements' too) has then seen it.
 */
export function postFromInside(frame: HTMLIFrameElement, data: Record<string, unknown>): Promise<void> {
  const inside = frame.contentWindow!;
  const delivered = new Promise<void>((resolve) => {
    const onMessage = (event: MessageEvent): void => {
      if (event.source !== inside || JSON.stringify(event.data) !== JSON.stringify(data)) return;
      window.removeEventListener('message', onMessage);
      // after the dispatch: listeners added before this one and after it have all run
      setTimeout(resolve, 0);
    };
    window.addEventListener('message', onMessage);
  });
  (inside as unknown as { Function: FunctionConstructor }).Function('data', "parent.postMessage(data, '*')")(data);
  return delivered;
}

// ---- the emulator ----

/** Injects a fault into the emulator (delay, status, …) for the next matching requests. */
export async function fault(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${cfg.baseUrl}/__emulator/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).to.equal(200);
}

export async function clearFaults(): Promise<void> {
  await fetch(`${cfg.baseUrl}/__emulator/faults`, { method: 'DELETE' });
}

// ---- sessions ----

/** An <esign-connect> on the test services (their client, emulator, proxy and callback page), with `attrs` on top ('' drops one). */
export function mountConnect(attrs: Record<string, string> = {}): Promise<EsignConnect> {
  const all = {
    'client-id': cfg.clientId,
    'base-url': cfg.baseUrl,
    'token-endpoint': cfg.tokenEndpoint,
    'redirect-uri': cfg.callbackUrl,
    storage: 'indexeddb',
    ...attrs,
  };
  return mount('esign-connect', Object.fromEntries(Object.entries(all).filter(([, value]) => value !== '')));
}

/** An <esign-connect id=…> connected as Alice for a whole file: attached to the body, not a fixture (those go after each test). */
export async function connectedElement(id: string, options: { spaceId: string; storage?: string }): Promise<EsignConnect> {
  const attrs = {
    'client-id': cfg.clientId,
    'base-url': cfg.baseUrl,
    'token-endpoint': cfg.tokenEndpoint,
    'redirect-uri': cfg.callbackUrl,
    ...(options.storage ? { storage: options.storage } : {}),
  };
  const el = await mount('esign-connect', { id, ...attrs }, { parent: document.body });
  await connectAs(el, { spaceId: options.spaceId });
  return el;
}

/** A real mouse click (a user gesture, so popups are allowed) on an element in `host`'s shadow root. */
export async function clickIn(host: Element, selector: string): Promise<void> {
  const target = (host.shadowRoot ?? host).querySelector(selector);
  if (!target) throw new Error(`nothing matches ${selector}`);
  target.scrollIntoView({ block: 'center' });
  const rect = target.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)] });
}

/**
 * A person's action in another window, done by the test server (test/helpers/services.ts): `esign-consent`,
 * `esign-frame-send`, `esign-frame-text`, `esign-return-to-page`, `esign-close-consent`. It may take several steps of
 * up to 30 s each (services.ts), longer than the 20 s web-test-runner allows one command, so it is started and then waited for in
 * turns of at most 10 s; a failed step throws its error here. A step that never ends is bounded by its own steps'
 * time limits, and by `timeoutMs` (2 min) here.
 */
export async function personStep<T = unknown>(name: string, payload?: Record<string, unknown>, timeoutMs = 120_000): Promise<T> {
  const id = await executeServerCommand<string, { name: string; payload?: Record<string, unknown> }>('esign-step-start', {
    name,
    ...(payload ? { payload } : {}),
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await executeServerCommand<{ done: boolean; value?: T; error?: string }, { id: string }>('esign-step-wait', { id });
    if (outcome.done) {
      if (outcome.error !== undefined) throw new Error(`${name}: ${outcome.error}`);
      return outcome.value as T;
    }
    if (Date.now() > deadline) throw new Error(`${name}: not done after ${timeoutMs} ms`);
  }
}

/** Clicks Connect, logs in on the emulator's consent page as a person would, and waits for the session. */
export async function connectAs(el: EsignConnect, options: { email?: string; password?: string; spaceId?: string } = {}): Promise<SessionInfo> {
  await until(() => el.status === 'idle' && !!el.shadowRoot?.querySelector('button'), 'element ready');
  const connected = oneEvent(el, 'esign-connected');
  await clickIn(el, 'button');
  await personStep('esign-consent', {
    email: options.email ?? 'alice@example.com',
    password: options.password ?? 'alice-password',
    ...(options.spaceId ? { spaceId: options.spaceId } : {}),
  });
  const { detail } = await connected;
  await el.updateComplete;
  return detail.session;
}

/** Text a user sees in the element's shadow root (slots resolved to their fallback). */
export function shadowText(el: Element): string {
  return (el.shadowRoot?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Drops every stored session and attempt of this origin. */
export async function clearSession(): Promise<void> {
  await clear(createStore('esign-elements', 'kv'));
}

export async function emulatorCounters(): Promise<Record<string, number>> {
  const res = await fetch(`${cfg.baseUrl}/__emulator/requests`);
  return (await res.json()) as Record<string, number>;
}

// ---- engines and the network ----

/** The engine this page runs in, given with its services (web-test-runner.config.mjs tells it from the user agent). */
export const engine = (cfg as BrowserTestConfig & { engine: 'chromium' | 'firefox' | 'webkit' }).engine;

/**
 * The network drops (or comes back) between this page and the service and proxy, in any engine: the test server resets
 * their connections, and the page is told as a browser tells it (`navigator.onLine`, the `offline` / `online` event).
 */
export async function setOffline(offline: boolean): Promise<void> {
  await executeServerCommand('esign-offline', { offline });
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => !offline });
  window.dispatchEvent(new Event(offline ? 'offline' : 'online'));
}
