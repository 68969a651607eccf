// Express: node express.mjs
import express from 'express';
import { getRequestListener } from '@hono/node-server';
import { createTokenProxy } from '@esign-elements/token-proxy';

const esignTokens = createTokenProxy({
  clientId: process.env.ESIGN_CLIENT_ID,
  clientSecret: process.env.ESIGN_CLIENT_SECRET,
  baseUrl: process.env.ESIGN_BASE_URL,
  cookieKeys: process.env.ESIGN_COOKIE_KEYS.split(','),
  allowedOrigins: process.env.ESIGN_ALLOWED_ORIGINS.split(','),
  publicOrigin: process.env.ESIGN_PUBLIC_ORIGIN, // register ${publicOrigin}/api/esign/callback at the service
  basePath: '/api/esign',
});
// the socket's address comes with the request (getRequestListener passes it on): trustedProxies works as usual
const esignListener = getRequestListener(esignTokens);

const app = express();
// before any body parser, and without a mount path (app.use('/api/esign', …) would strip it from req.url)
app.use((req, res, next) => (req.path.startsWith('/api/esign/') ? esignListener(req, res) : next()));
app.use(express.json());
app.get('/', (req, res) => res.send('the rest of your site'));

app.listen(Number(process.env.PORT || 4020), '127.0.0.1');
