/**
 * Every element takes its settings whenever they arrive, in the orders frameworks use (issue 34): the four elements of
 * one app get them before or after insertion, as properties or attributes, in one task or several, and the whole flow
 * runs against the emulator and the token proxy with no esign-error on the way. React: settings-react.test.ts.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/index.js';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import { cfg, personStep, shadowText, until } from './helpers.js';
import { recordErrors, runFlow, settings } from './settings-flow.js';

type Props = Record<string, unknown>;

/** How an app (a framework) hands an element its settings: `create` makes and inserts it with them. */
interface Order {
  name: string;
  create(parent: Element, tag: string, props: Props): Promise<void>;
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const orders: Order[] = [
  {
    // also what Angular does: it inserts the element, then sets its property bindings in the same change detection
    name: 'plain DOM (and Angular): created, inserted, then properties in the same task',
    async create(parent, tag, props) {
      const el = document.createElement(tag);
      parent.append(el);
      Object.assign(el, props);
    },
  },
  {
    name: 'plain DOM: inserted, then one property per task or microtask',
    async create(parent, tag, props) {
      const el = document.createElement(tag);
      parent.append(el);
      for (const [i, [name, value]] of Object.entries(props).entries()) {
        await (i % 2 ? Promise.resolve() : nextTask());
        (el as unknown as Props)[name] = value;
        // every update in between has run: the element saw each partial set of settings
        await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
      }
    },
  },
  {
    name: 'HTML attributes set after insertion',
    async create(parent, tag, props) {
      const el = document.createElement(tag);
      parent.append(el);
      for (const [name, value] of Object.entries(props)) {
        if (value === true) el.setAttribute(kebab(name), '');
        else if (Array.isArray(value)) el.setAttribute(kebab(name), value.join(' '));
        else el.setAttribute(kebab(name), String(value));
      }
    },
  },
  {
    name: 'Vue: properties set before insertion',
    async create(parent, tag, props) {
      const el = document.createElement(tag);
      Object.assign(el, props);
      parent.append(el);
    },
  },
  {
    name: 'Svelte: inserted, then properties in a microtask (its effects)',
    async create(parent, tag, props) {
      const el = document.createElement(tag);
      parent.append(el);
      await Promise.resolve();
      Object.assign(el, props);
    },
  },
];

/**
 * An app of four elements, each given its settings in `order`; the signing frame is made when the uploader says which
 * FileIds it uploaded, as an app does. The session's `id` is given like any other setting (possibly after the
 * uploader already named it).
 */
async function buildApp(root: Element, order: Order): Promise<void> {
  root.addEventListener('esign-upload-complete', (event) => {
    const { fileIds } = (event as CustomEvent<{ fileIds: string[] }>).detail;
    void order.create(root, 'esign-signing-frame', { connect: 'esign', auto: true, fileIds: [...fileIds] });
  });
  await order.create(root, 'esign-uploader', { connect: 'esign', accept: '.pdf', maxSize: 1024 * 1024 });
  await order.create(root, 'esign-contract-list', { connect: 'esign' });
  // the session element first in the page, though it gets its settings last
  const placeholder = document.createElement('div');
  root.prepend(placeholder);
  await order.create(placeholder, 'esign-connect', { ...settings, id: 'esign' });
}

describe('settings in any order', () => {
  beforeEach(async () => {
    await executeServerCommand('esign-reset');
  });

  for (const order of orders) {
    it(`${order.name}: connects, uploads, sends and lists, with no esign-error`, async function () {
      this.timeout(90_000);
      const root = await fixture(html`<div></div>`);
      const errors = recordErrors(root);
      await buildApp(root, order);
      await runFlow(root, errors);
    });
  }

  it('a missing setting waits quietly; Connect names it, and the error clears once it is given', async () => {
    const root = await fixture(html`<div></div>`);
    const errors = recordErrors(root);
    const el = document.createElement('esign-connect') as EsignConnect;
    root.append(el);
    Object.assign(el, { clientId: cfg.clientId, tokenEndpoint: cfg.tokenEndpoint, storage: 'memory' });
    await el.updateComplete;
    expect(el.status).to.equal('idle');
    expect(errors).to.have.length(0);

    // Connect (the button, or `connect()`) reads the settings present: base-url is still missing
    const refused = await el.connect().catch((error: { code: string; message: string }) => error);
    expect(refused).to.include({ code: 'invalid_config', message: 'base-url is required.' });
    await el.updateComplete;
    expect(el.status).to.equal('error');
    expect(shadowText(el)).to.contain('base-url is required.');
    expect(errors.map((e) => e.detail.error.code)).to.deep.equal(['invalid_config']);

    // given, the error goes by itself, and Connect works with what is present now
    el.baseUrl = cfg.baseUrl;
    await until(() => el.status === 'idle', 'the error cleared');
    expect(el.shadowRoot!.querySelector('[role="alert"]')).to.equal(null);
    expect(errors).to.have.length(1);
  });

  it('Try again reads the settings present, even ones set in the same task', async () => {
    const root = await fixture(html`<div></div>`);
    const el = document.createElement('esign-connect') as EsignConnect;
    root.append(el);
    Object.assign(el, { clientId: cfg.clientId, baseUrl: 'ftp://files.example.com', tokenEndpoint: cfg.tokenEndpoint, storage: 'memory' });
    await el.updateComplete;
    await until(() => el.status === 'error', 'the refused base-url shown');
    expect(shadowText(el)).to.contain('base-url');
    el.baseUrl = cfg.baseUrl;
    // before any update: connect() itself reads the corrected setting, and gets past it to the sign-in window (which
    // the browser may block without a click, or open while the page still has a recent click's activation)
    const outcome = el.connect().catch((error: { code: string }) => error.code);
    expect(el.error?.code).not.to.equal('invalid_config');
    expect(el.status).to.be.oneOf(['connecting', 'error']);
    if (el.status === 'connecting') await personStep('esign-close-consent');
    expect(await outcome).to.be.oneOf(['popup_blocked', 'popup_closed']);
  });
});
