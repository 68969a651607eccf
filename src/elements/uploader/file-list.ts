/**
 * <esign-uploader>'s list of files: the offline note, the overall row (progress, Cancel all, Retry all) and one row
 * per file (name, size, progress, status words, Cancel, Retry, Remove), and the user's words for why a file was
 * refused or failed. Markup over what the upload controller holds; the buttons call the element's methods.
 */
import { html, nothing, svg, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { EsignError } from '@esign-elements/shared/errors';
import { unreachable } from '../../core/service/unreachable.js';
import type { UploadItem } from '../../core/upload/queue.js';
import type { UploaderLimits } from '../../core/upload/validate.js';
import { alertIcon, checkIcon, icon } from '../shared/icons.js';
import type { UploaderTerms } from './esign-uploader.messages.js';
import type { CountingLocalizeController } from './localize-counts.js';
import { isActive } from './upload-controller.js';

const fileIcon = svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5M9 13h6M9 17h4"/>`;
const offlineIcon = svg`<path d="M3 3l18 18"/><path d="M8.5 16.5a5 5 0 0 1 7 0M5 12.9a10 10 0 0 1 4.2-2.4M19 12.9a10 10 0 0 0-3-2M2 8.8a15 15 0 0 1 4.3-2.6M22 8.8A15 15 0 0 0 11 5"/><path d="M12 20h.01"/>`;

type Terms = CountingLocalizeController<UploaderTerms>;

/** What the list shows and what its buttons do. */
export interface FileListView {
  readonly items: readonly UploadItem[];
  readonly t: Terms;
  /** False while the browser is offline (the files on their way wait). */
  readonly online: boolean;
  readonly limits: UploaderLimits | undefined;
  /** Bytes sent and to send over the files on their way. */
  overall(): { loaded: number; total: number };
  /** Whether this uploaded file was sent in an envelope since. */
  isSent(item: UploadItem): boolean;
  cancel(key?: string): void;
  retry(key?: string): Promise<void>;
  remove(key: string): void;
}

/** The offline note, the overall row and the files. */
export function renderFileList(view: FileListView): TemplateResult {
  const { items, t } = view;
  return html`${
    !view.online && items.some((i) => i.status === 'offline') ? html`<p part="offline">${icon(offlineIcon)}<span>${t.term('offlineNote')}</span></p>` : nothing
  }
    ${renderSummary(view)}
    <ul part="list" aria-label=${t.term('filesLabel')}>
      ${repeat(
        items,
        (item) => item.key,
        (item) => renderItem(view, item),
      )}
    </ul>`;
}

function renderSummary(view: FileListView) {
  const { items, t } = view;
  const active = items.filter(isActive);
  const failed = items.filter((i) => i.status === 'failed' || i.status === 'cancelled');
  // one file's row has its own progress: a summary that came and went with it would move the page below
  if (active.length + failed.length < 2 && items.length < 2) return nothing;
  if (active.length === 0 && failed.length === 0) return nothing;
  const overall = view.overall();
  const done = items.filter((i) => i.status === 'done' && !i.restored).length;
  return html`<div part="summary">
    ${
      active.length > 0
        ? html`<progress part="progress overall" aria-label=${t.term('overallLabel')} max=${Math.max(overall.total, 1)} .value=${overall.loaded}></progress>`
        : html`<span></span>`
    }
    <span class="actions">
      ${active.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => view.cancel()}>${t.term('cancelAll')}</button>` : nothing}
      ${failed.length > 1 ? html`<button part="button" class="secondary small" type="button" @click=${() => void view.retry()}>${t.term('retryAll')}</button>` : nothing}
    </span>
    ${active.length > 0 ? html`<span class="meta">${t.term('overallText', { done, count: done + active.length })}</span>` : nothing}
  </div>`;
}

function renderItem(view: FileListView, item: UploadItem) {
  const { t } = view;
  const name = item.FileName;
  const active = isActive(item);
  const sent = view.isSent(item);
  const percent = item.total > 0 ? Math.floor((item.loaded / item.total) * 100) : 0;
  const retryable = (item.status === 'failed' || item.status === 'cancelled') && !item.restored;
  const bad = item.status === 'failed' || item.status === 'rejected';
  // a row without a bar keeps its place: the row does not change height when its upload ends (the page below stays)
  const progress =
    !active || item.status === 'offline'
      ? html`<span class="no-progress"></span>`
      : item.status === 'uploading' || item.status === 'queued'
        ? html`<progress part="progress" aria-label=${t.term('progressOf', { name })} max=${Math.max(item.total, 1)} .value=${item.loaded}></progress>`
        : html`<progress part="progress" aria-label=${t.term('progressOf', { name })}></progress>`;
  return html`<li part="file file-${sent ? 'sent' : item.status}" data-key=${item.key} data-focus-scope=${item.key}>
    <span part="file-icon" class="file-icon" aria-hidden="true">${icon(bad ? alertIcon : item.status === 'done' ? checkIcon : fileIcon)}</span>
    <span class="body">
      <span part="file-name">${name}${item.size > 0 ? html` <span class="meta">(${t.bytes(item.size)})</span>` : nothing}</span>
      ${progress}
      <span part="file-status">${sent ? t.term('sent') : statusText(view, item, percent)}</span>
    </span>
    <span class="actions">
      ${
        active
          ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('cancelFile', { name })} @click=${() => view.cancel(item.key)}>
            ${t.term('cancel')}
          </button>`
          : nothing
      }
      ${
        retryable
          ? html`<button part="button" class="secondary small" type="button" aria-label=${t.term('retryFile', { name })} @click=${() => void view.retry(item.key)}>
            ${t.term('retry')}
          </button>`
          : nothing
      }
      ${
        !active
          ? html`<button part="button" class="quiet small" type="button" aria-label=${t.term('removeFile', { name })} @click=${() => view.remove(item.key)}>
            ${t.term('remove')}
          </button>`
          : nothing
      }
    </span>
  </li>`;
}

function statusText(view: FileListView, item: UploadItem, percent: number) {
  const { t } = view;
  switch (item.status) {
    case 'uploading':
      return t.term('uploading', { percent });
    case 'done':
      return t.term(item.restored ? 'restored' : 'done');
    case 'rejected':
      return t.term('rejected', { reason: item.error ? reasonText(t, view.limits, item.error) : '' });
    case 'failed':
      return html`${t.term('failed', { reason: item.error ? reasonText(t, view.limits, item.error) : t.term('upload_failed') })}${
        item.error?.requestId ? html` <span class="meta">${t.term('requestId', { id: item.error.requestId })}</span>` : nothing
      }`;
    default:
      return t.term(item.status);
  }
}

/** The user's words for why a file was refused or failed. */
export function reasonText(t: Terms, limits: UploaderLimits | undefined, error: EsignError): string {
  switch (error.code) {
    case 'file_too_large':
      // the service's own limit may differ from ours: its message says which
      // ours comes from the checks against the limits (there are none with a bad setting: no file goes then)
      return error.status === 413 || !limits ? error.message : t.term('file_too_large', { size: t.bytes(limits.maxSize) });
    case 'too_many_files':
      return t.plural('too_many_files', limits?.maxFiles ?? 0);
    case 'invalid_argument':
      return error.status === undefined ? t.term('empty') : serviceReason(t, error);
    case 'file_type_not_accepted':
    case 'rate_limited':
    case 'no_session':
    case 'aborted':
    case 'network_error':
    case 'csp_blocked':
      return t.term(error.code);
    case 'upload_failed':
      return serviceSilence(t, error) ?? serviceReason(t, error);
    default:
      return serviceReason(t, error);
  }
}

/** The service that never answered or could not be reached, once the retries gave up: said as that, not as its English message. */
function serviceSilence(t: Terms, failed: EsignError): string | undefined {
  const code = (failed.cause as Partial<EsignError> | undefined)?.code;
  if (unreachable(failed, true) !== 'service') return undefined;
  return code === 'timeout' || code === 'network_error' ? t.term(code) : undefined;
}

/** A failure the service explained: its message when it sent one, else what its HTTP status means. */
function serviceReason(t: Terms, error: EsignError): string {
  if (error.status !== undefined && error.status >= 500) return t.term('server_error', { status: error.status });
  if (error.serviceCode && error.message) return error.message;
  if (error.status !== undefined) return t.term('http_error', { status: error.status });
  return error.message || t.term('upload_failed');
}
