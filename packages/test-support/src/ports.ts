/**
 * A loopback port free at the time of asking, for a server a test starts later (a CLI, redis-server, a proxy whose
 * address another server must know first) that cannot take port 0.
 *
 * The port is picked below the kernel's ephemeral range (`ip_local_port_range`, 32768 and up on Linux). Port 0 would
 * hand out an ephemeral port, and every outgoing connection on the machine (a browser's, undici's, another test
 * file's) takes its local port from that same range: between this call and the server's `listen`, which can be half
 * a minute in a suite, one of them could take it (EADDRINUSE, seen in CI). Below the range only another test's
 * server can collide, and the bind check here rules out one that is already listening.
 *
 * The range 23000 up to the ephemeral floor is this helper's; the Redis cluster helper picks its nodes below 13000
 * (their bus ports, +10000, below 23000), so the two never hand out the same port.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FIRST = 23_000;

function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FIRST + 1000 ? low : 32_768;
  } catch {
    return 32_768; // not Linux: the IANA dynamic range starts at 49152, so 23000–32767 is outside it too
  }
}

/** Whether a server can listen on the port on 127.0.0.1 now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const handedOut = new Set<number>();

export function freePort(): Promise<number> {
  return freePorts(1);
}

/** The first of `count` consecutive loopback ports, all free at the time of asking (a CLI's `--port` and `--port + 1`). */
export async function freePorts(count: number): Promise<number> {
  const end = ephemeralFloor() - count + 1;
  search: for (let attempt = 0; attempt < 200; attempt++) {
    const first = FIRST + Math.floor(Math.random() * (end - FIRST));
    for (let port = first; port < first + count; port++) {
      if (handedOut.has(port) || !(await isPortFree(port))) continue search;
    }
    for (let port = first; port < first + count; port++) handedOut.add(port);
    return first;
  }
  throw new Error(`freePorts: no ${count} free loopback ports in ${FIRST}–${end + count - 2} after 200 tries`);
}

const clusterTaken = new Set<number>();

/**
 * A port for a Redis Cluster node: its cluster bus port (port + 10000) is free too. Both below 23000: out of the
 * kernel's ephemeral range (a bus port above `freePort`'s range would land in it) and out of `freePort`'s range.
 */
export async function clusterPort(): Promise<number> {
  for (;;) {
    const port = 2_000 + Math.floor(Math.random() * 11_000);
    if (clusterTaken.has(port) || clusterTaken.has(port + 10_000)) continue;
    if ((await isPortFree(port)) && (await isPortFree(port + 10_000))) {
      clusterTaken.add(port);
      clusterTaken.add(port + 10_000);
      return port;
    }
  }
}
