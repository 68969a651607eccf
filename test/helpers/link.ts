/**
 * A loopback TCP link in front of a server that a test can cut, as a network drops: open connections are reset and
 * new ones refused until it is restored; or make silent, as a server that accepts and never answers: new connections
 * are accepted and what they send is read and dropped, until it answers again (then those connections are reset, as
 * such a server's are when it is restarted). Works the same for every browser engine (no browser protocol involved).
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Link {
  port: number;
  setOffline(offline: boolean): void;
  /** How many connections it refused while cut (each a try to reach the server behind it). */
  refused(): number;
  /** Accepts and never answers (`true`), or passes through again (`false`, resetting the silent connections). */
  setSilent(silent: boolean): void;
  close(): Promise<void>;
}

export async function openLink(targetPort: number, host = '127.0.0.1'): Promise<Link> {
  const sockets = new Set<Socket>();
  let offline = false;
  let silent = false;
  let refused = 0;
  const held = new Set<Socket>();
  /** A browser's connection from now on read and dropped, never answered. */
  const hold = (client: Socket): void => {
    held.add(client);
    client.once('close', () => held.delete(client));
    client.on('error', () => client.destroy());
    client.resume();
  };
  /** The server side of each connection passed through, by its browser side. */
  const upstreams = new Map<Socket, Socket>();
  const server = createServer((client) => {
    if (offline) {
      refused += 1;
      client.destroy();
      return;
    }
    if (silent) {
      hold(client);
      return;
    }
    const upstream = connect(targetPort, host);
    upstreams.set(client, upstream);
    client.once('close', () => upstreams.delete(client));
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
    refused: () => refused,
    setSilent(next) {
      silent = next;
      if (!silent) for (const socket of held) socket.destroy();
      else {
        // the connections the browser keeps open go silent too: what they send is no longer passed on
        for (const [client, upstream] of upstreams) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          upstream.destroy();
          sockets.delete(client);
          hold(client);
        }
        upstreams.clear();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of [...sockets, ...held]) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
