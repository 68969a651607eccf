// Next.js (App Router): app/api/esign/[...path]/route.ts (a catch-all: login/done is two segments)
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

// made on the first request, so `next build` needs no secret; ESIGN_* are server-only (never NEXT_PUBLIC_*)
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(process.env, { basePath: '/api/esign' }));

// the caller's address: on Vercel its edge sets x-real-ip (a client cannot). Behind your own reverse proxy: the
// address it appends, request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim(). `next start` exposed
// directly has none to trust (it keeps a client's X-Forwarded-For): left out, each sign-in is limited on its own
function handler(request: Request): Promise<Response> {
  return esignTokens(request, { clientAddress: process.env.VERCEL ? request.headers.get('x-real-ip') : undefined });
}

export { handler as GET, handler as POST, handler as OPTIONS };
