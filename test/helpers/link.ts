/**
 * A loopback TCP link in front of a server that a test can cut, as a network drops: open connections are reset and
 * new ones refused until it is restored. Works the same for every browser engine (no browser protocol involved).
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Link {
  port: number;
  setOffline(offline: boolean): void;
  close(): Promise<void>;
}

export async function openLink(targetPort: number, host = '127.0.0.1'): Promise<Link> {
  const sockets = new Set<Socket>();
  let offline = false;
  const server = createServer((client) => {
    if (offline) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    setOffline(next) {
      offline = next;
      if (offline) for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
