/** The detail of an `esign-error`: the error, what could not be reached (`hop`, when that is the failure), the file. */
import type { EsignError } from '@esign-elements/shared/errors';
import { browserOnline, unreachable } from '../../core/service/unreachable.js';
import type { EsignErrorDetail, UploadFileRef } from './events.js';

export function errorDetail(error: EsignError, file?: UploadFileRef): EsignErrorDetail {
  const detail: EsignErrorDetail = { error };
  const hop = unreachable(error, browserOnline());
  if (hop) detail.hop = hop;
  if (file) detail.file = file;
  return detail;
}
