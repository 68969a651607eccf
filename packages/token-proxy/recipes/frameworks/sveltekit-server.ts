// SvelteKit: src/routes/api/esign/[...path]/+server.ts
import { env } from '$env/dynamic/private';
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';
import type { RequestHandler } from './$types';

// made on the first request: `vite build` loads this module without the secrets ($env/dynamic/private: run time)
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(env, { basePath: '/api/esign' }));

// the caller's address: getClientAddress() is the socket's with adapter-node (behind a reverse proxy set its
// ADDRESS_HEADER=X-Forwarded-For and XFF_DEPTH=1), and the platform's with adapter-vercel, -netlify, -cloudflare
const handler: RequestHandler = ({ request, getClientAddress }) => esignTokens(request, { clientAddress: getClientAddress() });

export { handler as GET, handler as POST, handler as OPTIONS };
