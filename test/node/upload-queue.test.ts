import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
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
    assert.deepEqual(
      h.queue.items.map((i) => i.status),
      ['done', 'failed', 'done'],
    );
    assert.equal(h.errors[0]?.[1].code, 'upload_failed');
    assert.equal(h.errors[0]?.[1].requestId, 'req-400');
    failB = false;
    const failed = h.queue.items.find((i: UploadItem) => i.status === 'failed')!;
    await h.queue.retry(failed.key);
    assert.deepEqual(
      h.queue.items.map((i) => i.status),
      ['done', 'done', 'done'],
    );
  });

  it('cancels a file in flight with aborted and leaves it retryable', async () => {
    let sending!: () => void;
    const inFlight = new Promise<void>((resolve) => (sending = resolve));
    const h = harness(
      (o) =>
        new Promise((_, reject) => {
          o.signal?.addEventListener('abort', () => reject(new EsignError('aborted', 'x')));
          sending();
        }),
    );
    const { items, settled } = h.queue.add([file('a.pdf'), file('b.pdf'), file('c.pdf')]);
    // the first file is on the wire (its request sent), not merely queued
    await inFlight;
    h.queue.cancel(items[0]!.key);
    h.queue.cancel();
    await settled;
    assert.deepEqual(
      h.queue.items.map((i) => i.status),
      ['cancelled', 'cancelled', 'cancelled'],
    );
    assert.deepEqual(
      h.errors.map(([, e]) => e.code),
      ['aborted', 'aborted', 'aborted'],
    );
    assert.equal(h.events.length, 0);
  });
});

describe('upload queue offline and back online', () => {
  /** A service whose answers the test releases; a request rejects as XHR does when aborted or cut off. */
  function service() {
    const sent: string[] = [];
    const open: Array<{ name: string; release: () => void; cut: () => void }> = [];
    const send = async (o: SendOptions): Promise<RawResponse> => {
      const name = (JSON.parse(await o.body.text()) as { Files: Array<{ FileName: string }> }).Files[0]!.FileName;
      sent.push(name);
      return new Promise((resolve, reject) => {
        const entry = {
          name,
          release: () => resolve(ok(name, `id-${name}-${sent.length}`)),
          cut: () => reject(new EsignError('network_error', 'Could not reach the service.')),
        };
        open.push(entry);
        o.signal?.addEventListener('abort', () => reject(new EsignError('aborted', 'aborted')), { once: true });
      });
    };
    return { sent, open, send };
  }

  function queueWith(send: (o: SendOptions) => Promise<RawResponse>, online = true) {
    const errors: EsignError[] = [];
    const events: string[] = [];
    const queue = new UploadQueue(
      {
        session: () => ({ baseUrl: 'http://127.0.0.1:1', tokens: { getAccessToken: async () => 'tok' } }),
        onChange: () => undefined,
        onProgress: () => undefined,
        onError: (_item, error) => errors.push(error),
        onComplete: () => events.push('complete'),
      },
      { send, chunkBytes: 3, online },
    );
    return { queue, errors, events };
  }

  const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
  /** Polls until `check` holds (the queue encodes and sends asynchronously). */
  async function until(check: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 400 && !check(); i++) await tick();
    assert.ok(check(), `in time: ${what}`);
  }
  const statuses = (queue: UploadQueue) => queue.items.map((i) => i.status);

  it('parks files in flight and queued as offline (no error), restarts them online; a finished file is never sent again', async () => {
    const s = service();
    const { queue, errors, events } = queueWith(s.send);
    const { settled } = queue.add([file('a.pdf'), file('b.pdf'), file('c.pdf')]);
    await until(() => s.open.length === 2, 'two requests in flight');
    assert.deepEqual(s.sent, ['a.pdf', 'b.pdf'], 'two requests in flight');
    s.open.find((o) => o.name === 'a.pdf')!.release();
    await until(() => s.open.length === 3, 'c.pdf sent');
    assert.deepEqual(statuses(queue), ['done', 'uploading', 'uploading'], 'a.pdf done, b.pdf and c.pdf in flight');
    queue.setOnline(false);
    await until(() => statuses(queue).join() === 'done,offline,offline', 'the files on their way wait');
    assert.equal(queue.busy, true, 'waiting files keep the queue busy');
    assert.deepEqual(errors, [], 'going offline is not an error');
    assert.deepEqual(events, [], 'no completion while files wait');
    const sentOffline = s.sent.length;
    await tick(20);
    assert.equal(s.sent.length, sentOffline, 'nothing is sent while offline');
    queue.setOnline(true);
    await until(() => s.open.length === 5, 'two requests again');
    assert.deepEqual(s.sent.slice(sentOffline).sort(), ['b.pdf', 'c.pdf'], 'the waiting files restart their requests, a.pdf is not sent again');
    for (const o of s.open.slice(-2)) o.release();
    await settled;
    assert.deepEqual(statuses(queue), ['done', 'done', 'done'], 'everything uploaded');
    const ids = queue.completed.map((f) => f.FileId);
    assert.equal(new Set(ids).size, 3, `one FileId per file (${ids.join(', ')})`);
    assert.deepEqual(events, ['complete'], 'one completion');
    assert.deepEqual(errors, [], 'no error at all');
  });

  it('a network error while the browser says it is offline parks the file instead of failing or retrying it', async () => {
    const s = service();
    const { queue, errors } = queueWith(s.send);
    const onLine = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { configurable: true, value: { onLine: false } });
    try {
      const { settled } = queue.add([file('a.pdf'), file('b.pdf'), file('c.pdf')]);
      await until(() => s.open.length === 2, 'two requests in flight');
      s.open[0]!.cut();
      await until(() => statuses(queue).join() === 'offline,offline,offline', 'the cut file and the others wait');
      assert.equal(queue.online, false, 'the queue knows it is offline');
      assert.deepEqual(errors, [], 'no error');
      Object.defineProperty(globalThis, 'navigator', { configurable: true, value: { onLine: true } });
      queue.setOnline(true);
      await until(() => s.open.length === 4, 'two requests again');
      for (const o of s.open.slice(2)) o.release();
      await until(() => s.open.length === 5, 'the third file sent');
      s.open[4]!.release();
      await settled;
      assert.deepEqual(statuses(queue), ['done', 'done', 'done'], 'everything uploaded after the connection came back');
      assert.deepEqual(errors, [], 'no error');
    } finally {
      if (onLine) Object.defineProperty(globalThis, 'navigator', onLine);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });

  it('starting offline sends nothing; a waiting file can be cancelled; the rest go when online', async () => {
    const s = service();
    const { queue, errors } = queueWith(s.send, false);
    const { items, settled } = queue.add([file('a.pdf'), file('b.pdf')]);
    await tick();
    assert.deepEqual(statuses(queue), ['offline', 'offline'], 'both wait');
    assert.deepEqual(s.sent, [], 'nothing sent');
    queue.cancel(items[0]!.key);
    assert.deepEqual(statuses(queue), ['cancelled', 'offline'], 'a waiting file is cancellable');
    queue.setOnline(true);
    await until(() => s.open.length === 1, 'b.pdf sent');
    s.open[0]!.release();
    await settled;
    assert.deepEqual(statuses(queue), ['cancelled', 'done'], 'the other uploaded');
    assert.deepEqual(s.sent, ['b.pdf'], 'only b.pdf was sent');
    assert.deepEqual(
      errors.map((e) => e.code),
      ['aborted'],
      'only the cancel is reported',
    );
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
    assert.ok(r.waits[1]! >= 1000, `the 429 wait honours Retry-After (${r.waits[1]} ms)`);
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
    await assert.rejects(
      run([fail(413, 'LimitExceeded.FileSize')]).result,
      (e: EsignError) => e.code === 'file_too_large' && e.message === 'LimitExceeded.FileSize happened' && e.requestId === 'req-413',
    );
    await assert.rejects(run([0, 1, 2, 3].map(() => fail(502, 'InternalError'))).result, (e: EsignError) => e.code === 'upload_failed' && e.status === 502);
    await assert.rejects(run([0, 1, 2, 3].map(() => fail(429, 'RequestLimitExceeded'))).result, (e: EsignError) => e.code === 'rate_limited');
  });

  it('refuses a 200 without Files as bad_response', () => {
    assert.throws(
      () => interpretUploadResponse(answer(200, { Response: { RequestId: 'r', Data: {} } })),
      (e: EsignError) => e.code === 'bad_response',
    );
  });
});
