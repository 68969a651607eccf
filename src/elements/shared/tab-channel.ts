/**
 * Sent envelopes across the tabs of one origin. A signing frame that sends an envelope posts its ids (envelope,
 * FileIds, status: never a token or a Url) on a BroadcastChannel named for its service and Space; each other tab of
 * that origin following the same service and Space fires `esign-envelope-sent` at its document, once, with
 * `byOtherTab: true`, so its uploaders mark those files sent and its contract lists that are shown load again, as for
 * an envelope sent in the page itself. A Disconnect needs nothing here: the session manager tells the other tabs.
 *
 * Loaded with the parts that need it (the uploader's list, the embedded views' controller), never at first render.
 * One channel per service and Space per page, shared by the elements that follow it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { SessionProvider } from './session-context.js';
import { emit, type EsignEnvelopeSentDetail } from './events.js';

/** What one tab tells the others. Ids only. */
interface SentMessage {
  v: 1;
  type: 'envelope-sent';
  envelopeId: string;
  fileIds: string[];
  status: string;
}

/** The most FileIds a message may carry (the service takes far fewer per envelope): a bigger one is not ours. */
const MAX_FILE_IDS = 1000;
const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;

/** The message when `data` is one this module posts (any other, or a malformed one, is ignored). */
export function readSentMessage(data: unknown): SentMessage | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const m = data as Partial<SentMessage>;
  if (m.v !== 1 || m.type !== 'envelope-sent' || !isId(m.envelopeId) || !isId(m.status)) return undefined;
  if (!Array.isArray(m.fileIds) || m.fileIds.length > MAX_FILE_IDS || !m.fileIds.every(isId)) return undefined;
  return { v: 1, type: 'envelope-sent', envelopeId: m.envelopeId, fileIds: [...m.fileIds], status: m.status };
}

/** The channel's name for a provider's session: its service and Space (undefined without a session). */
export function channelName(provider: SessionProvider | undefined): string | undefined {
  const session = provider?.session;
  if (!session || !provider.baseUrl) return undefined;
  return `esign-tabs|${provider.baseUrl.replace(/\/+$/, '')}|${session.spaceId ?? ''}`;
}

/** The page's open channels, by name, with how many elements follow each. */
const open = new Map<string, { channel: BroadcastChannel; users: number }>();

function join(name: string | undefined): void {
  if (!name || typeof BroadcastChannel === 'undefined') return;
  const entry = open.get(name);
  if (entry) {
    entry.users++;
    return;
  }
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event: MessageEvent) => {
    const message = readSentMessage(event.data);
    if (message) emit(document, 'esign-envelope-sent', { envelopeId: message.envelopeId, fileIds: message.fileIds, status: message.status, byOtherTab: true });
  };
  open.set(name, { channel, users: 1 });
}

function leave(name: string | undefined): void {
  const entry = name ? open.get(name) : undefined;
  if (!entry || --entry.users > 0) return;
  entry.channel.close();
  open.delete(name!);
}

/**
 * Follows the channel of the host's session while the host is in the page (`provider` says which session, and is
 * asked again after each update); `onSent` hears every `esign-envelope-sent` at the host's tree root: of this page, and
 * of the other tabs (`byOtherTab`).
 */
export class TabChannel implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #provider: () => SessionProvider | undefined;
  readonly #onSent: ((detail: EsignEnvelopeSentDetail) => void) | undefined;
  #name: string | undefined;
  #root: Node | undefined;

  constructor(host: ReactiveControllerHost & HTMLElement, provider: () => SessionProvider | undefined, onSent?: (detail: EsignEnvelopeSentDetail) => void) {
    this.#host = host;
    this.#provider = provider;
    this.#onSent = onSent;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#onSent) (this.#root = this.#host.getRootNode()).addEventListener('esign-envelope-sent', this.#heard);
    this.hostUpdated();
  }

  hostUpdated(): void {
    const name = this.#host.isConnected ? channelName(this.#provider()) : undefined;
    if (name === this.#name) return;
    leave(this.#name);
    join((this.#name = name));
  }

  hostDisconnected(): void {
    this.#root?.removeEventListener('esign-envelope-sent', this.#heard);
    this.#root = undefined;
    leave(this.#name);
    this.#name = undefined;
  }

  /** Tells the other tabs following this session that an envelope was sent here. */
  post(detail: EsignEnvelopeSentDetail): void {
    // the session may have changed since the last update
    this.hostUpdated();
    const entry = this.#name ? open.get(this.#name) : undefined;
    const message: SentMessage = { v: 1, type: 'envelope-sent', envelopeId: detail.envelopeId, fileIds: [...detail.fileIds], status: detail.status };
    entry?.channel.postMessage(message);
  }

  readonly #heard = (event: Event): void => {
    const detail = (event as CustomEvent<Partial<EsignEnvelopeSentDetail>>).detail;
    if (Array.isArray(detail?.fileIds)) this.#onSent?.(detail as EsignEnvelopeSentDetail);
  };
}
