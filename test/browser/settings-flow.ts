/**
 * The whole flow on four elements that got their settings in some order (settings-order.test.ts, settings-react.test.ts):
 * a person connects through the consent page, the contract list opens by itself, a PDF is uploaded, and the signing
 * frame shows it. Imports no element module: a page that bundles its own copy of the library (React) uses it too.
 */
import { expect } from '@open-wc/testing';
import type { EsignConnect } from '../../src/elements/connect/esign-connect.js';
import type { EsignUploader } from '../../src/elements/uploader/esign-uploader.js';
import type { EsignSigningFrame } from '../../src/elements/embedded-view/esign-signing-frame.js';
import type { EsignContractList } from '../../src/elements/embedded-view/esign-contract-list.js';
import { cfg, connectAs, once, personStep, record, shadowText, until } from './helpers.js';

/** The settings an app gives the elements: the test services' client, emulator and token proxy. */
export const settings = {
  clientId: cfg.clientId,
  baseUrl: cfg.baseUrl,
  tokenEndpoint: cfg.tokenEndpoint,
  redirectUri: cfg.callbackUrl,
  storage: 'memory',
} as const;

/** The four elements of one app, found in `root` once the app has rendered them. */
export interface App {
  connect: EsignConnect;
  uploader: EsignUploader;
  list: EsignContractList;
  /** The signing frame, once the app renders it (some apps render it with the FileIds only). */
  frame: () => EsignSigningFrame | null;
}

export function appIn(root: ParentNode): App {
  const find = <T>(selector: string) => root.querySelector(selector) as T;
  return {
    get connect() {
      return find<EsignConnect>('esign-connect');
    },
    get uploader() {
      return find<EsignUploader>('esign-uploader');
    },
    get list() {
      return find<EsignContractList>('esign-contract-list');
    },
    frame: () => find<EsignSigningFrame | null>('esign-signing-frame'),
  };
}

/**
 * Starts recording every esign-error under `root` (they bubble and are composed): call it before the elements are
 * created, so an error fired as they start is seen too.
 */
export function recordErrors(root: EventTarget): Array<{ type: 'esign-error'; detail: { error: { code: string; message: string } } }> {
  return record(root, ['esign-error']);
}

const pdf = (name: string) => new File(['%PDF-1.4\n% settings in any order\n%%EOF\n'], name, { type: 'application/pdf' });

/**
 * Runs the flow and checks what a person sees: the Connect button (never an error on the way), "Connected as Alice
 * Tan" after the consent page, the contract list, the uploader ready, the uploaded file in the signing frame that the
 * app renders with the FileIds, Send there, and the sent envelope in the list; and that no esign-error fired.
 */
export async function runFlow(root: ParentNode, errors: ReadonlyArray<{ detail: { error: { code: string; message: string } } }>): Promise<void> {
  const app = appIn(root);
  const said = () => errors.map((e) => `${e.detail.error.code}: ${e.detail.error.message}`).join('; ');
  // (an app that fetches its settings gives them a moment after it renders: the person clicks once they are there)
  await until(() => app.connect?.baseUrl && app.connect.status === 'idle' && app.connect.shadowRoot?.querySelector('button'), 'the Connect button');
  expect(shadowText(app.connect)).to.contain('Connect e-signature account');

  await connectAs(app.connect, { spaceId: 'space_acme' });
  expect(app.connect.status).to.equal('connected');
  expect(shadowText(app.connect)).to.contain('Connected as Alice Tan');

  // the contract list opens by itself with the session; the uploader sees it (its drop zone is enabled)
  await until(() => app.list.status === 'loaded', 'the contract list shown', { timeout: 15_000 });
  const dropZone = () => app.uploader.shadowRoot!.querySelector('[part~="drop-zone"]');
  await until(() => dropZone()?.getAttribute('aria-disabled') === 'false', 'the uploader sees the session');

  // the app's own code uploads a PDF (a native file chooser is out of WebDriver's reach in WebKit)
  const subject = `Settings order ${Math.random().toString(36).slice(2, 8)}`;
  await app.uploader.upload([pdf('settings-order.pdf')]);
  expect(app.uploader.fileIds.length).to.equal(1);

  // the app renders the signing frame with the FileIds; it opens by itself, and a person sends there
  await until(() => app.frame()?.status === 'loaded', 'the signing frame shown', { timeout: 15_000 });
  const frame = app.frame()!;
  const sent = once(frame, 'esign-envelope-sent');
  await personStep('esign-frame-send', { subject, signers: [{ name: 'Bob Lim', email: 'bob@example.com' }] });
  expect((await sent).detail.envelopeId).to.match(/\S/);

  // the list, loaded again, shows the envelope
  const reloaded = once(app.list, 'esign-view-loaded');
  await app.list.refresh();
  // (its new frame: the one before is gone)
  await reloaded;
  const text = (await personStep('esign-frame-text', { path: '/contracts', contains: subject })) as string;
  expect(text).to.contain(subject);

  expect(said()).to.equal('');
  for (const el of [app.connect, app.uploader, app.list, frame]) expect(el.shadowRoot!.querySelector('[role="alert"]')).to.equal(null);

  // the person disconnects (the proxy's session cookie goes too: the next app starts signed out)
  await app.connect.disconnect();
  await until(() => app.connect.status === 'idle', 'disconnected');
}
