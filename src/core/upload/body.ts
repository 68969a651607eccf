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
 * Builds the upload body. Each encoded chunk is copied into the Blob as soon as it exists, so the heap
 * holds two reused buffers (a raw and an encoded chunk); Blob data lives outside the JavaScript heap
 * (in Chromium, in the browser process or on disk). Parts are bytes, not strings: Chromium turns a
 * string part into UTF-8 several times slower than it copies bytes (measured in the benchmark).
 */
export async function buildUploadBody(files: readonly UploadBodyFile[], options: Base64ChunkOptions = {}): Promise<Blob> {
  let body = new Blob(files.length === 0 ? ['{"Files":['] : []);
  for (const [i, file] of files.entries()) {
    const parts: BlobPart[] = [body, filePrefix(file.name, i === 0)];
    body = new Blob(parts);
    for await (const chunk of base64Chunks(file.blob, options)) {
      // the Blob copies the bytes now; the buffer is reused for the next chunk
      body = new Blob([body, chunk as Uint8Array<ArrayBuffer>]);
      // buffered reads resolve as microtasks only: without a yield, a big file would block the page
      await yieldToEventLoop();
    }
    body = new Blob([body, FILE_SUFFIX]);
  }
  if (options.signal?.aborted) throw abortedError(options.signal);
  return new Blob([body, BODY_SUFFIX], { type: 'application/json' });
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
