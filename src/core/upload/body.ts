/**
 * The JSON body of POST /files/upload (`{"Files":[{"FileName","FileBody"}]}`) built as a Blob from
 * Base64 chunks, so the file's content is never one string in the JavaScript heap.
 */
import { abortedError } from '../retry.js';
import { base64Chunks, base64Length, type Base64ChunkOptions } from './base64.js';

export interface UploadBodyFile {
  /** Sent as FileName. */
  name: string;
  blob: Blob;
}

const encoder = new TextEncoder();

function filePrefix(name: string, first: boolean): string {
  return `${first ? '{"Files":[' : ','}{"FileName":${JSON.stringify(name)},"FileBody":"`;
}

const FILE_SUFFIX = '"}';
const BODY_SUFFIX = ']}';

/** Exact byte size of the body `buildUploadBody` makes, known before reading a byte (progress totals). */
export function uploadBodySize(files: ReadonlyArray<{ name: string; size: number }>): number {
  let total = BODY_SUFFIX.length;
  files.forEach((file, i) => {
    total += encoder.encode(filePrefix(file.name, i === 0)).length + base64Length(file.size) + FILE_SUFFIX.length;
  });
  if (files.length === 0) total += '{"Files":['.length;
  return total;
}

/**
 * Builds the upload body. Each encoded chunk is folded into the Blob as soon as it exists, so the
 * heap holds one chunk at a time; Blob data lives outside the JavaScript heap (in Chromium, in the
 * browser process or on disk).
 */
export async function buildUploadBody(files: readonly UploadBodyFile[], options: Base64ChunkOptions = {}): Promise<Blob> {
  let body = new Blob(files.length === 0 ? ['{"Files":['] : []);
  for (const [i, file] of files.entries()) {
    const parts: BlobPart[] = [body, filePrefix(file.name, i === 0)];
    body = new Blob(parts);
    for await (const chunk of base64Chunks(file.blob, options)) {
      body = new Blob([body, chunk as BlobPart]);
    }
    body = new Blob([body, FILE_SUFFIX]);
  }
  if (options.signal?.aborted) throw abortedError(options.signal);
  return new Blob([body, BODY_SUFFIX], { type: 'application/json' });
}
