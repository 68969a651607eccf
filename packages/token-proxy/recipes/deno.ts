// Deno: deno run --allow-net --allow-env --allow-read deno.ts (with esign-elements in node_modules)
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

// read on the first request, with the CLI's names (ESIGN_CLIENT_ID, ESIGN_CLIENT_SECRET, ESIGN_BASE_URL,
// ESIGN_COOKIE_KEYS, ESIGN_ALLOWED_ORIGINS, ESIGN_PUBLIC_ORIGIN: register ${ESIGN_PUBLIC_ORIGIN}/api/esign/callback)
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(Deno.env.toObject(), { basePath: '/api/esign' }));

// the caller's address: Deno.serve's second argument (info.remoteAddr, the socket's); behind a reverse proxy,
// ESIGN_TRUSTED_PROXIES=<its address> makes the X-Forwarded-For it sets count, and only then
Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') || 4020) }, esignTokens);
