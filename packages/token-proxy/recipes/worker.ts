// Cloudflare Workers (workerd): bundled by wrangler (or esbuild); secrets and variables are the Worker's bindings
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

export default {
  // bindings arrive with the first request: the options are read then, once per isolate, with the CLI's names
  // (ESIGN_CLIENT_ID, ESIGN_CLIENT_SECRET, …; register ${ESIGN_PUBLIC_ORIGIN}/api/esign/callback at the service)
  fetch: createTokenProxy((env: Record<string, unknown>) =>
    tokenProxyOptionsFromEnv(env, {
      basePath: '/api/esign',
      // Cloudflare's edge sets this header (a client cannot): the caller's address for the rate limit
      clientAddress: (request) => request.headers.get('cf-connecting-ip'),
    }),
  ),
};
