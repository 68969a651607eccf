/**
 * Base64 of a Blob in bounded memory: the file is read a chunk at a time into one reused buffer and
 * encoded as ASCII bytes into another, so neither a string of the whole file nor a string per chunk
 * exists. The caller copies each encoded chunk (a Blob part copies it) before asking for the next.
 * Plain module: runs in browsers and Node.
 */
import { EsignError } from '../errors.js';
import { abortedError } from '../retry.js';

/** 3 MiB: a multiple of 3 (so chunks concatenate into one valid Base64 text); bench/upload.bench.ts measures the choice. */
export const DEFAULT_CHUNK_BYTES = 3 * 1024 * 1024;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 61; // '='
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Two Base64 characters per 12 bits, as one 16-bit store: half the stores of a per-character table. */
const PAIRS = new Uint16Array(4096);
for (let i = 0; i < 4096; i++) {
  const first = CODES[i >> 6]!;
  const second = CODES[i & 63]!;
  PAIRS[i] = LITTLE_ENDIAN ? first | (second << 8) : (first << 8) | second;
}

/** `js`: the table encoder (no allocation). `native`: `Uint8Array.prototype.toBase64` then `TextEncoder.encodeInto`. */
export type Base64Encoder = 'js' | 'native';

/** True when the runtime has `Uint8Array.prototype.toBase64` (TC39 proposal-arraybuffer-base64). */
export function hasNativeBase64(): boolean {
  return typeof (Uint8Array.prototype as unknown as { toBase64?: unknown }).toBase64 === 'function';
}

/** Length of the padded Base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** Writes the padded standard Base64 of `input` as ASCII into `out` from index 0; returns the bytes written. */
export function encodeBase64Into(input: Uint8Array, out: Uint8Array): number {
  const n = input.length;
  const length = base64Length(n);
  if (out.length < length) throw new EsignError('invalid_argument', `encodeBase64Into needs ${length} bytes of output, not ${out.length}.`);
  const whole = n - (n % 3);
  let o = 0;
  if (out.byteOffset % 2 === 0) {
    const out16 = new Uint16Array(out.buffer, out.byteOffset, length >> 1);
    let p = 0;
    for (let i = 0; i < whole; i += 3) {
      const v = (input[i]! << 16) | (input[i + 1]! << 8) | input[i + 2]!;
      out16[p] = PAIRS[v >>> 12]!;
      out16[p + 1] = PAIRS[v & 4095]!;
      p += 2;
    }
    o = p * 2;
  } else {
    for (let i = 0; i < whole; i += 3) {
      const v = (input[i]! << 16) | (input[i + 1]! << 8) | input[i + 2]!;
      out[o] = CODES[v >>> 18]!;
      out[o + 1] = CODES[(v >>> 12) & 63]!;
      out[o + 2] = CODES[(v >>> 6) & 63]!;
      out[o + 3] = CODES[v & 63]!;
      o += 4;
    }
  }
  const rest = n - whole;
  if (rest > 0) {
    const v = (input[whole]! << 16) | (rest === 2 ? input[whole + 1]! << 8 : 0);
    out[o] = CODES[v >>> 18]!;
    out[o + 1] = CODES[(v >>> 12) & 63]!;
    out[o + 2] = rest === 2 ? CODES[(v >>> 6) & 63]! : PAD;
    out[o + 3] = PAD;
    o += 4;
  }
  return o;
}

const textEncoder = new TextEncoder();

/** The same through the native encoder: a string per call, copied into `out`. */
export function nativeBase64Into(input: Uint8Array, out: Uint8Array): number {
  const text = (input as unknown as { toBase64(): string }).toBase64();
  return textEncoder.encodeInto(text, out).written;
}

/** Padded standard Base64 as a new ASCII byte array. */
export function base64Ascii(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(base64Length(bytes.length));
  encodeBase64Into(bytes, out);
  return out;
}

export interface Base64ChunkOptions {
  /** Bytes read per chunk; a positive multiple of 3. */
  chunkBytes?: number;
  signal?: AbortSignal | undefined;
  /** Default `js`: measured faster end to end than `native` and allocation-free (see bench/upload.bench.ts). */
  encoder?: Base64Encoder;
}

export function checkChunkBytes(chunkBytes: number): number {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 3 !== 0) {
    throw new EsignError('invalid_argument', `chunkBytes must be a positive multiple of 3, not ${chunkBytes}.`);
  }
  return chunkBytes;
}

/**
 * Yields `blob`'s bytes in full chunks of `chunkBytes` (the last may be shorter), each a view over one
 * reused buffer: valid only until the next chunk is asked for. Reads with a BYOB stream reader where
 * the runtime has one, else with `slice().arrayBuffer()`.
 */
export async function* readChunks(blob: Blob, chunkBytes: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  let reader: ReadableStreamBYOBReader | undefined;
  try {
    reader = blob.stream().getReader({ mode: 'byob' });
  } catch {
    reader = undefined;
  }
  if (!reader) {
    for (let offset = 0; offset < blob.size; offset += chunkBytes) {
      if (signal?.aborted) throw abortedError(signal);
      yield new Uint8Array(await blob.slice(offset, offset + chunkBytes).arrayBuffer());
    }
    return;
  }
  let buffer = new ArrayBuffer(chunkBytes);
  try {
    for (;;) {
      let filled = 0;
      let done = false;
      // a read may return less than asked: fill the chunk so every chunk but the last is a multiple of 3
      while (filled < chunkBytes) {
        if (signal?.aborted) throw abortedError(signal);
        const result = await reader.read(new Uint8Array(buffer, filled, chunkBytes - filled));
        if (result.value) {
          buffer = result.value.buffer as ArrayBuffer;
          filled += result.value.byteLength;
        }
        if (result.done) {
          done = true;
          break;
        }
      }
      if (filled > 0) yield new Uint8Array(buffer, 0, filled);
      if (done) return;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

/**
 * Yields the Base64 of `blob` chunk by chunk as ASCII bytes in one reused output buffer: copy each
 * (a Blob part does) before asking for the next.
 */
export async function* base64Chunks(blob: Blob, options: Base64ChunkOptions = {}): AsyncGenerator<Uint8Array> {
  const chunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const encode = options.encoder === 'native' && hasNativeBase64() ? nativeBase64Into : encodeBase64Into;
  const out = new Uint8Array(base64Length(Math.min(chunkBytes, Math.max(blob.size, 3))));
  for await (const chunk of readChunks(blob, chunkBytes, options.signal)) {
    yield out.subarray(0, encode(chunk, out));
  }
}
