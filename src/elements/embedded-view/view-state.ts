/**
 * What an embedded view's element reads of its controller, one job: the state (`status`, `error`, the page's origin
 * and expiry, where it is shown, the sent envelope) and the outcomes kept as state (`lastResult`, `whenSent()`), so
 * that a listener attached after the fact (a framework that renders late, a route entered again) still learns what
 * happened. The controller (controller.ts) extends it. Loaded with the view's controller.
 */
import type { EsignError } from '../../core/errors.js';
import { emit, type EsignEnvelopeSentDetail } from '../shared/events.js';
import type { ViewDisplay, ViewResult, ViewStatus } from './rules.js';

export abstract class ViewState {
  status: ViewStatus = 'idle';
  error: EsignError | undefined;
  /** The origin of the current Url (the Url itself is never kept where a template or event can see it). */
  origin: string | undefined;
  /** ExpiresAt of the current Url, as the service sent it. */
  expiresAt: string | undefined;
  /** Where the current page is shown. */
  shownIn: ViewDisplay | undefined;
  /** The envelope the page reported as sent, while `status` is `sent`. */
  sentEnvelopeId: string | undefined;
  /** The last outcome, as the event that told it: `esign-envelope-sent` or `esign-error`. */
  lastResult: ViewResult | undefined;
  #sent: EsignEnvelopeSentDetail | undefined;
  #waiting: Array<(detail: EsignEnvelopeSentDetail) => void> = [];
  readonly #target: HTMLElement & { requestUpdate(): void };

  constructor(target: HTMLElement & { requestUpdate(): void }) {
    this.#target = target;
  }

  /**
   * The envelope sent in the page: at once while the element shows it (`status` sent), else at the next one. Never
   * rejects: an error leaves the person able to try again in the same element (see `lastResult`).
   */
  whenSent(): Promise<EsignEnvelopeSentDetail> {
    const sent = this.status === 'sent' ? this.#sent : undefined;
    return sent ? Promise.resolve(sent) : new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The state is `error`: kept, and told as `esign-error`. */
  protected fail(error: EsignError): EsignError {
    this.error = error;
    this.status = 'error';
    this.lastResult = { event: 'esign-error', detail: { error } };
    this.#target.requestUpdate();
    emit(this.#target, 'esign-error', { error });
    return error;
  }

  /** The page sent an envelope (the state is `sent` already): kept, told as `esign-envelope-sent`, and to whoever waits. */
  protected sent(detail: EsignEnvelopeSentDetail): void {
    this.sentEnvelopeId = detail.envelopeId;
    this.#sent = detail;
    this.lastResult = { event: 'esign-envelope-sent', detail };
    emit(this.#target, 'esign-envelope-sent', detail);
    for (const resolve of this.#waiting.splice(0)) resolve(detail);
  }
}
