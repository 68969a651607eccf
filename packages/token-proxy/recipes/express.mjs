// Express: node express.mjs
import express from 'express';
import { getRequestListener } from '@hono/node-server';
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';

// read on the first request, with the CLI's names (ESIGN_CLIENT_ID, ESIGN_CLIENT_SECRET, ESIGN_BASE_URL,
// ESIGN_COOKIE_KEYS, ESIGN_ALLOWED_ORIGINS, ESIGN_PUBLIC_ORIGIN: register ${ESIGN_PUBLIC_ORIGIN}/api/esign/callback)
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(process.env, { basePath: '/api/esign' }));
// the caller's address: the socket's, passed on by getRequestListener; behind a reverse proxy,
// ESIGN_TRUSTED_PROXIES=<its address> makes the X-Forwarded-For it sets count, and only then
const esignListener = getRequestListener(esignTokens);

const app = express();
// before any body parser, and without a mount path (app.use('/api/esign', …) would strip it from req.url)
app.use((req, res, next) => (req.path.startsWith('/api/esign/') ? esignListener(req, res) : next()));
app.use(express.json());
app.get('/', (req, res) => res.send('the rest of your site'));

app.listen(Number(process.env.PORT || 4020), '127.0.0.1');
