/**
 * The token proxy: one Fetch-API application (Hono) that holds the app's client_secret and, in the
 * default token-mediating mode, each user's refresh token in an encrypted HttpOnly cookie, answering the
 * browser with short-lived access tokens only. Runs on any Fetch runtime (Workers, Deno, Bun, Next.js route
 * handlers, Node); this entry imports nothing from `node:`. The Node server and CLI are in
 * `@esign-elements/token-proxy/node`. Docs: docs/proxy.md.
 */

export { createTokenProxy, createTokenProxyApp, PROXY_HEADER, PROXY_HEADER_VALUE, REQUEST_ID_HEADER, type TokenProxyHandler } from './app.js';
export type { TokenProxyOptions } from './config.js';
export { tokenProxyOptionsFromEnv } from './env-options.js';
export type { TokenProxyEvent, TokenProxyEventType, TokenProxyOutcome } from './event.js';
export { combineEvents, createJsonLog, createProxyMetrics, LOG_LEVELS, type JsonLog, type LogLevel, type ProxyMetrics } from './observe.js';
export { cspSources, formatCsp, type CspInput, type CspSources } from './csp.js';
export { generateCookieKey } from './seal.js';
export { MemoryStore, StoreUnavailableError, type ProxyStore } from './store.js';
export { sanitizeTokenResponse } from './upstream-answer.js';
export type { ServeTokenProxyOptions, ServedTokenProxy } from './node.js';
