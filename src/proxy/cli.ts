#!/usr/bin/env node
/**
 * esign-token-proxy: runs the token proxy standalone. Every option can come from the environment so the
 * client secret need not appear in a process list.
 */

import { parseArgs } from 'node:util';
import { EsignError } from '../core/errors.js';
import { serveTokenProxy } from './index.js';

const HELP = `Usage: esign-token-proxy [options]

Serves POST /token and POST /revoke for browsers, adding the app's client_secret.

Options (environment variable in brackets):
  --client-id <id>          OAuth client_id                          [ESIGN_CLIENT_ID]
  --client-secret <secret>  OAuth client_secret; prefer the variable  [ESIGN_CLIENT_SECRET]
  --base-url <url>          service base URL (https, or loopback http) [ESIGN_BASE_URL]
  --allowed-origin <origin> browser origin allowed to call; repeatable [ESIGN_ALLOWED_ORIGINS, comma-separated]
  --redirect-uri <uri>      redirect URI allowed in code exchanges; repeatable
                                                                      [ESIGN_REDIRECT_URIS, comma-separated]
  --token-endpoint <url>    default <base-url>/openapi/v1/oauth/token  [ESIGN_TOKEN_ENDPOINT]
  --revocation-endpoint <url>
                            default <base-url>/openapi/v1/oauth/revoke [ESIGN_REVOCATION_ENDPOINT]
  --client-auth post|basic  how the secret is sent (default post)     [ESIGN_CLIENT_AUTH]
  --refresh-replay-ms <n>   how long a refresh answer is kept for a repeat of the same
                            refresh token (default 30000; 0 turns it off) [ESIGN_REFRESH_REPLAY_MS]
  --port <n>                default 4020                              [PORT]
  --host <host>             default 127.0.0.1                         [HOST]
  -h, --help                show this help

Example (local emulator):
  ESIGN_CLIENT_SECRET=demo-secret esign-token-proxy --client-id demo-client \\
    --base-url http://127.0.0.1:4010 --allowed-origin http://localhost:6006 \\
    --redirect-uri http://localhost:6006/iframe.html
`;

function list(values: string[] | undefined, env: string | undefined): string[] {
  if (values && values.length > 0) return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  return (env ?? '').split(',').map((v) => v.trim()).filter(Boolean);
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'base-url': { type: 'string' },
        'allowed-origin': { type: 'string', multiple: true },
        'redirect-uri': { type: 'string', multiple: true },
        'token-endpoint': { type: 'string' },
        'revocation-endpoint': { type: 'string' },
        'client-auth': { type: 'string' },
        'refresh-replay-ms': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    process.stderr.write(`esign-token-proxy: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['client-secret'] !== undefined) {
    process.stderr.write('esign-token-proxy: warning: --client-secret is visible in the process list; set ESIGN_CLIENT_SECRET instead.\n');
  }
  const clientAuth = values['client-auth'] ?? env.ESIGN_CLIENT_AUTH ?? 'post';
  const portText = values.port ?? env.PORT ?? '4020';
  const port = Number(portText);
  const problems: string[] = [];
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`--port must be 0..65535, got ${JSON.stringify(portText)}`);
  if (clientAuth !== 'post' && clientAuth !== 'basic') problems.push("--client-auth must be 'post' or 'basic'");
  const replayText = values['refresh-replay-ms'] ?? env.ESIGN_REFRESH_REPLAY_MS;
  if (replayText !== undefined && !/^\d{1,9}$/.test(replayText)) problems.push(`--refresh-replay-ms must be a whole number of milliseconds, got ${JSON.stringify(replayText)}`);
  const clientId = values['client-id'] ?? env.ESIGN_CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.ESIGN_CLIENT_SECRET;
  const baseUrl = values['base-url'] ?? env.ESIGN_BASE_URL;
  if (!clientId) problems.push('missing --client-id (or ESIGN_CLIENT_ID)');
  if (!clientSecret) problems.push('missing ESIGN_CLIENT_SECRET (or --client-secret)');
  if (!baseUrl) problems.push('missing --base-url (or ESIGN_BASE_URL)');
  const allowedOrigins = list(values['allowed-origin'], env.ESIGN_ALLOWED_ORIGINS);
  const redirectUris = list(values['redirect-uri'], env.ESIGN_REDIRECT_URIS);
  if (redirectUris.length === 0) problems.push('missing --redirect-uri (or ESIGN_REDIRECT_URIS)');
  if (problems.length > 0) {
    process.stderr.write(`esign-token-proxy: ${problems.join('; ')}\nRun with --help for usage.\n`);
    return 2;
  }

  let served;
  try {
    served = await serveTokenProxy({
      clientId: clientId!,
      clientSecret: clientSecret!,
      baseUrl: baseUrl!,
      allowedOrigins,
      redirectUris,
      tokenEndpoint: values['token-endpoint'] ?? env.ESIGN_TOKEN_ENDPOINT,
      revocationEndpoint: values['revocation-endpoint'] ?? env.ESIGN_REVOCATION_ENDPOINT,
      clientAuth: clientAuth as 'post' | 'basic',
      ...(replayText !== undefined ? { refreshReplayMs: Number(replayText) } : {}),
      port,
      host: values.host ?? env.HOST ?? '127.0.0.1',
      onEvent: (event) => process.stdout.write(`${event.type} ${event.status} ${event.durationMs}ms${event.replayed ? ' replayed' : ''}\n`),
    });
  } catch (error) {
    // EsignError messages never carry the secret; other errors are reduced to their message.
    const message = error instanceof EsignError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`esign-token-proxy: ${message}\n`);
    return 1;
  }
  process.stdout.write(
    `esign-token-proxy listening on ${served.url} (POST /token, POST /revoke) for client ${clientId}, upstream ${baseUrl}\n` +
      `allowed origins: ${allowedOrigins.length > 0 ? allowedOrigins.join(', ') : '(none: server-to-server only)'}\n`,
  );
  const stop = (): void => {
    served.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
