// Angular SSR: src/server.ts as `ng new --ssr` makes it, with the token proxy before the Angular engine
import { AngularNodeAppEngine, createNodeRequestHandler, isMainModule, writeResponseToNodeResponse } from '@angular/ssr/node';
import { getRequestListener } from '@hono/node-server';
import { createTokenProxy, tokenProxyOptionsFromEnv } from '@esign-elements/token-proxy';
import express from 'express';
import { join } from 'node:path';

const browserDistFolder = join(import.meta.dirname, '../browser');
const app = express();
const angularApp = new AngularNodeAppEngine();

// made on the first request: `ng build` loads this module (route extraction) without the secrets
const esignTokens = createTokenProxy(() => tokenProxyOptionsFromEnv(process.env, { basePath: '/api/esign' }));
// the caller's address: the socket's, passed on by getRequestListener; behind a reverse proxy,
// ESIGN_TRUSTED_PROXIES=<its address> makes the X-Forwarded-For it sets count, and only then
const esignListener = getRequestListener(esignTokens);
// first, before any body parser, and without a mount path (it would be stripped from req.url)
app.use((req, res, next) => (req.path.startsWith('/api/esign/') ? esignListener(req, res) : next()));

app.use(express.static(browserDistFolder, { maxAge: '1y', index: false, redirect: false }));
app.use((req, res, next) => {
  angularApp
    .handle(req)
    .then((response) => (response ? writeResponseToNodeResponse(response, res) : next()))
    .catch(next);
});

if (isMainModule(import.meta.url)) app.listen(Number(process.env['PORT'] || 4000));

export const reqHandler = createNodeRequestHandler(app);
