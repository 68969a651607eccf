/** What crosses tabs (src/elements/shared/tab-channel.ts): which messages are read, and which channel a session uses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelName, readSentMessage } from '../../src/elements/shared/tab-channel.js';
import type { SessionProvider } from '../../src/elements/shared/session-context.js';

const provider = (baseUrl: string, spaceId: string | undefined): SessionProvider =>
  ({ baseUrl, session: spaceId === undefined ? undefined : { spaceId }, operatorUserId: undefined }) as unknown as SessionProvider;

describe('tab channel', () => {
  it('reads its own messages, ids only, and ignores any other', () => {
    const good = { v: 1, type: 'envelope-sent', envelopeId: 'env_1', fileIds: ['file_a', 'file_b'], status: 'sent' };
    assert.deepEqual(readSentMessage(good), good);
    // extra fields (a token someone added) do not go on
    assert.deepEqual(readSentMessage({ ...good, accessToken: 'secret', url: 'https://x' }), good);
    for (const bad of [
      null,
      'envelope-sent',
      { ...good, v: 2 },
      { ...good, type: 'disconnected' },
      { ...good, envelopeId: 42 },
      { ...good, envelopeId: '' },
      { ...good, status: undefined },
      { ...good, fileIds: 'file_a' },
      { ...good, fileIds: ['file_a', 7] },
      { ...good, fileIds: ['x'.repeat(201)] },
      { ...good, fileIds: Array.from({ length: 1001 }, (_, i) => `f${i}`) },
    ]) {
      assert.equal(readSentMessage(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
    }
  });

  it('names the channel by service and Space, and has none without a session', () => {
    assert.equal(channelName(provider('https://esign.example.com/', 'space_a')), 'esign-tabs|https://esign.example.com|space_a');
    assert.notEqual(channelName(provider('https://esign.example.com', 'space_a')), channelName(provider('https://esign.example.com', 'space_b')));
    assert.notEqual(channelName(provider('https://one.example.com', 'space_a')), channelName(provider('https://two.example.com', 'space_a')));
    assert.equal(channelName(provider('https://esign.example.com', undefined)), undefined);
    assert.equal(channelName(undefined), undefined);
  });
});
