/** Checks files before a byte is read: type (against the `accept` list), size and count. Plain module. */
import { EsignError } from '@esign-elements/shared/errors';
import type { UploaderLimits } from './validate.js';

/** True when the file's name or type matches one of the tokens (or there are none). */
export function isAccepted(file: { name: string; type: string }, accept: readonly string[]): boolean {
  if (accept.length === 0) return true;
  const name = file.name.toLowerCase();
  const type = file.type.toLowerCase().split(';', 1)[0]!.trim();
  return accept.some((token) => {
    if (token.startsWith('.')) return name.endsWith(token);
    if (token.endsWith('/*')) return type.startsWith(token.slice(0, -1));
    return type === token;
  });
}

export interface Rejection<F> {
  file: F;
  error: EsignError;
}

/**
 * Splits `files` into those to upload and those refused, in order; a refused file never stops the
 * others. `held` is how many files the uploader already holds (uploaded or in progress).
 */
export function validateFiles<F extends { name: string; size: number; type: string }>(
  files: readonly F[],
  limits: UploaderLimits,
  held = 0,
): { accepted: F[]; rejected: Array<Rejection<F>> } {
  const accepted: F[] = [];
  const rejected: Array<Rejection<F>> = [];
  for (const file of files) {
    const error = fileProblem(file, limits);
    if (error) rejected.push({ file, error });
    else if (held + accepted.length >= limits.maxFiles) {
      rejected.push({
        file,
        error: new EsignError('too_many_files', `At most ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'} can be uploaded here.`),
      });
    } else accepted.push(file);
  }
  return { accepted, rejected };
}

function fileProblem(file: { name: string; size: number; type: string }, limits: UploaderLimits): EsignError | undefined {
  if (!isAccepted(file, limits.accept)) {
    return new EsignError('file_type_not_accepted', `${file.name}: this type of file is not accepted.`);
  }
  if (file.size > limits.maxSize) {
    return new EsignError('file_too_large', `${file.name} is larger than ${limits.maxSize} bytes.`);
  }
  // the service refuses an empty FileBody; say so before sending anything
  if (file.size === 0) return new EsignError('invalid_argument', `${file.name} is empty.`);
  return undefined;
}
