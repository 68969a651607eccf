/** Where the demos find the emulator and the token proxy that `npm start` runs beside Storybook. */
import '../src/esign-connect.js';

const env = (import.meta as unknown as { env?: Record<string, string | undefined> }).env ?? {};

/**
 * The token proxy on the same site as this page, whichever loopback name the page was opened with: its session
 * cookie is SameSite=Strict, and localhost and 127.0.0.1 are different sites (Storybook prints 127.0.0.1, `npm start`
 * prints localhost). The proxy listens on 127.0.0.1, which both names reach, and `npm start` runs it under each name with
 * its callback on that name (scripts/demo-services.ts), so the sign-in starts and ends on the page's own host.
 */
function sameSiteLoopback(url: string): string {
  const parsed = new URL(url);
  const page = typeof location === 'undefined' ? '' : location.hostname;
  const loopback = ['localhost', '127.0.0.1'];
  if (loopback.includes(parsed.hostname) && loopback.includes(page)) parsed.hostname = page;
  return parsed.href;
}

export const demo = {
  clientId: env['STORYBOOK_ESIGN_CLIENT_ID'] ?? 'demo-client',
  baseUrl: env['STORYBOOK_ESIGN_BASE_URL'] ?? 'http://127.0.0.1:4010',
  tokenEndpoint: sameSiteLoopback(env['STORYBOOK_ESIGN_TOKEN_ENDPOINT'] ?? 'http://localhost:4020/token'),
  /** The emulator's page of sent emails (invitations, signing requests). */
  outbox: `${env['STORYBOOK_ESIGN_BASE_URL'] ?? 'http://127.0.0.1:4010'}/__emulator/outbox.html`,
};

/**
 * When this page was loaded as the OAuth redirect target of the browser-held mode (the default mode's code goes to
 * the token proxy's callback, never here), an <esign-connect> of that mode completes (or relays) the sign-in.
 */
export function completeCallbackIfAny(): void {
  const params = new URLSearchParams(location.search);
  if (!params.has('state') || !(params.has('code') || params.has('error'))) return;
  const el = document.createElement('esign-connect');
  el.setAttribute('refresh-tokens', 'browser');
  el.setAttribute('client-id', demo.clientId);
  el.setAttribute('base-url', demo.baseUrl);
  el.setAttribute('token-endpoint', demo.tokenEndpoint);
  document.body.prepend(el);
}
