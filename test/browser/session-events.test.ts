/**
 * Every change of `<esign-connect>`'s session status comes with its event: a page never goes from `connected` to
 * `idle` (or back) without `esign-disconnected` (`esign-connected`), whatever the order in which pages, storage and
 * the session manager's code arrive.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import { cfg, clearSession, connectAs, mountConnect, record, until } from './helpers.js';

/**
 * Another page of the site (a same-origin iframe) showing an <esign-connect>, on a cold cache: opened under /fresh/
 * (web-test-runner.config.mjs), it fetches its own copy of the library's modules, which the server can hold back.
 */
function secondPage(): { frame: HTMLIFrameElement; element: () => EsignConnect | null } {
  const frame = document.createElement('iframe');
  const url = new URL(cfg.callbackUrl);
  frame.src = `${url.origin}/fresh${url.pathname}#popup`;
  document.body.append(frame);
  return { frame, element: () => (frame.contentDocument?.querySelector('esign-connect') as EsignConnect | null) ?? null };
}

describe('<esign-connect> status and events', () => {
  afterEach(async () => {
    await executeServerCommand('esign-release-modules');
    await clearSession();
  });

  it('a page still loading its session manager learns of a disconnect in another page, with esign-disconnected', async () => {
    await executeServerCommand('esign-reset');
    const el = await mountConnect();
    await connectAs(el, { spaceId: 'space_acme' });
    // the other page's session manager code is slow to arrive: until then it shows what storage says (connected)
    await executeServerCommand('esign-hold-modules', { path: '/fresh/src/core/session/session-manager' });
    const other = secondPage();
    const shown = await until(() => other.element(), 'the other page to show its element', { timeout: 10_000 });
    // status as the page's scripts see it, with the events that came with each change (recorded from the start)
    const events = record(shown, ['esign-connected', 'esign-disconnected']);
    const statuses: string[] = [];
    const watch = new MutationObserver(() => statuses.push(`${shown.status} after ${events.map((e) => e.type).join(',') || 'no event'}`));
    watch.observe(shown, { attributes: true, attributeFilter: ['status'] });
    await until(() => shown.status === 'connected', 'the other page to show the stored session', { timeout: 10_000 });
    // the stored session shows before the page asks for its manager's code: wait until that request is held
    await until(async () => Number(await executeServerCommand('esign-held-requests')) > 0, "the other page's session manager to be held back", {
      timeout: 10_000,
      interval: 100,
    });
    expect(shown.status, 'still showing the stored session while its manager is held back').to.equal('connected');
    // this page disconnects while the other cannot hear it yet (no manager, so no channel listening)
    await el.disconnect();
    await executeServerCommand('esign-release-modules');
    await until(() => shown.status === 'idle', 'the other page to show it is disconnected', { timeout: 10_000 });
    watch.disconnect();
    expect(
      events.map((e) => e.type),
      'the change came with its event',
    ).to.deep.equal(['esign-disconnected']);
    expect(events[0]!.detail).to.deep.equal({ reason: 'other-tab' });
    other.frame.remove();
  });
});
