// Cloudflare Workers with a shared store: rate limits, refresh dedupe and Disconnect hold across every isolate
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';
import { DurableObjectStore } from './durable-object-store.js';

export { ProxyStoreEntry } from './durable-object-store.js';

export default {
  // the handler is called as (request, env, ctx): the refresh's last store write (after the answer) goes to ctx.waitUntil
  fetch: createTokenProxy((env: { ESIGN_STORE: DurableObjectNamespace }) =>
    tokenProxyOptionsFromEnv(env, {
      basePath: '/api/esign',
      clientAddress: (request) => request.headers.get('cf-connecting-ip'),
      store: new DurableObjectStore(env.ESIGN_STORE),
    }),
  ),
};
