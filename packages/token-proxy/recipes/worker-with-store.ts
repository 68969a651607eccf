// Cloudflare Workers with a shared store: rate limits, refresh dedupe and Disconnect hold across every isolate
import { createTokenProxy, type TokenProxyHandler } from '@esign-elements/token-proxy';
import { DurableObjectStore } from './durable-object-store.js';

export { ProxyStoreEntry } from './durable-object-store.js';

interface Env {
  ESIGN_CLIENT_ID: string;
  ESIGN_CLIENT_SECRET: string;
  ESIGN_BASE_URL: string;
  ESIGN_COOKIE_KEYS: string;
  ESIGN_ALLOWED_ORIGINS: string;
  ESIGN_PUBLIC_ORIGIN: string;
  ESIGN_STORE: DurableObjectNamespace;
}

let esignTokens: TokenProxyHandler | undefined;

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    esignTokens ??= createTokenProxy({
      clientId: env.ESIGN_CLIENT_ID,
      clientSecret: env.ESIGN_CLIENT_SECRET,
      baseUrl: env.ESIGN_BASE_URL,
      cookieKeys: env.ESIGN_COOKIE_KEYS.split(','),
      allowedOrigins: env.ESIGN_ALLOWED_ORIGINS.split(','),
      publicOrigin: env.ESIGN_PUBLIC_ORIGIN,
      basePath: '/api/esign',
      clientAddress: (r) => r.headers.get('cf-connecting-ip') ?? undefined,
      store: new DurableObjectStore(env.ESIGN_STORE),
    });
    // ctx: the refresh's last store write (after the answer) goes to ctx.waitUntil
    return esignTokens(request, env, ctx);
  },
};
