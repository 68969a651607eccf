// Deno: deno run --allow-net --allow-env --allow-read deno.ts (with esign-elements in node_modules)
import { createTokenProxy } from '@esign-elements/token-proxy';

const env = (name: string): string => Deno.env.get(name) ?? '';

const esignTokens = createTokenProxy({
  clientId: env('ESIGN_CLIENT_ID'),
  clientSecret: env('ESIGN_CLIENT_SECRET'),
  baseUrl: env('ESIGN_BASE_URL'),
  cookieKeys: env('ESIGN_COOKIE_KEYS').split(','),
  allowedOrigins: env('ESIGN_ALLOWED_ORIGINS').split(','),
  publicOrigin: env('ESIGN_PUBLIC_ORIGIN'), // register ${publicOrigin}/api/esign/callback at the service
  basePath: '/api/esign',
});

// the handler reads the caller's address from Deno.serve's second argument (info.remoteAddr)
Deno.serve({ hostname: '127.0.0.1', port: Number(env('PORT') || 4020) }, esignTokens);
