/**
 * The services behind `npm start`'s demos (scripts/start.ts), on the ports given: the emulator (demo seed) and the
 * token proxy for its demo app. Also started by test/e2e/demo-loopback.test.ts on free ports.
 *
 * The demo page may be opened as `http://localhost:<port>` or `http://127.0.0.1:<port>`: two sites to a browser. The
 * proxy's session cookie is SameSite=Strict and its pre-login cookie belongs to the host the sign-in started at, so
 * each name needs a proxy reached by that same name whose callback is on that name too (stories/demo-config.ts picks the
 * name of the page). One port serves both: by the Host the browser used, a proxy whose public origin is
 * `http://localhost:<port>` or one whose public origin is `http://127.0.0.1:<port>` (the same client and cookie key;
 * both callbacks registered). A development arrangement only: a deployed proxy has one public origin.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createEmulator, type RunningEmulator } from '@esign-elements/emulator';
import { createTokenProxy, generateCookieKey, MemoryStore, type TokenProxyHandler } from '@esign-elements/token-proxy';

export interface DemoPorts {
  /** The emulator's business API; 0 picks a free one. */
  emulator: number;
  /** The emulator's file domain; 0 picks a free one. */
  files: number;
  /** The token proxy; 0 picks a free one. */
  proxy: number;
}

export interface DemoServices {
  emulator: RunningEmulator;
  clientId: string;
  /** The proxy as a page on localhost reaches it, e.g. `http://localhost:4020` (stories/demo-config.ts swaps the name for 127.0.0.1). */
  proxyUrl: string;
  /** The proxy's callbacks, one per loopback name (registered at the emulator). */
  callbackUrls: string[];
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1'] as const;

/** Starts the emulator and the token proxy; `pageOrigins` are the demo pages' origins (both loopback names of Storybook's port). */
export async function startDemoServices(ports: DemoPorts, pageOrigins: string[]): Promise<DemoServices> {
  const emulator = await createEmulator({ port: ports.emulator, filePort: ports.files, devRedirects: true });
  const app = emulator.seed.apps.find((a) => a.clientId === 'demo-client') ?? emulator.seed.apps[0];
  if (!app) {
    await emulator.close();
    throw new Error('the emulator seed has no app');
  }
  // an ephemeral cookie key: sessions end when the demo stops
  const cookieKeys = [generateCookieKey()];
  // one process serves both names: one store in memory, shared, so rate limits and Disconnect hold across the two (and
  // the proxy's "memory store, this instance alone" warning, meant for a mounted proxy on several instances, stays quiet)
  const store = new MemoryStore();
  const proxies = new Map<string, TokenProxyHandler>();
  const server = serve({
    // the Host the browser used picks the proxy of that name; any other name is localhost's (its pages are refused)
    fetch: (request: Request) => (proxies.get(new URL(request.url).hostname) ?? proxies.get('localhost')!)(request),
    port: ports.proxy,
    hostname: '127.0.0.1',
  }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', () => resolve());
    });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  for (const name of LOOPBACK_NAMES) {
    proxies.set(
      name,
      createTokenProxy({
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        baseUrl: emulator.baseUrl,
        publicOrigin: `http://${name}:${port}`,
        allowedOrigins: pageOrigins,
        redirectUris: app.redirectUris,
        cookieKeys,
        store,
        // the opt-in mode's story (BrowserHeld) redeems its code here too
        browserHeldRefreshTokens: true,
      }),
    );
  }
  // the default mode's redirect URIs: the proxy's own callbacks (the emulator's --dev-redirects would accept them anyway)
  const callbackUrls = LOOPBACK_NAMES.map((name) => `http://${name}:${port}/callback`);
  for (const url of callbackUrls) emulator.registerRedirectUri(app.clientId, url);
  return {
    emulator,
    clientId: app.clientId,
    proxyUrl: `http://localhost:${port}`,
    callbackUrls,
    close: async () => {
      server.closeAllConnections();
      await Promise.allSettled([new Promise((resolve) => server.close(resolve)), emulator.close()]);
    },
  };
}
