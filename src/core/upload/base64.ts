/**
 * Base64 of a Blob in bounded memory: the file is read and encoded a chunk at a time, and each
 * encoded chunk goes straight into a Blob part, so no string of the whole file ever exists.
 * Plain module: runs in browsers and Node.
 */
import { EsignError } from '../errors.js';
import { abortedError } from '../retry.js';

/** 3 MiB: a multiple of 3 (so chunks concatenate into one valid Base64 text); see bench/upload.bench.ts for the measurement. */
export const DEFAULT_CHUNK_BYTES = 3 * 1024 * 1024;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 61; // '='

/** True when the runtime has `Uint8Array.prototype.toBase64` (TC39 proposal-arraybuffer-base64). */
export function hasNativeBase64(): boolean {
  return typeof (Uint8Array.prototype as unknown as { toBase64?: unknown }).toBase64 === 'function';
}

/** Length of the padded Base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** Padded standard Base64 as ASCII bytes: the fallback where `toBase64` is missing (no string is built). */
export function base64Ascii(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  const out = new Uint8Array(base64Length(n));
  const whole = n - (n % 3);
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o] = CODES[v >>> 18]!;
    out[o + 1] = CODES[(v >>> 12) & 63]!;
    out[o + 2] = CODES[(v >>> 6) & 63]!;
    out[o + 3] = CODES[v & 63]!;
    o += 4;
  }
  if (n - whole === 1) {
    const v = bytes[whole]! << 16;
    out[o] = CODES[v >>> 18]!;
    out[o + 1] = CODES[(v >>> 12) & 63]!;
    out[o + 2] = PAD;
    out[o + 3] = PAD;
  } else if (n - whole === 2) {
    const v = (bytes[whole]! << 16) | (bytes[whole + 1]! << 8);
    out[o] = CODES[v >>> 18]!;
    out[o + 1] = CODES[(v >>> 12) & 63]!;
    out[o + 2] = CODES[(v >>> 6) & 63]!;
    out[o + 3] = PAD;
  }
  return out;
}

/** One chunk's Base64 as a Blob part: the native string where available, else ASCII bytes. */
export function encodeChunk(bytes: Uint8Array, native: boolean = hasNativeBase64()): string | Uint8Array {
  return native ? (bytes as unknown as { toBase64(): string }).toBase64() : base64Ascii(bytes);
}

export interface Base64ChunkOptions {
  /** Bytes read per chunk; a positive multiple of 3. */
  chunkBytes?: number;
  signal?: AbortSignal | undefined;
  /** Force the fallback encoder (tests, benchmarks). */
  native?: boolean;
}

export function checkChunkBytes(chunkBytes: number): number {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 3 !== 0) {
    throw new EsignError('invalid_argument', `chunkBytes must be a positive multiple of 3, not ${chunkBytes}.`);
  }
  return chunkBytes;
}

/** Yields the Base64 of `blob` chunk by chunk; only one chunk (raw and encoded) is alive at a time. */
export async function* base64Chunks(blob: Blob, options: Base64ChunkOptions = {}): AsyncGenerator<string | Uint8Array> {
  const chunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const native = options.native ?? hasNativeBase64();
  for (let offset = 0; offset < blob.size; offset += chunkBytes) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    const bytes = new Uint8Array(await blob.slice(offset, offset + chunkBytes).arrayBuffer());
    yield encodeChunk(bytes, native);
  }
}
