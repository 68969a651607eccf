/**
 * The JSON body of POST /files/upload (`{"Files":[{"FileName","FileBody"}]}`) built as a Blob from
 * Base64 chunks, so the file's content is never one string in the JavaScript heap.
 */
import { abortedError } from '../service/retry.js';
import { base64Chunks, base64Length, checkChunkBytes, DEFAULT_CHUNK_BYTES, type Base64ChunkOptions } from './base64.js';

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
 * Builds the upload body. Each encoded chunk is copied into a Blob of its own as soon as it exists, so
 * the heap holds three reused buffers (two raw chunks, one encoded); Blob data lives outside the
 * JavaScript heap (in Chromium, in the browser process or on disk). The next chunk is read while the
 * current one is encoded. Parts are bytes, not strings: Chromium turns a string part into UTF-8 several
 * times slower than it copies bytes (measured in the benchmark).
 */
export async function buildUploadBody(files: readonly UploadBodyFile[], options: Base64ChunkOptions = {}): Promise<Blob> {
  const chunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const { signal } = options;
  const parts: BlobPart[] = files.length === 0 ? ['{"Files":['] : [];
  for (const [i, file] of files.entries()) {
    parts.push(filePrefix(file.name, i === 0));
    // base64Chunks reads the next chunk while this one is copied
    for await (const encoded of base64Chunks(file.blob, { chunkBytes, encoder: options.encoder, signal })) {
      // one Blob per chunk, joined once at the end: re-wrapping the growing body each time measured slower
      parts.push(new Blob([encoded as Uint8Array<ArrayBuffer>]));
      // buffered reads resolve as microtasks only: without a yield, a big file would block the page
      await yieldToEventLoop();
    }
    parts.push(FILE_SUFFIX);
  }
  if (signal?.aborted) throw abortedError(signal);
  parts.push(BODY_SUFFIX);
  return new Blob(parts, { type: 'application/json' });
}

interface Scheduler {
  yield?: () => Promise<void>;
}

/** Lets rendering and input run between chunks; not a timer, so a background tab does not throttle it to 1/s. */
export function yieldToEventLoop(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
