// Nuxt: server/routes/api/esign/[...path].ts (a Nitro route; defineEventHandler, toWebRequest and getRequestIP are
// auto-imported from h3)
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

// made on the first request, from the server's environment: ESIGN_* are read at run time and never reach the page
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(process.env, { basePath: '/api/esign' }));

// the caller's address: the socket's (getRequestIP without xForwardedFor ignores a client's X-Forwarded-For); behind
// your reverse proxy, the last X-Forwarded-For entry; on Vercel, getRequestHeader(event, 'x-real-ip')
export default defineEventHandler((event) => esignTokens(toWebRequest(event), { clientAddress: getRequestIP(event) }));
