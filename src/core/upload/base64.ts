/**
 * Base64 of a Blob in bounded memory: the file is read a chunk at a time into one reused buffer and
 * encoded as ASCII bytes into another, so neither a string of the whole file nor a string per chunk
 * exists. The caller copies each encoded chunk (a Blob part copies it) before asking for the next.
 * Plain module: runs in browsers and Node.
 */
import { EsignError } from '@esign-elements/shared/errors';
import { abortedError } from '../service/retry.js';

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
  let i = 0;
  let o = 0;
  if (LITTLE_ENDIAN && input.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    // 12 bytes in as three 32-bit loads, 16 characters out as four 32-bit stores: a quarter of the memory operations
    const blocks = Math.floor(n / 12);
    const in32 = new Uint32Array(input.buffer, input.byteOffset, blocks * 3);
    const out32 = new Uint32Array(out.buffer, out.byteOffset, blocks * 4);
    for (let b = 0, w = 0, p = 0; b < blocks; b++, w += 3, p += 4) {
      const w0 = in32[w]!;
      const w1 = in32[w + 1]!;
      const w2 = in32[w + 2]!;
      const v0 = ((w0 & 0xff) << 16) | (w0 & 0xff00) | ((w0 >>> 16) & 0xff);
      const v1 = ((w0 >>> 24) << 16) | ((w1 & 0xff) << 8) | ((w1 >>> 8) & 0xff);
      const v2 = (((w1 >>> 16) & 0xff) << 16) | ((w1 >>> 24) << 8) | (w2 & 0xff);
      const v3 = (((w2 >>> 8) & 0xff) << 16) | (((w2 >>> 16) & 0xff) << 8) | (w2 >>> 24);
      out32[p] = PAIRS[v0 >>> 12]! | (PAIRS[v0 & 4095]! << 16);
      out32[p + 1] = PAIRS[v1 >>> 12]! | (PAIRS[v1 & 4095]! << 16);
      out32[p + 2] = PAIRS[v2 >>> 12]! | (PAIRS[v2 & 4095]! << 16);
      out32[p + 3] = PAIRS[v3 >>> 12]! | (PAIRS[v3 & 4095]! << 16);
    }
    i = blocks * 12;
    o = blocks * 16;
  }
  if (out.byteOffset % 2 === 0) {
    const out16 = new Uint16Array(out.buffer, out.byteOffset, length >> 1);
    let p = o >> 1;
    for (; i < whole; i += 3) {
      const v = (input[i]! << 16) | (input[i + 1]! << 8) | input[i + 2]!;
      out16[p] = PAIRS[v >>> 12]!;
      out16[p + 1] = PAIRS[v & 4095]!;
      p += 2;
    }
    o = p * 2;
  } else {
    for (; i < whole; i += 3) {
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

/** Reads a Blob a chunk at a time; `next()` is called again only after the previous call resolved. */
export interface ChunkReader {
  /**
   * The next chunk (full `chunkBytes` but for the last), or undefined at the end. It is a view over one of
   * two reused buffers: valid until the call after the next one resolves, so the next chunk can be read
   * while this one is encoded.
   */
  next(): Promise<Uint8Array | undefined>;
  /** Stops reading (idempotent). */
  close(): void;
}

/**
 * Opens `blob` for chunked reading with a BYOB stream reader and two alternating buffers where the
 * runtime has one, else with `slice().arrayBuffer()`.
 */
export function openChunkReader(blob: Blob, chunkBytes: number, signal?: AbortSignal): ChunkReader {
  checkChunkBytes(chunkBytes);
  let reader: ReadableStreamBYOBReader | undefined;
  try {
    reader = blob.stream().getReader({ mode: 'byob' });
  } catch {
    reader = undefined;
  }
  if (!reader) {
    let offset = 0;
    return {
      async next() {
        if (signal?.aborted) throw abortedError(signal);
        if (offset >= blob.size) return undefined;
        const part = blob.slice(offset, offset + chunkBytes);
        offset += chunkBytes;
        return new Uint8Array(await part.arrayBuffer());
      },
      close() {
        offset = blob.size;
      },
    };
  }
  const byob = reader;
  // allocated when first needed: a small file never gets the second buffer
  const buffers: Array<ArrayBuffer | undefined> = [undefined, undefined];
  let turn = 0;
  let done = false;
  return {
    async next() {
      if (done) return undefined;
      let buffer = buffers[turn] ?? new ArrayBuffer(Math.min(chunkBytes, Math.max(blob.size, 1)));
      const want = buffer.byteLength;
      let filled = 0;
      // a read may return less than asked: fill the chunk so every chunk but the last is a multiple of 3
      while (filled < want) {
        if (signal?.aborted) throw abortedError(signal);
        const result = await byob.read(new Uint8Array(buffer, filled, want - filled));
        if (result.value) {
          buffer = result.value.buffer as ArrayBuffer;
          filled += result.value.byteLength;
        }
        if (result.done) {
          done = true;
          break;
        }
      }
      buffers[turn] = buffer;
      turn ^= 1;
      return filled > 0 ? new Uint8Array(buffer, 0, filled) : undefined;
    },
    close() {
      done = true;
      void byob.cancel().catch(() => undefined);
    },
  };
}

/**
 * Yields `blob`'s bytes in full chunks of `chunkBytes` (the last may be shorter). Each is a view over a
 * reused buffer, valid until the next chunk is asked for; the next chunk is read meanwhile.
 */
export async function* readChunks(blob: Blob, chunkBytes: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = openChunkReader(blob, chunkBytes, signal);
  let pending: Promise<Uint8Array | undefined> | undefined = reader.next();
  try {
    for (;;) {
      const chunk = await pending;
      pending = undefined;
      if (!chunk) return;
      pending = reader.next();
      yield chunk;
    }
  } finally {
    // a consumer that stops early leaves a read on its way: its failure is of no interest
    pending?.catch(() => undefined);
    reader.close();
  }
}

/**
 * Yields the Base64 of `blob` chunk by chunk as ASCII bytes in one reused output buffer: copy each
 * (a Blob part does) before asking for the next.
 */
export async function* base64Chunks(blob: Blob, options: Base64ChunkOptions = {}): AsyncGenerator<Uint8Array> {
  const chunkBytes = checkChunkBytes(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const encode = base64Encoder(options.encoder);
  const out = new Uint8Array(base64Length(Math.min(chunkBytes, Math.max(blob.size, 3))));
  for await (const chunk of readChunks(blob, chunkBytes, options.signal)) {
    yield out.subarray(0, encode(chunk, out));
  }
}

/** The encode function an option names (`native` only where the runtime has it). */
export function base64Encoder(encoder: Base64Encoder | undefined): (input: Uint8Array, out: Uint8Array) => number {
  return encoder === 'native' && hasNativeBase64() ? nativeBase64Into : encodeBase64Into;
}
