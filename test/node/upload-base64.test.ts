import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  base64Ascii,
  base64Chunks,
  base64Length,
  checkChunkBytes,
  encodeBase64Into,
  hasNativeBase64,
  nativeBase64Into,
  readChunks,
} from '../../src/core/upload/base64.js';
import { buildUploadBody, uploadBodySize } from '../../src/core/upload/body.js';
import { EsignError } from '@esign-elements/shared/errors';

async function chunkedBase64(bytes: Uint8Array, chunkBytes: number): Promise<string> {
  const parts: BlobPart[] = [];
  // each chunk is a view over a reused buffer: keep a copy
  for await (const part of base64Chunks(new Blob([bytes as Uint8Array<ArrayBuffer>]), { chunkBytes })) parts.push(part.slice());
  return new Blob(parts).text();
}

describe('Base64 in chunks', () => {
  it('encodes 0, 1, 2, 3, 4 and 5 bytes as Buffer does', () => {
    for (let n = 0; n <= 5; n++) {
      const bytes = randomBytes(n);
      assert.equal(new TextDecoder().decode(base64Ascii(bytes)), bytes.toString('base64'), `${n} bytes`);
      assert.equal(base64Length(n), bytes.toString('base64').length);
    }
  });

  it('equals Buffer base64 for random sizes and chunk sizes (multi-chunk, short last chunk)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 1, max: 3000 }), async (size, thirds) => {
        const bytes = randomBytes(size);
        assert.equal(await chunkedBase64(bytes, thirds * 3), bytes.toString('base64'));
      }),
      { numRuns: 150 },
    );
  });

  it('equals Buffer base64 for every byte value and a multi-MiB file in 3 MiB chunks', async () => {
    const all = Uint8Array.from({ length: 256 * 3 }, (_, i) => i % 256);
    assert.equal(await chunkedBase64(all, 3), Buffer.from(all).toString('base64'));
    const big = randomBytes(7 * 1024 * 1024 + 2);
    assert.equal(await chunkedBase64(big, 3 * 1024 * 1024), big.toString('base64'));
  });

  it('writes at an odd output offset too (the per-character path)', () => {
    for (let n = 0; n <= 10; n++) {
      const bytes = randomBytes(n);
      const out = new Uint8Array(base64Length(n) + 1).subarray(1);
      const written = encodeBase64Into(bytes, out);
      assert.equal(new TextDecoder().decode(out.subarray(0, written)), bytes.toString('base64'));
    }
  });

  it('equals Buffer base64 at every input and output offset around the 12-byte blocks (aligned and unaligned paths)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 }), (size, inOffset, outOffset) => {
        const bytes = randomBytes(size);
        const input = new Uint8Array(size + inOffset).subarray(inOffset);
        input.set(bytes);
        const out = new Uint8Array(base64Length(size) + outOffset + 4).fill(0x21).subarray(outOffset);
        const written = encodeBase64Into(input, out);
        assert.equal(written, base64Length(size), `${size} bytes written at in+${inOffset} out+${outOffset}`);
        assert.equal(new TextDecoder().decode(out.subarray(0, written)), bytes.toString('base64'), `${size} bytes at in+${inOffset} out+${outOffset}`);
        assert.ok(
          out.subarray(written).every((b) => b === 0x21),
          `nothing written past the end (${size} bytes at in+${inOffset} out+${outOffset})`,
        );
      }),
      { numRuns: 400 },
    );
  });

  it('reads the next chunk meanwhile, without touching the chunk in use (two buffers)', async () => {
    const bytes = randomBytes(10 * 999 + 5);
    const seen: string[] = [];
    for await (const chunk of readChunks(new Blob([bytes]), 999)) {
      const copy = Buffer.from(chunk).toString('hex');
      // the read of the next chunk runs during these turns of the event loop
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(Buffer.from(chunk).toString('hex'), copy, `chunk ${seen.length} is intact while the next is read`);
      seen.push(copy);
    }
    assert.equal(seen.join(''), bytes.toString('hex'), 'the chunks join to the file');
  });

  it('the native encoder, where the runtime has it, writes the same bytes', { skip: !hasNativeBase64() && 'no Uint8Array.prototype.toBase64 here' }, () => {
    const bytes = randomBytes(1000);
    const out = new Uint8Array(base64Length(1000));
    assert.equal(new TextDecoder().decode(out.subarray(0, nativeBase64Into(bytes, out))), bytes.toString('base64'));
  });

  it('reads full chunks even when the stream returns less per read', async () => {
    const bytes = randomBytes(200_000);
    const sizes: number[] = [];
    for await (const chunk of readChunks(new Blob([bytes]), 3 * 30_000)) sizes.push(chunk.length);
    assert.deepEqual(sizes, [90_000, 90_000, 20_000]);
  });

  it('refuses a chunk size that is not a positive multiple of 3', () => {
    for (const bad of [0, -3, 4, 1.5, Number.NaN])
      assert.throws(
        () => checkChunkBytes(bad),
        (e: EsignError) => e.code === 'invalid_argument',
      );
  });

  it('stops at an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(chunkedBase64Signal(randomBytes(10), controller.signal), (e: EsignError) => e.code === 'aborted');
  });
});

async function chunkedBase64Signal(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
  for await (const part of base64Chunks(new Blob([bytes as Uint8Array<ArrayBuffer>]), { chunkBytes: 3, signal })) void part;
}

describe('upload body', () => {
  it('is the JSON the service takes, with the exact size announced beforehand', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), fc.integer({ min: 0, max: 5000 }), async (name, size) => {
        const bytes = randomBytes(size);
        const body = await buildUploadBody([{ name, blob: new Blob([bytes as Uint8Array<ArrayBuffer>]) }], { chunkBytes: 999 });
        assert.equal(body.size, uploadBodySize([{ name, size }]));
        assert.equal(body.type, 'application/json');
        assert.deepEqual(JSON.parse(await body.text()), { Files: [{ FileName: name, FileBody: bytes.toString('base64') }] });
      }),
      { numRuns: 100 },
    );
  });

  it('holds several files in order', async () => {
    const a = randomBytes(10);
    const b = randomBytes(11);
    const files = [
      { name: 'a.pdf', blob: new Blob([a]) },
      { name: '合同 "b".pdf', blob: new Blob([b]) },
    ];
    const body = await buildUploadBody(files, { chunkBytes: 3 });
    assert.equal(body.size, uploadBodySize(files.map((f) => ({ name: f.name, size: f.blob.size }))));
    assert.deepEqual(JSON.parse(await body.text()), {
      Files: [
        { FileName: 'a.pdf', FileBody: a.toString('base64') },
        { FileName: '合同 "b".pdf', FileBody: b.toString('base64') },
      ],
    });
  });
});
