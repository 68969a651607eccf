#!/usr/bin/env node
/**
 * esign-token-proxy: runs the token proxy standalone. Every option can come from the environment so the
 * client secret and the cookie keys need not appear in a process list. Never prints a secret or a key
 * (except the new key --generate-cookie-key is asked to print).
 */

import { EsignError } from '@esign-elements/shared';
import { readFile } from 'node:fs/promises';
import { HELP, list, parseCli, readServeOptions, type ServeCli } from './cli-options.js';
import { cspSources, formatCsp } from './csp.js';
import { generateCookieKey } from './seal.js';
import type { ProxyStore } from './store.js';
import { serveTokenProxy } from './node.js';

/** A store URL as it may be printed: without user name or password (also a cluster's list of nodes, which URL cannot parse). */
function shownStore(url: string): string {
  return url.replace(/^([a-z-]+:\/\/)[^@/]*@/i, '$1');
}

async function openStore(read: ServeCli): Promise<ProxyStore | undefined> {
  const url = read.storeUrl;
  if (url === 'memory') return undefined;
  if (/^(rediss?|valkeys?)(-cluster)?:\/\//i.test(url)) {
    let redis: typeof import('./redis.js');
    try {
      redis = await import('./redis.js');
    } catch {
      throw new EsignError('invalid_config', '--store redis:// needs the package @redis/client: npm install @redis/client');
    }
    let ca: Buffer | undefined;
    if (read.storeCaFile !== undefined) {
      try {
        ca = await readFile(read.storeCaFile);
      } catch {
        throw new EsignError('invalid_config', `--store-ca-file: cannot read ${read.storeCaFile}`);
      }
    }
    try {
      return await redis.RedisStore.connect({
        url,
        ...(read.storePrefix !== undefined ? { prefix: read.storePrefix } : {}),
        ...(read.storeTimeoutMs !== undefined ? { commandTimeoutMs: read.storeTimeoutMs } : {}),
        ...(ca !== undefined ? { ca } : {}),
        ...(read.storeTlsServerName !== undefined ? { tlsServerName: read.storeTlsServerName } : {}),
        ...(read.storeUsername !== undefined ? { username: read.storeUsername } : {}),
        ...(read.storePassword !== undefined ? { password: read.storePassword } : {}),
        // found after start (Redis came up later, or a reconnection reached another server): /ready is 503 meanwhile
        onMistake: (sentence) =>
          process.stderr.write(`esign-token-proxy: error: --store ${shownStore(url)}: ${sentence} /ready answers 503 until it is fixed.\n`),
      });
    } catch (error) {
      // its sentences name no secret; anything else is reduced to a fixed one (an error could quote the URL)
      throw new EsignError('invalid_config', `--store ${shownStore(url)}: ${error instanceof redis.RedisConfigError ? error.message : 'cannot be opened.'}`);
    }
  }
  throw new EsignError('invalid_config', '--store must be memory, a redis:// (rediss://) URL or a redis-cluster:// URL.');
}

/** `--print-csp`: what the page's policy needs for these settings; no secret needed, nothing started. */
function printCsp(
  values: {
    'base-url'?: string;
    'public-origin'?: string;
    'allowed-origin'?: string[];
    'embed-origin'?: string;
    'framed-by'?: string[];
    port?: string;
    static?: string;
  },
  env: NodeJS.ProcessEnv,
): number {
  const baseUrl = values['base-url'] ?? env.ESIGN_BASE_URL;
  if (!baseUrl) {
    process.stderr.write('esign-token-proxy: --print-csp needs --base-url (or ESIGN_BASE_URL)\n');
    return 2;
  }
  const proxyOrigin = values['public-origin'] ?? env.ESIGN_PUBLIC_ORIGIN ?? `http://localhost:${values.port ?? env.PORT ?? '4020'}`;
  const pages = list(values['allowed-origin'], env.ESIGN_ALLOWED_ORIGINS);
  // a page served by this proxy (--static), or the one allowed page, reaches the proxy as 'self' when it is its origin
  const pageOrigin = values.static !== undefined || env.ESIGN_STATIC_DIR ? proxyOrigin : pages.length === 1 ? pages[0] : undefined;
  const embedOrigin = values['embed-origin'] ?? env.ESIGN_EMBED_ORIGIN;
  const framedBy = list(values['framed-by'], env.ESIGN_FRAMED_BY);
  let sources;
  try {
    sources = cspSources({
      baseUrl,
      proxyOrigin,
      ...(pageOrigin ? { pageOrigin: new URL(pageOrigin).origin } : {}),
      ...(embedOrigin ? { embedOrigin } : {}),
      framedBy,
    });
  } catch {
    process.stderr.write('esign-token-proxy: --print-csp: --base-url, --public-origin, --allowed-origin, --embed-origin and --framed-by must be URLs\n');
    return 2;
  }
  process.stdout.write(`${formatCsp(sources)}\n`);
  return 0;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCli(argv);
  if ('error' in parsed) {
    process.stderr.write(`esign-token-proxy: ${parsed.error}\n\n${HELP}`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['generate-cookie-key']) {
    process.stdout.write(`${generateCookieKey()}\n`);
    return 0;
  }
  if (values['print-csp']) return printCsp(values, env);
  if (values['client-secret'] !== undefined) {
    process.stderr.write('esign-token-proxy: warning: --client-secret is visible in the process list; set ESIGN_CLIENT_SECRET instead.\n');
  }
  if (values['cookie-key'] !== undefined) {
    process.stderr.write('esign-token-proxy: warning: --cookie-key is visible in the process list; set ESIGN_COOKIE_KEYS instead.\n');
  }
  const read = readServeOptions(values, env);
  if ('problems' in read) {
    // one line per mistake
    process.stderr.write(`${read.problems.map((problem) => `esign-token-proxy: ${problem}\n`).join('')}Run with --help for usage.\n`);
    return 2;
  }
  const { options } = read;
  if (read.ephemeralKey) {
    process.stderr.write(
      'esign-token-proxy: no cookie key configured (--cookie-key or ESIGN_COOKIE_KEYS): using an ephemeral one. Sessions end when this process stops and other replicas cannot read them; make a key with --generate-cookie-key.\n',
    );
  }

  let served;
  let store: ProxyStore | undefined;
  try {
    store = await openStore(read);
    served = await serveTokenProxy({ ...options, ...(store ? { store } : {}) });
  } catch (error) {
    await store?.close?.().catch(() => undefined);
    // EsignError messages never carry the secret or a key; other errors are reduced to their message.
    const message = error instanceof EsignError || error instanceof Error ? error.message : String(error);
    // one line per mistake (the options' checks name them all)
    process.stderr.write(
      message
        .split('\n')
        .map((line) => `esign-token-proxy: ${line}\n`)
        .join(''),
    );
    return 1;
  }
  const { clientId, baseUrl, allowedOrigins = [], cookieKeys = [], browserHeldRefreshTokens: browserHeld, logLevel } = options;
  const prefix = (options.basePath ?? '').replace(/\/+$/, '');
  if (!store) {
    process.stderr.write(
      "esign-token-proxy: warning: store: memory is this process's only: rate limits, refresh dedupe and Disconnect hold for this replica alone. Run one replica, or give every replica the same --store redis://host:port.\n",
    );
  }
  process.stdout.write(
    `esign-token-proxy listening on ${served.url} (GET ${prefix}/login, ${prefix}/callback, ${prefix}/login/done; POST ${prefix}/token, ${prefix}/revoke, ${prefix}/login/status; GET ${prefix}/health, ${prefix}/ready) for client ${clientId}, upstream ${baseUrl}\n` +
      (served.callbackUrl ? `redirect URI to register at the service: ${served.callbackUrl}\n` : '') +
      `allowed origins: ${allowedOrigins.length > 0 ? allowedOrigins.join(', ') : '(none: same-origin and server-to-server only)'}\n` +
      `mode: token-mediating (refresh tokens in an encrypted cookie, ${cookieKeys.length} key${cookieKeys.length > 1 ? 's' : ''})${browserHeld ? ' + browser-held refresh tokens (opt-in)' : ''}; store: ${store ? `redis ${shownStore(read.storeUrl)}` : "memory (this process's only)"}\n` +
      (served.metricsUrl ? `metrics: ${served.metricsUrl}\n` : '') +
      `logs: one JSON line per request on stdout, level ${logLevel}\n` +
      (options.staticDir !== undefined ? `static files: ${options.staticDir} at ${served.url.replace('//127.0.0.1:', '//localhost:')}/\n` : ''),
  );
  const boundMs = read.shutdownMs;
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    // a second signal: stop now
    if (stopping) process.exit(1);
    stopping = true;
    served.log.log('info', 'shutting down', { signal, timeoutMs: boundMs });
    // whatever happens, the process is gone shortly after the bound
    setTimeout(() => {
      process.stderr.write('esign-token-proxy: the shutdown took too long; exiting.\n');
      process.exit(1);
    }, boundMs + 2_000).unref();
    served.shutdown({ timeoutMs: boundMs }).then(
      async () => {
        await store?.close?.().catch(() => undefined);
        served.log.log('info', 'stopped', { signal });
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return -1;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`esign-token-proxy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
