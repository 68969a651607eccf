/**
 * The uploader's limits: its settings (`accept`, `max-size`, `max-files`) checked and normalized. The files
 * themselves are checked against them in check-files.ts, loaded with the first file. Plain module.
 */
import { EsignError } from '@esign-elements/shared/errors';

/** (assumption) The service's single-file limit: 20 MiB (a setting; the service reports 413 over it). */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * (assumption) What the service takes: PDF, the common office formats and scanned images. The
 * reference does not list types; extensions and MIME types both, since dropped files may lack either.
 */
export const DEFAULT_ACCEPT = [
  '.pdf',
  'application/pdf',
  '.doc',
  'application/msword',
  '.docx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls',
  'application/vnd.ms-excel',
  '.xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt',
  'application/vnd.ms-powerpoint',
  '.pptx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.rtf',
  '.txt',
  '.odt',
  '.ods',
  '.odp',
  '.jpg',
  '.jpeg',
  'image/jpeg',
  '.png',
  'image/png',
  '.bmp',
  'image/bmp',
  '.tif',
  '.tiff',
  'image/tiff',
  '.heic',
  'image/heic',
].join(',');

export interface UploaderLimits {
  /** Normalized accept tokens; empty means any type. */
  accept: string[];
  maxSize: number;
  /** Files the uploader may hold at once; Infinity for no limit. */
  maxFiles: number;
  /** Ms an upload may go with neither progress nor an answer before it is told as the service not answering (0: no end). */
  requestTimeout: number;
}

export interface LimitsInput {
  accept?: string | null | undefined;
  maxSize?: unknown;
  maxFiles?: unknown;
  multiple?: boolean;
  requestTimeout?: unknown;
}

/** The uploader's `request-timeout` when none is set: an upload with neither progress nor an answer for a minute. */
export const DEFAULT_UPLOAD_TIMEOUT_MS = 60_000;

/** Parses the uploader's settings; throws `invalid_config` with a message an integrator can act on. */
export function parseLimits(input: LimitsInput): UploaderLimits {
  const accept = parseAccept(input.accept ?? DEFAULT_ACCEPT);
  let maxSize = DEFAULT_MAX_FILE_BYTES;
  if (input.maxSize !== undefined && input.maxSize !== null) {
    const value = typeof input.maxSize === 'string' && input.maxSize.trim() !== '' ? Number(input.maxSize) : input.maxSize;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new EsignError('invalid_config', `max-size must be a positive number of bytes, not ${JSON.stringify(input.maxSize)}.`);
    }
    maxSize = Math.floor(value);
  }
  let maxFiles = Infinity;
  if (input.maxFiles !== undefined && input.maxFiles !== null) {
    const value = typeof input.maxFiles === 'string' && input.maxFiles.trim() !== '' ? Number(input.maxFiles) : input.maxFiles;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new EsignError('invalid_config', `max-files must be a positive whole number, not ${JSON.stringify(input.maxFiles)}.`);
    }
    maxFiles = value;
  }
  if (input.multiple === false) maxFiles = Math.min(maxFiles, 1);
  let requestTimeout = DEFAULT_UPLOAD_TIMEOUT_MS;
  if (input.requestTimeout !== undefined && input.requestTimeout !== null) {
    const value = typeof input.requestTimeout === 'string' && input.requestTimeout.trim() !== '' ? Number(input.requestTimeout) : input.requestTimeout;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new EsignError('invalid_config', `request-timeout must be a number of milliseconds, 0 or more, not ${JSON.stringify(input.requestTimeout)}.`);
    }
    requestTimeout = value;
  }
  return { accept, maxSize, maxFiles, requestTimeout };
}

/** `accept` as the file input takes it: `.ext`, `type/*` or `type/subtype`, comma-separated. */
export function parseAccept(accept: string): string[] {
  const tokens = accept
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
  for (const token of tokens) {
    if (!/^\.[^./\\\s]+$/.test(token) && !/^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+)$/.test(token)) {
      throw new EsignError('invalid_config', `accept has an entry that is neither ".ext" nor a MIME type: ${JSON.stringify(token)}.`);
    }
  }
  return tokens;
}
