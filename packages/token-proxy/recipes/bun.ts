// Bun: bun run bun.ts
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

// read on the first request, with the CLI's names (ESIGN_CLIENT_ID, ESIGN_CLIENT_SECRET, ESIGN_BASE_URL,
// ESIGN_COOKIE_KEYS, ESIGN_ALLOWED_ORIGINS, ESIGN_PUBLIC_ORIGIN: register ${ESIGN_PUBLIC_ORIGIN}/api/esign/callback)
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(process.env, { basePath: '/api/esign' }));

// the caller's address: Bun.serve's second argument (server.requestIP, the socket's); behind a reverse proxy,
// ESIGN_TRUSTED_PROXIES=<its address> makes the X-Forwarded-For it sets count, and only then
Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PORT || 4020), fetch: esignTokens });
