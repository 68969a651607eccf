import type { RunningEmulator } from '@esign-elements/emulator';
import { generateCookieKey } from '@esign-elements/token-proxy';
import { serveTokenProxy } from '@esign-elements/token-proxy/node';
import { serveDemoProxy, signInThroughProxy } from '@esign-elements/test-support/oauth-login';
import { ORIGIN, post, refreshFields } from '@esign-elements/test-support/proxy-client';

/**
 * Page script shared by the browser benches: <bench-session>, a session provider (the public connect="ID" interface:
 * baseUrl, session, operatorUserId, getAccessToken) holding a token minted in Node (`window.bench.accessToken`), so
 * no sign-in happens inside a measured span.
 */
export const BENCH_SESSION = `
class BenchSession extends HTMLElement {
  get baseUrl() { return window.bench.baseUrl; }
  get session() { return { scope: ['envelope:create'], spaceId: 'space_acme', expiresAt: new Date(Date.now() + 3600e3), connectedAt: new Date() }; }
  get operatorUserId() { return undefined; }
  async getAccessToken() { return window.bench.accessToken; }
}
customElements.define('bench-session', BenchSession);
`;

/**
 * Node side: an access token of Alice in `spaceId` as `<esign-connect>` gets one in the default mode, minted before
 * any measured span: a sign-in through a token proxy (its login route, the consent pages, its callback, which
 * redeems the code) and the page's first /token call. The proxy is closed afterwards; the token stays valid.
 */
export async function mintPageAccessToken(emulator: RunningEmulator, spaceId = 'space_acme'): Promise<string> {
  const proxy = await serveDemoProxy(serveTokenProxy, emulator, { cookieKeys: [generateCookieKey()], allowedOrigins: [ORIGIN] });
  try {
    const signedIn = await signInThroughProxy({ proxyUrl: proxy.url, origin: ORIGIN, chooseSpaceId: spaceId });
    if (signedIn.outcome.get('outcome') !== 'connected') throw new Error(`the sign-in through the proxy ended at ${signedIn.finalUrl}`);
    const answer = await post(`${proxy.url}/token`, refreshFields(), signedIn.jar);
    if (answer.status !== 200 || typeof answer.json['access_token'] !== 'string')
      throw new Error(`the proxy's first /token answered ${answer.status}: ${answer.text}`);
    return answer.json['access_token'];
  } finally {
    await proxy.close();
  }
}
