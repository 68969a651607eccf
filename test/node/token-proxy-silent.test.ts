/**
 * A token proxy that accepts the connection and never answers (src/core/session/tokens.ts `postForm`): the call ends
 * in `timeout`, told as the token proxy and tried again like a refused connection, instead of a wait with no end. A
 * real socket on loopback; one that answers only its headers (then stalls the body) too.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EsignError } from '@esign-elements/shared/errors';
import { postForm } from '../../src/core/session/tokens.js';
import { transient, unreachable } from '../../src/core/service/unreachable.js';

describe('a token proxy that never answers', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<Socket>();

  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // read the request; for /headers-only send the status line and headers, then nothing more
      socket.once('data', (chunk) => {
        if (chunk.toString().startsWith('POST /headers-only '))
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"access');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = async (path: string): Promise<EsignError> => {
    const error = await postForm(`${base}${path}`, 'refresh_failed', new URLSearchParams({ a: '1' }), 300).then(
      () => assert.fail('the call answered'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof EsignError, String(error));
    return error;
  };

  it('no answer at all: timeout, the token proxy, worth trying again', async () => {
    const error = await failure('/token');
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /token proxy within 300 ms/);
    assert.equal(transient(error), true);
    assert.equal(unreachable(error, true), 'token-proxy');
  });

  it('headers, then a body that never ends: the same', async () => {
    const error = await failure('/headers-only');
    assert.equal(error.code, 'timeout');
    assert.equal(unreachable(error, true), 'token-proxy');
  });
});
