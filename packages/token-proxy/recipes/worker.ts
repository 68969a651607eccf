// Cloudflare Workers (workerd): bundled by wrangler (or esbuild); secrets and variables are the Worker's bindings
import { createTokenProxy, type TokenProxyHandler } from '@esign-elements/token-proxy';

interface Env {
  ESIGN_CLIENT_ID: string;
  ESIGN_CLIENT_SECRET: string;
  ESIGN_BASE_URL: string;
  ESIGN_COOKIE_KEYS: string;
  ESIGN_ALLOWED_ORIGINS: string;
  ESIGN_PUBLIC_ORIGIN: string;
}

let esignTokens: TokenProxyHandler | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Promise<Response> {
    // bindings arrive with the first request: the handler is made then, once per isolate
    esignTokens ??= createTokenProxy({
      clientId: env.ESIGN_CLIENT_ID,
      clientSecret: env.ESIGN_CLIENT_SECRET,
      baseUrl: env.ESIGN_BASE_URL,
      cookieKeys: env.ESIGN_COOKIE_KEYS.split(','),
      allowedOrigins: env.ESIGN_ALLOWED_ORIGINS.split(','),
      publicOrigin: env.ESIGN_PUBLIC_ORIGIN, // register ${publicOrigin}/api/esign/callback at the service
      basePath: '/api/esign',
      // Cloudflare's edge sets this header; it is the caller's address for the rate limit
      clientAddress: (r) => r.headers.get('cf-connecting-ip') ?? undefined,
    });
    return esignTokens(request, env, ctx);
  },
};
