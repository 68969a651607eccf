#!/usr/bin/env node
/** esign-emulator: runs the service emulator on local ports and prints the demo seed. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createEmulator, parseSeedInput } from './index.js';
import type { EmulatorLimits, EmulatorOptions, EmulatorSeed, EmulatorSeedInput, RunningEmulator } from './types.js';

const HELP = `esign-emulator: a local stand-in for the hosted e-signature service

Usage: esign-emulator [options]

Options:
  --port N          business API port (default 4010); the file domain follows on N+1 (0: both free ports)
  --file-port N     file-management domain port (default: --port + 1, so 4011)
  --host HOST       address to listen on (default 127.0.0.1)
  --config FILE     JSON seed: {"replace"?, "apps", "users", "spaces", "limits"?}; extends the demo seed unless
                    "replace": true; "limits" as the library's (e.g. {"refreshReuseGraceSeconds": 30})
  --refresh-reuse-grace SECONDS
                    a rotated refresh token presented again within this many seconds of its rotation is
                    honoured instead of revoking the grant, as services that forgive a lost answer do
                    (default 0: no grace; wins over the config's limits)
  --public-url URL  origin put into returned Urls and redirects (default the business origin)
  --dev             development: accept any http://localhost, 127.0.0.1 or [::1] redirect_uri (any port and path)
  --consent-opener-policy POLICY
                    the consent pages send Cross-Origin-Opener-Policy: POLICY (same-origin, as many identity
                    providers' sign-in pages do, severs the sign-in popup from the page; default none)
  --help            show this help

Test helpers live under /__emulator/ (reset, clock, outbox, faults, consent-page, requests, seed).
`;

function usageError(message: string): never {
  process.stderr.write(`esign-emulator: ${message}\nRun esign-emulator --help for usage.\n`);
  process.exit(2);
}

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) usageError(`${flag} must be a port number 0..65535, got "${value}"`);
  return Number(value);
}

export function describe(emu: RunningEmulator, seed: EmulatorSeed, publicUrl: string, devRedirects = false): string {
  const lines: string[] = [];
  lines.push('esign emulator is running (development only; never use these credentials anywhere real)');
  lines.push(`  business API   ${emu.baseUrl}  (paths /openapi/v1/...)`);
  lines.push(`  file domain    ${emu.fileUrl}`);
  if (publicUrl !== emu.baseUrl) lines.push(`  public URL     ${publicUrl}`);
  lines.push(`  outbox         ${publicUrl}/__emulator/outbox.html`);
  lines.push('');
  const app = seed.apps[0];
  if (app) {
    lines.push('Point the page and the token proxy here (paste):');
    lines.push(`  <esign-connect>     base-url="${publicUrl}" client-id="${app.clientId}"`);
    lines.push(`  esign-token-proxy   --base-url ${publicUrl} --client-id ${app.clientId}  (ESIGN_CLIENT_SECRET=${app.clientSecret})`);
    if (!devRedirects) lines.push("  the proxy's <public origin><base path>/callback must be a redirect URI below, or start the emulator with --dev");
    lines.push('');
  }
  lines.push('Apps:');
  for (const a of seed.apps) {
    lines.push(`  ${a.name}`);
    lines.push(`    client_id      ${a.clientId}`);
    lines.push(`    client_secret  ${a.clientSecret}`);
    lines.push(`    scopes         ${a.scopes.join(' ')}`);
    lines.push(`    redirect URIs  ${a.redirectUris.join('\n                   ')}`);
  }
  lines.push('');
  lines.push('Users (email / password):');
  for (const u of seed.users) lines.push(`  ${u.email} / ${u.password}  ${u.name} (${u.userId})`);
  lines.push('');
  lines.push('Spaces:');
  for (const s of seed.spaces) {
    const members = s.members.map((m) => `${m.email} ${m.role}${m.status === 'pending' ? ' pending' : ''}`).join(', ');
    lines.push(`  ${s.spaceId} "${s.name}"${s.integrator ? ' (integrator)' : ''}: ${members || 'no members'}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  // a closed stdout (e.g. piped into head) must not crash the server
  process.stdout.on('error', () => {});
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'file-port': { type: 'string' },
        host: { type: 'string' },
        config: { type: 'string' },
        'public-url': { type: 'string' },
        dev: { type: 'boolean' },
        'consent-opener-policy': { type: 'string' },
        'refresh-reuse-grace': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    usageError((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  let seed: EmulatorSeedInput | undefined;
  let limits: Partial<EmulatorLimits> = {};
  if (typeof values.config === 'string') {
    try {
      const json = JSON.parse(readFileSync(values.config, 'utf8')) as unknown;
      seed = parseSeedInput(json);
      const configured = (json as { limits?: unknown }).limits;
      if (configured !== undefined) {
        if (typeof configured !== 'object' || configured === null || Array.isArray(configured)) throw new Error('"limits" must be an object');
        limits = configured as Partial<EmulatorLimits>;
      }
    } catch (err) {
      usageError(`cannot use --config ${values.config}: ${(err as Error).message}`);
    }
  }
  const grace = values['refresh-reuse-grace'];
  if (typeof grace === 'string') {
    if (!/^\d{1,6}(\.\d+)?$/.test(grace)) usageError(`--refresh-reuse-grace must be a number of seconds (0 or more), got "${grace}"`);
    limits = { ...limits, refreshReuseGraceSeconds: Number(grace) };
  }
  const publicUrl = values['public-url'];
  if (typeof publicUrl === 'string' && !/^https?:\/\/[^/?#]+/.test(publicUrl)) usageError('--public-url must be an http(s) URL');
  const businessPort = port(values.port as string | undefined, 4010, '--port');
  if (businessPort === 65535 && values['file-port'] === undefined) usageError('--port 65535 leaves no port for the file domain: add --file-port');
  let emu: RunningEmulator;
  try {
    emu = await createEmulator({
      port: businessPort,
      // one option moves both: the file domain sits beside the business API unless told otherwise
      filePort: port(values['file-port'] as string | undefined, businessPort === 0 ? 0 : businessPort + 1, '--file-port'),
      host: (values.host as string | undefined) ?? '127.0.0.1',
      ...(typeof publicUrl === 'string' ? { publicUrl } : {}),
      ...(seed ? { seed } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      devRedirects: values.dev === true,
      ...(typeof values['consent-opener-policy'] === 'string'
        ? { consentOpenerPolicy: values['consent-opener-policy'] as NonNullable<EmulatorOptions['consentOpenerPolicy']> }
        : {}),
      log: (line) => process.stdout.write(`[emulator] ${line}\n`),
    });
  } catch (err) {
    process.stderr.write(`esign-emulator: cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    emu.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // printed after the handlers exist, so a supervisor that reacts to the banner can stop us cleanly
  const shownUrl = typeof publicUrl === 'string' ? publicUrl.replace(/\/+$/, '') : emu.baseUrl;
  process.stdout.write(describe(emu, emu.seed, shownUrl, values.dev === true) + '\n');
}

await main();
