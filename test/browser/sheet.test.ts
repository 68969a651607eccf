/**
 * The phone sheet (`sheet`): at 390 CSS px the shown page covers the viewport, above the page's own fixed layers, with
 * a visible, focusable close button; the close button, Escape and the browser's back button close it; its history
 * entry is gone back over, so none is left behind. The viewport is a phone's: the test page's own in Chromium and
 * Firefox (the `esign-viewport` command); in WebKit, whose window cannot be made that narrow, a same-origin page in an
 * iframe of 390 × 844 px (fixtures/phone.html) with the library of its own.
 */
import { expect } from '@open-wc/testing';
import { executeServerCommand, sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-signing-frame.js';
import { EsignClient } from '../../src/core/service/client.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignSigningFrame } from '../../src/elements/embedded-view/esign-signing-frame.js';
import { cfg, clearSession, connectedElement, engine, frameOf, once, until } from './helpers.js';

let connect: EsignConnect;
let fileIds: string[];

const PHONE = { width: 390, height: 844 };

/** Where the elements are: this page, or the phone-sized page in an iframe (WebKit). */
let win: Window & typeof globalThis = window;
let doc: Document = document;
let phoneFrame: HTMLIFrameElement | undefined;

/** The history state's marker of a sheet's entry (`SheetController`, embedded-view/sheet.ts). */
const marked = (): boolean => {
  const state: unknown = win.history.state;
  return typeof state === 'object' && state !== null && 'esignSheet' in state;
};

/**
 * `pushState` calls on the page's history. A tab keeps at most 50 entries (Chromium, Firefox), and the runner's tab
 * may have gathered them from earlier files: there `history.length` no longer moves, while this count does.
 */
let pushes = 0;
let unwatch = (): void => {};
function watchPushes(history: History): void {
  const push = history.pushState.bind(history);
  history.pushState = (...args: Parameters<History['pushState']>) => {
    pushes++;
    push(...args);
  };
  unwatch = () => Reflect.deleteProperty(history, 'pushState');
}

/** `history.length` grows by `more` from `length`, where the tab has room to show it (below its 50 entries). */
function lengthGrew(length: number, more: number, what: string): void {
  if (length + more < 50) expect(win.history.length, what).to.equal(length + more);
}

/** A real click at the centre of an element of `host`'s shadow root (in the phone's page, wherever that is). */
async function clickIn(host: Element, selector: string): Promise<void> {
  const rect = host.shadowRoot!.querySelector(selector)!.getBoundingClientRect();
  const offset = phoneFrame?.getBoundingClientRect() ?? { x: 0, y: 0 };
  await sendMouse({ type: 'click', position: [Math.round(offset.x + rect.x + rect.width / 2), Math.round(offset.y + rect.y + rect.height / 2)] });
}

/** Elements added by a test, removed after it. */
const added: Element[] = [];

function base(el: EsignSigningFrame): HTMLElement {
  return el.shadowRoot!.querySelector<HTMLElement>('[part~="base"]')!;
}

function closeButton(el: EsignSigningFrame): HTMLButtonElement | null {
  return el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="sheet-close"]');
}

/** A signing frame with `attrs`, opened and loaded. */
async function opened(attrs: Record<string, string> = { sheet: '' }): Promise<EsignSigningFrame> {
  const el = doc.createElement('esign-signing-frame') as EsignSigningFrame;
  for (const [name, value] of Object.entries({ connect: 'c', 'file-ids': fileIds.join(' '), ...attrs })) el.setAttribute(name, value);
  doc.body.append(el);
  added.push(el);
  const loaded = once(el, 'esign-view-loaded');
  await el.open();
  await loaded;
  await el.updateComplete;
  return el;
}

/** Whether the element's sheet is open (its base marked and its bar in place). */
const isSheet = (el: EsignSigningFrame): boolean => base(el).hasAttribute('data-sheet') && closeButton(el) !== null;

describe('<esign-signing-frame sheet> on a phone (390 px)', () => {
  before(async () => {
    await executeServerCommand('esign-reset');
    await clearSession();
    // stored (IndexedDB), so the phone's page in WebKit restores it
    connect = await connectedElement('c', { spaceId: 'space_acme' });
    const client = new EsignClient({ baseUrl: cfg.baseUrl, tokens: connect });
    const { data } = await client.uploadFiles([{ FileName: 'lease.pdf', FileBody: btoa('%PDF-1.4 lease') }]);
    fileIds = data.Files.map((f) => f.FileId);
    if (engine === 'webkit') {
      phoneFrame = Object.assign(document.createElement('iframe'), { title: 'A phone', src: '/test/browser/fixtures/phone.html' });
      phoneFrame.setAttribute('style', `position: fixed; left: 0; top: 0; width: ${PHONE.width}px; height: ${PHONE.height}px; border: 0`);
      document.body.append(phoneFrame);
      await until(() => (phoneFrame!.contentDocument?.getElementById('c') as { status?: string } | null)?.status === 'connected', "the phone page's session", {
        timeout: 15_000,
      });
      win = phoneFrame.contentWindow as Window & typeof globalThis;
      doc = phoneFrame.contentDocument!;
    } else {
      await executeServerCommand('esign-viewport', PHONE);
    }
    expect(win.innerWidth, 'the page is as wide as a phone').to.equal(PHONE.width);
    watchPushes(win.history);
  });

  afterEach(() => {
    for (const el of added.splice(0)) el.remove();
  });

  after(async () => {
    unwatch();
    if (engine !== 'webkit') await executeServerCommand('esign-viewport', { reset: true });
    phoneFrame?.remove();
    connect.remove();
    await clearSession();
  });

  it("covers the viewport, above the page's own fixed header, with a visible and focusable close; the close button closes it and leaves no history entry", async () => {
    // a page's own fixed header, high in z-order, as apps have
    const header = doc.body.appendChild(Object.assign(doc.createElement('div'), { textContent: 'App header' }));
    header.setAttribute('style', 'position: fixed; inset: 0 0 auto 0; height: 80px; z-index: 2147483647; background: #eee');
    added.push(header);
    const length = win.history.length;
    const pushed = pushes;
    const state: unknown = win.history.state;
    const el = await opened();
    expect(isSheet(el), 'the sheet is open').to.equal(true);
    const rect = base(el).getBoundingClientRect();
    expect([rect.left, rect.top, rect.width, rect.height]).to.deep.equal([0, 0, win.innerWidth, win.innerHeight]);
    const frame = frameOf(el)!;
    const frameRect = frame.getBoundingClientRect();
    expect(frameRect.width, 'the page is as wide as the screen').to.equal(win.innerWidth);
    expect(frameRect.bottom, 'and reaches its bottom').to.be.closeTo(win.innerHeight, 1);

    const close = closeButton(el)!;
    const box = close.getBoundingClientRect();
    expect(box.width > 0 && box.height > 0 && box.top >= 0 && box.right <= win.innerWidth, 'the close button is on screen').to.equal(true);
    // nothing of the page covers it: the point at its centre is the element (shadow content is retargeted to its host)
    expect(doc.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)).to.equal(el);
    expect(close.textContent!.trim()).to.equal('Close');
    close.focus();
    expect(el.shadowRoot!.activeElement).to.equal(close);
    expect(base(el).getAttribute('role')).to.equal('dialog');
    expect(base(el).getAttribute('aria-label')).to.equal('E-signature: new envelope');
    // axe checks this page's nodes only (the phone's page in WebKit is another realm): the sheet is checked in Chromium and Firefox
    if (doc === document) await expect(el).shadowDom.to.be.accessible();

    expect(pushes - pushed, 'one entry pushed').to.equal(1);
    lengthGrew(length, 1, 'one entry more');
    expect(marked()).to.equal(true);
    await clickIn(el, '[part~="sheet-close"]');
    await until(() => el.status === 'idle' && !marked(), "closed, and back on the page's own entry");
    expect(isSheet(el)).to.equal(false);
    expect(win.history.state).to.deep.equal(state);
    // focus goes to the element's open button, not lost to the body
    await until(() => el.shadowRoot!.activeElement?.matches('button'), 'focus on the open button');

    // opened again: its entry replaces the one gone back over, so the page never collects entries
    const again = await opened();
    expect(isSheet(again)).to.equal(true);
    expect(pushes - pushed, 'one entry pushed for each opening').to.equal(2);
    lengthGrew(length, 1, 'the new entry replaced the one gone back over');
    again.close();
    await until(() => !marked(), "back on the page's own entry");
    lengthGrew(length, 1, 'no entry gathered');
  });

  it('Escape closes it', async () => {
    const el = await opened();
    expect(isSheet(el)).to.equal(true);
    closeButton(el)!.focus();
    await sendKeys({ press: 'Escape' });
    await until(() => el.status === 'idle' && !marked(), 'closed by Escape');
    expect(isSheet(el)).to.equal(false);
  });

  it("the browser's back button closes the sheet and its page, and the host page stays", async () => {
    const href = win.location.href;
    const el = await opened();
    expect(isSheet(el)).to.equal(true);
    win.history.back();
    await until(() => el.status === 'idle', 'closed by back');
    expect(isSheet(el)).to.equal(false);
    expect(marked()).to.equal(false);
    expect(win.location.href).to.equal(href);
    expect(el.isConnected).to.equal(true);
  });

  it("opening and closing the sheet keeps the same frame, not loaded again; its bar and close button are the base part's first child while open, gone after", async () => {
    // wider than the breakpoint: the page is loaded in the layout first, then the window "narrows" and widens again
    const el = await opened({ sheet: '', style: '--esign-sheet-breakpoint: 320px' });
    const frame = frameOf(el)!;
    let loads = 0;
    frame.addEventListener('load', () => (loads += 1));
    // the frame's own load event may come after the page said it is ready: once it has, the count stays
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pageLoads = loads;
    expect(pageLoads, 'at most the page its Url loaded').to.be.at.most(1);
    const layer = base(el);
    expect(isSheet(el)).to.equal(false);
    expect(layer.querySelector('[part~="sheet-bar"]')).to.equal(null);

    el.style.setProperty('--esign-sheet-breakpoint', '600px');
    win.dispatchEvent(new win.Event('resize'));
    await until(() => isSheet(el), 'a sheet below the breakpoint');
    expect(base(el), 'the same base part').to.equal(layer);
    expect(layer.getAttribute('role')).to.equal('dialog');
    expect(layer.getAttribute('aria-label')).to.equal('E-signature: new envelope');
    const bar = layer.firstElementChild!;
    expect(bar.getAttribute('part')).to.equal('sheet-bar');
    expect(closeButton(el)!.parentElement).to.equal(bar);
    if ('showPopover' in HTMLElement.prototype) {
      expect(layer.getAttribute('popover')).to.equal('manual');
      expect(layer.matches(':popover-open'), 'in the top layer').to.equal(true);
    }
    expect(frameOf(el), 'the same iframe').to.equal(frame);
    expect(frame.parentElement).to.equal(layer);

    el.style.setProperty('--esign-sheet-breakpoint', '320px');
    win.dispatchEvent(new win.Event('resize'));
    await until(() => !isSheet(el) && !marked(), "back in the layout, on the page's own entry");
    for (const name of ['data-sheet', 'role', 'aria-label', 'popover']) expect(layer.hasAttribute(name), name).to.equal(false);
    expect(layer.querySelector('[part~="sheet-bar"], [part~="sheet-close"]')).to.equal(null);
    // a moved or re-created iframe loads again (and its single-use Url fails): give it the time to
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(frameOf(el), 'the same iframe').to.equal(frame);
    expect(loads, 'no load since').to.equal(pageLoads);
    expect(el.status).to.equal('loaded');
  });

  it('off without `sheet`, and above `--esign-sheet-breakpoint`: the frame stays in the layout and no entry is pushed', async () => {
    const length = win.history.length;
    const pushed = pushes;
    const plain = await opened({});
    expect(isSheet(plain)).to.equal(false);
    expect(frameOf(plain)!.getBoundingClientRect().width).to.be.lessThan(win.innerWidth);
    plain.close();
    const wide = await opened({ sheet: '', style: '--esign-sheet-breakpoint: 320px' });
    expect(isSheet(wide)).to.equal(false);
    expect(pushes - pushed, 'no entry pushed').to.equal(0);
    lengthGrew(length, 0, 'no entry more');
    // narrower than the breakpoint again: the shown page becomes a sheet
    wide.style.setProperty('--esign-sheet-breakpoint', '600px');
    window.dispatchEvent(new Event('resize'));
    await until(() => isSheet(wide), 'a sheet below the breakpoint');
    wide.close();
    await until(() => !marked(), "back on the page's own entry");
  });
});
