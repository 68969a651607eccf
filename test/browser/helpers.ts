/** Shared helpers of the browser tests: the services' config, real clicks, the consent page. */
import { fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { executeServerCommand, sendMouse } from '@web/test-runner-commands';
import { clear, createStore } from 'idb-keyval';
import type { EsignConnect } from '../../src/elements/esign-connect.js';
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

/** An <esign-connect> on the test services (their client, emulator, proxy and callback page), with `attrs` on top. */
export async function mountConnect(attrs: Record<string, string> = {}): Promise<EsignConnect> {
  const el = document.createElement('esign-connect') as EsignConnect;
  const all = { 'client-id': cfg.clientId, 'base-url': cfg.baseUrl, 'token-endpoint': cfg.tokenEndpoint, 'redirect-uri': cfg.callbackUrl, storage: 'indexeddb', ...attrs };
  for (const [name, value] of Object.entries(all)) if (value !== '') el.setAttribute(name, value);
  const mounted = await fixture<EsignConnect>(html`${el}`);
  await mounted.updateComplete;
  return mounted;
}

/** A real mouse click (a user gesture, so popups are allowed) on an element in `host`'s shadow root. */
export async function clickIn(host: Element, selector: string): Promise<void> {
  const target = (host.shadowRoot ?? host).querySelector(selector);
  if (!target) throw new Error(`nothing matches ${selector}`);
  target.scrollIntoView({ block: 'center' });
  const rect = target.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(rect.x + rect.width / 2), Math.round(rect.y + rect.height / 2)] });
}

/** Clicks Connect, logs in on the emulator's consent page as a person would, and waits for the session. */
export async function connectAs(
  el: EsignConnect,
  options: { email?: string; password?: string; spaceId?: string } = {},
): Promise<SessionInfo> {
  await waitUntil(() => el.status === 'idle' && !!el.shadowRoot?.querySelector('button'), 'element ready');
  const connected = oneEvent(el, 'esign-connected');
  await clickIn(el, 'button');
  await executeServerCommand('esign-consent', {
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
