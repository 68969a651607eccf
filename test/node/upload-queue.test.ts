import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '../../src/core/errors.js';
import { UploadQueue, type UploadItem } from '../../src/core/upload/queue.js';
import type { RawResponse, SendOptions } from '../../src/core/upload/transport.js';
import { uploadBody, interpretUploadResponse } from '../../src/core/upload/transport.js';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { status, text: JSON.stringify(body), headers: { get: (name) => lower[name.toLowerCase()] ?? null } };
}
const ok = (name: string, id: string) => answer(200, { Response: { RequestId: 'req-ok', Data: { Files: [{ FileId: id, FileName: name }] } } });
const fail = (status: number, code: string, headers: Record<string, string> = {}) =>
  answer(status, { Response: { RequestId: `req-${status}`, Error: { Code: code, Message: `${code} happened` } } }, headers);

function harness(send: (o: SendOptions) => Promise<RawResponse>) {
  const events: string[] = [];
  const errors: Array<[string, EsignError]> = [];
  const progress: Array<[string, number, number, number, number]> = [];
  const tokens = { calls: [] as boolean[], getAccessToken: async (o?: { forceRefresh?: boolean }) => (tokens.calls.push(!!o?.forceRefresh), 'tok') };
  const queue = new UploadQueue(
    {
      session: () => ({ baseUrl: 'http://127.0.0.1:1', tokens }),
      onChange: () => undefined,
      onProgress: (item, overall) => progress.push([item.FileName, item.loaded, item.total, overall.loaded, overall.total]),
      onError: (item, error) => errors.push([item.FileName, error]),
      onComplete: () => events.push('complete'),
    },
    { send, chunkBytes: 3 },
  );
  return { queue, events, errors, progress, tokens };
}

const file = (name: string, size = 9) => new File([new Uint8Array(size).fill(65)], name, { type: 'application/pdf' });

describe('upload queue', () => {
  it('uploads each file in its own request, reports progress to the total, then completes once', async () => {
    const bodies: string[] = [];
    const h = harness(async (o) => {
      const text = await o.body.text();
      bodies.push(text);
      o.onProgress?.(o.body.size / 2, o.body.size);
      o.onProgress?.(o.body.size, o.body.size);
      const name = (JSON.parse(text) as { Files: Array<{ FileName: string }> }).Files[0]!.FileName;
      return ok(name, `id-${name}`);
    });
    const { settled } = h.queue.add([file('a.pdf'), file('b.pdf', 30)]);
    await settled;
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(bodies.length, 2);
    assert.deepEqual(h.queue.completed, [
      { FileId: 'id-a.pdf', FileName: 'a.pdf' },
      { FileId: 'id-b.pdf', FileName: 'b.pdf' },
    ]);
    assert.deepEqual(h.events, ['complete']);
    const last = h.progress.at(-1)!;
    assert.equal(last[3], last[4]);
  });

  it('keeps the others going when one fails, and retries that one', async () => {
    let failB = true;
    const h = harness(async (o) => {
      const name = (JSON.parse(await o.body.text()) as { Files: Array<{ FileName: string }> }).Files[0]!.FileName;
      if (name === 'b.pdf' && failB) return fail(400, 'InvalidParameter');
      return ok(name, `id-${name}`);
    });
    await h.queue.add([file('a.pdf'), file('b.pdf'), file('c.pdf')]).settled;
    assert.deepEqual(h.queue.items.map((i) => i.status), ['done', 'failed', 'done']);
    assert.equal(h.errors[0]?.[1].code, 'upload_failed');
    assert.equal(h.errors[0]?.[1].requestId, 'req-400');
    failB = false;
    const failed = h.queue.items.find((i: UploadItem) => i.status === 'failed')!;
    await h.queue.retry(failed.key);
    assert.deepEqual(h.queue.items.map((i) => i.status), ['done', 'done', 'done']);
  });

  it('cancels a file in flight with aborted and leaves it retryable', async () => {
    const h = harness(
      (o) =>
        new Promise((_, reject) => {
          o.signal?.addEventListener('abort', () => reject(new EsignError('aborted', 'x')));
        }),
    );
    const { items, settled } = h.queue.add([file('a.pdf'), file('b.pdf'), file('c.pdf')]);
    await new Promise((r) => setTimeout(r, 10));
    h.queue.cancel(items[0]!.key);
    h.queue.cancel();
    await settled;
    assert.deepEqual(h.queue.items.map((i) => i.status), ['cancelled', 'cancelled', 'cancelled']);
    assert.deepEqual(h.errors.map(([, e]) => e.code), ['aborted', 'aborted', 'aborted']);
    assert.equal(h.events.length, 0);
  });
});

describe('upload transport', () => {
  const body = new Blob(['{}']);
  const run = (responses: RawResponse[], tokens = { getAccessToken: async () => 'tok' }) => {
    const sent: string[] = [];
    const waits: number[] = [];
    return {
      sent,
      waits,
      result: uploadBody({
        baseUrl: 'http://127.0.0.1:1',
        tokens,
        body,
        retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5000 },
        onRetry: (_e, ms) => waits.push(ms),
        send: async (o) => (sent.push(o.token), responses.shift()!),
      }),
    };
  };

  it('retries 503 and 429, honouring Retry-After', async () => {
    const r = run([fail(503, 'InternalError'), fail(429, 'RequestLimitExceeded', { 'Retry-After': '1' }), ok('a', 'id-a')]);
    assert.deepEqual((await r.result).files, [{ FileId: 'id-a', FileName: 'a' }]);
    assert.equal(r.sent.length, 3);
    assert.ok(r.waits[1]! >= 1000);
  });

  it('refreshes the token once on 401', async () => {
    const calls: boolean[] = [];
    const tokens = { getAccessToken: async (o?: { forceRefresh?: boolean }) => (calls.push(!!o?.forceRefresh), o?.forceRefresh ? 'new' : 'old') };
    const r = run([fail(401, 'AuthFailure.TokenExpired'), ok('a', 'id-a')], tokens);
    await r.result;
    assert.deepEqual(r.sent, ['old', 'new']);
    assert.deepEqual(calls, [false, true]);
  });

  it('reports 413 as file_too_large with the service message and RequestId; gives up on 5xx as upload_failed', async () => {
    await assert.rejects(run([fail(413, 'LimitExceeded.FileSize')]).result, (e: EsignError) =>
      e.code === 'file_too_large' && e.message === 'LimitExceeded.FileSize happened' && e.requestId === 'req-413');
    await assert.rejects(run([0, 1, 2, 3].map(() => fail(502, 'InternalError'))).result, (e: EsignError) => e.code === 'upload_failed' && e.status === 502);
    await assert.rejects(run([0, 1, 2, 3].map(() => fail(429, 'RequestLimitExceeded'))).result, (e: EsignError) => e.code === 'rate_limited');
  });

  it('refuses a 200 without Files as bad_response', () => {
    assert.throws(() => interpretUploadResponse(answer(200, { Response: { RequestId: 'r', Data: {} } })), (e: EsignError) => e.code === 'bad_response');
  });
});
