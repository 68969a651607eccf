/**
 * The services an end-to-end page talks to: the emulator, with one integrator app whose return addresses are the token
 * proxy's callback (the default mode) and the page's own origin (the browser-held mode), and a token proxy for that
 * app, both on 127.0.0.1. The page is served as localhost, so every call is
 * cross-origin; the proxy's token endpoint is given as localhost too, the same site as the page, as a proxy that keeps
 * its refresh token in a SameSite=Strict cookie needs.
 */
import { createEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { generateCookieKey } from '../../src/proxy/index.js';
import { serveTokenProxy, type ServedTokenProxy } from '../../src/proxy/node.js';

export interface SiteServices {
  emulator: RunningEmulator;
  proxy: ServedTokenProxy;
  /** The proxy's token endpoint, as the page reaches it (localhost). */
  tokenEndpoint: string;
  close(): Promise<void>;
}

export async function startSiteServices(options: { clientId: string; clientSecret: string; name: string; siteOrigin: string }): Promise<SiteServices> {
  const redirectUri = `${options.siteOrigin}/`;
  const emulator = await createEmulator({
    port: 0,
    filePort: 0,
    seed: { apps: [{ clientId: options.clientId, clientSecret: options.clientSecret, name: options.name, scopes: ['envelope:create', 'envelope:read'], redirectUris: [redirectUri] }] },
  });
  const proxy = await serveTokenProxy({
    port: 0,
    host: '127.0.0.1',
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: [options.siteOrigin],
    redirectUris: [redirectUri],
    cookieKeys: [generateCookieKey()],
  });
  // the default mode's redirect URI is the proxy's own callback, registered as an integrator registers it
  emulator.registerRedirectUri(options.clientId, proxy.callbackUrl!);
  return {
    emulator,
    proxy,
    tokenEndpoint: `${proxy.url.replace('127.0.0.1', 'localhost')}/token`,
    async close() {
      await proxy.close();
      await emulator.close();
    },
  };
}
