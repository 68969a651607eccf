/**
 * Every interactive state keeps its contrast (issue 38): each control of the elements, at rest, hovered, focused from
 * the keyboard and pressed (forced by Chromium's devtools, CSS.forcePseudoState), the drop zone with a file dragged
 * over it, and the disabled ones, in light and dark: text at least 4.5:1 on what is behind it, edges (a border, or a
 * filled button's fill against the page) and focus rings at least 3:1. Chromium only (the forcing is devtools').
 */
import { expect, fixtureSync, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/esign-connect.js';
import '../../src/esign-uploader.js';
import '../../src/esign-signing-frame.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import { clearFaults, clearSession, connectedElement, engine, fault, mount, settled, until } from './helpers.js';

type RGBA = [number, number, number, number];

const canvas = document.createElement('canvas');
canvas.width = canvas.height = 1;
const ctx = canvas.getContext('2d', { willReadFrequently: true })!;

/** Any CSS colour (color-mix, light-dark resolved by getComputedStyle, color(srgb …)) as sRGB bytes and alpha. */
function rgba(color: string): RGBA {
  ctx.clearRect(0, 0, 1, 1);
  ctx.fillStyle = '#000';
  ctx.fillStyle = color;
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
  return [r!, g!, b!, a! / 255];
}

function over(top: RGBA, below: RGBA): RGBA {
  const a = top[3];
  return [top[0] * a + below[0] * (1 - a), top[1] * a + below[1] * (1 - a), top[2] * a + below[2] * (1 - a), 1];
}

function luminance([r, g, b]: RGBA): number {
  const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function ratio(a: RGBA, b: RGBA): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The parent in the flat tree (a shadow root's host). */
function parentOf(el: Element): Element | null {
  return el.parentElement ?? ((el.getRootNode() as ShadowRoot).host || null);
}

/** What is painted behind an element's content: its own background over its ancestors', down to the page (white). */
function backdrop(el: Element | null): RGBA {
  const layers: RGBA[] = [];
  for (let at = el; at; at = parentOf(at)) {
    const bg = rgba(getComputedStyle(at).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  return layers.reduceRight<RGBA>((below, layer) => over(layer, below), [255, 255, 255, 1]);
}

/** The element's opacity, with its ancestors' in the same shadow root. */
function opacityOf(el: Element): number {
  let value = 1;
  for (let at: Element | null = el; at && at.getRootNode() === el.getRootNode(); at = at.parentElement) value *= Number(getComputedStyle(at).opacity);
  return value;
}

interface Measure {
  text: number;
  edge: number | undefined;
  ring: number | undefined;
}

/** Text, edge and focus-ring contrast of a control as it is painted now. */
function measure(control: HTMLElement): Measure {
  const style = getComputedStyle(control);
  const outside = backdrop(parentOf(control));
  const opacity = opacityOf(control);
  const fade = (color: RGBA): RGBA => over([color[0], color[1], color[2], color[3] * opacity], outside);
  const fill = fade(backdrop(control));
  const text = fade(over(rgba(style.color), backdrop(control)));
  const border = rgba(style.borderTopColor);
  const bordered = parseFloat(style.borderTopWidth) > 0 && border[3] > 0;
  // a control's edge: its border where it has one, else its fill where that is what shows the control (a filled
  // button); a text-only button's faint hover tint (under 1.5:1) is decoration, not its edge
  const edgeColor = bordered && ratio(fade(border), fill) > 1.2 ? fade(border) : fill;
  const edge = bordered || ratio(fill, outside) >= 1.5 ? ratio(edgeColor, outside) : undefined;
  const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 ? ratio(over(rgba(style.outlineColor), outside), outside) : undefined;
  return { text: ratio(text, fill), edge, ring };
}

async function force(el: HTMLElement | undefined, states: string[]): Promise<void> {
  (window as unknown as { __esignForceTarget?: HTMLElement }).__esignForceTarget = el;
  expect(await executeServerCommand('esign-force-pseudo', { states })).to.equal(true);
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 200))); // past the transitions
}

const STATES = [[], ['hover'], ['focus', 'focus-visible'], ['active', 'hover']];

describe('contrast of every interactive state', function () {
  this.timeout(120_000);
  let session: EsignConnect;

  before(async function () {
    if (engine !== 'chromium') this.skip();
    await executeServerCommand('esign-reset');
    await clearSession();
    session = await connectedElement('contrast-session', { spaceId: 'space_acme', storage: 'memory' });
  });

  after(async () => {
    session?.remove();
    await clearFaults();
    await clearSession();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`in ${scheme}: text 4.5:1, edges and focus rings 3:1, at rest, hovered, focused, pressed, dragged over and disabled`, async () => {
      const page = fixtureSync(html`<div style="color-scheme: ${scheme}; background: Canvas; color: CanvasText; padding: 1rem"></div>`);
      const idle = await mount(
        'esign-connect',
        { 'client-id': 'x', 'base-url': 'http://127.0.0.1:9', 'token-endpoint': '/token', storage: 'memory' },
        { parent: page },
      );
      const uploader: EsignUploader = await mount('esign-uploader', { connect: 'contrast-session', multiple: '' }, { parent: page });
      const off: EsignUploader = await mount('esign-uploader', { connect: 'contrast-session', disabled: '' }, { parent: page });
      await until(() => uploader.shadowRoot!.querySelector('[part~="drop-zone"]')?.getAttribute('aria-disabled') === 'false', 'the uploader sees the session');
      // a file row with Retry and Remove (the service refuses it), and the session's Disconnect
      await executeServerCommand('esign-advance-clock', { seconds: 61 });
      await fault({ path: '/openapi/v1/files/upload', kind: 'status', status: 400, times: 1 });
      await uploader.upload([new File(['%PDF-1.4'], 'refused.pdf', { type: 'application/pdf' })]).catch(() => undefined);
      await until(() => uploader.shadowRoot!.querySelector('[part~="file"] button'), 'the refused file’s buttons');
      // the session stays where it is (moving it would end it): it takes the scheme and the page's background itself
      Object.assign(session.style, { colorScheme: scheme, background: 'Canvas', color: 'CanvasText' });
      await settled(uploader);

      const controls: Array<[string, HTMLElement]> = [
        ['Connect', idle.shadowRoot!.querySelector<HTMLElement>('[part~="button"]')!],
        ['Disconnect', session.shadowRoot!.querySelector<HTMLElement>('[part~="button"]')!],
        ['drop zone', uploader.shadowRoot!.querySelector<HTMLElement>('[part~="drop-zone"]')!],
        ...[...uploader.shadowRoot!.querySelectorAll<HTMLElement>('[part~="file"] button')].map((b): [string, HTMLElement] => [b.textContent!.trim(), b]),
      ];
      const failures: string[] = [];
      const check = (name: string, state: string, m: Measure) => {
        const line = `${scheme} ${name} ${state}: text ${m.text.toFixed(2)}, edge ${m.edge?.toFixed(2) ?? '-'}, ring ${m.ring?.toFixed(2) ?? '-'}`;
        console.log(line);
        if (m.text < 4.5 || (m.edge !== undefined && m.edge < 3) || (state.includes('focus') && (m.ring === undefined || m.ring < 3))) failures.push(line);
      };
      for (const [name, control] of controls) {
        for (const states of STATES) {
          await force(control, states);
          check(name, states.join('+') || 'rest', measure(control));
        }
        await force(control, []);
      }
      // a file dragged over the drop zone
      const zone = uploader.shadowRoot!.querySelector<HTMLElement>('[part~="drop-zone"]')!;
      const transfer = new DataTransfer();
      transfer.items.add(new File(['x'], 'x.pdf', { type: 'application/pdf' }));
      zone.dispatchEvent(new DragEvent('dragenter', { bubbles: true, cancelable: true, dataTransfer: transfer }));
      await uploader.updateComplete;
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(zone.classList.contains('dragging'), 'the drop zone shows the drag').to.equal(true);
      check('drop zone', 'drag-over', measure(zone));
      zone.dispatchEvent(new DragEvent('dragleave', { bubbles: true }));
      // disabled
      check('drop zone', 'disabled', measure(off.shadowRoot!.querySelector<HTMLElement>('[part~="drop-zone"]')!));
      check('the hint of a disabled drop zone', 'disabled', measure(off.shadowRoot!.querySelector<HTMLElement>('[part~="hint"]')!));
      session.removeAttribute('style');
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });
  }
});
