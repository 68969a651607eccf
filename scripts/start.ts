/**
 * `npm start`: the service emulator and the token proxy, then Storybook, so every demo works with
 * no account and no configuration. Ctrl+C stops all three.
 */
import { spawn } from 'node:child_process';
import { createEmulator } from '../src/emulator/index.js';
import { generateCookieKey } from '../src/proxy/index.js';
import { serveTokenProxy } from '../src/proxy/node.js';

const STORYBOOK_PORT = Number(process.env['STORYBOOK_PORT'] ?? 6006);
const EMULATOR_PORT = Number(process.env['ESIGN_EMULATOR_PORT'] ?? 4010);
const FILE_PORT = Number(process.env['ESIGN_EMULATOR_FILE_PORT'] ?? 4011);
const PROXY_PORT = Number(process.env['ESIGN_PROXY_PORT'] ?? 4020);

async function main(): Promise<void> {
  const emulator = await createEmulator({ port: EMULATOR_PORT, filePort: FILE_PORT, devRedirects: true });
  const app = emulator.seed.apps.find((a) => a.clientId === 'demo-client') ?? emulator.seed.apps[0];
  if (!app) throw new Error('the emulator seed has no app');
  const storybookOrigins = [`http://localhost:${STORYBOOK_PORT}`, `http://127.0.0.1:${STORYBOOK_PORT}`];
  // Listens on 127.0.0.1; the stories reach it as http://localhost:<port>, the same site as Storybook on
  // http://localhost:6006, so the proxy's SameSite=Strict session cookie comes back (Chromium resolves
  // localhost to loopback). An ephemeral cookie key: sessions end when npm start stops.
  const served = await serveTokenProxy({
    port: PROXY_PORT,
    host: '127.0.0.1',
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    baseUrl: emulator.baseUrl,
    allowedOrigins: storybookOrigins,
    redirectUris: app.redirectUris,
    cookieKeys: [generateCookieKey()],
    // the opt-in mode's story (BrowserHeld) redeems its code here too
    browserHeldRefreshTokens: true,
  });
  // the default mode's redirect URI: the proxy's own callback (the emulator's --dev-redirects would accept it anyway)
  emulator.registerRedirectUri(app.clientId, served.callbackUrl!);
  const proxy = { url: served.url.replace('//127.0.0.1:', '//localhost:'), close: () => served.close() };

  console.log(`
esign-elements demo services
  emulator (business API)   ${emulator.baseUrl}
  emulator (file domain)    ${emulator.fileUrl}
  emulator outbox           ${emulator.baseUrl}/__emulator/outbox.html
  token proxy               ${proxy.url}   (runs the sign-in at /login and ${served.callbackUrl}; holds ${app.clientId}'s client_secret and each session's refresh token; ephemeral cookie key)
  demo users                ${emulator.seed.users.map((u) => `${u.email} / ${u.password}`).join(', ')}
  Storybook                 http://localhost:${STORYBOOK_PORT}
`);

  const storybook = spawn(process.execPath, ['node_modules/storybook/dist/bin/dispatcher.js', 'dev', '-p', String(STORYBOOK_PORT), '--no-open', '--ci'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      STORYBOOK_ESIGN_BASE_URL: emulator.baseUrl,
      STORYBOOK_ESIGN_TOKEN_ENDPOINT: `${proxy.url}/token`,
      STORYBOOK_ESIGN_CLIENT_ID: app.clientId,
      STORYBOOK_DISABLE_TELEMETRY: '1',
    },
  });

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    storybook.kill('SIGTERM');
    await Promise.allSettled([emulator.close(), proxy.close()]);
    process.exit(code);
  };
  storybook.on('exit', (code) => void stop(code ?? 0));
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`npm start failed: ${message}`);
  if (/EADDRINUSE/.test(message)) console.error('A port is in use: stop the other process, or set ESIGN_EMULATOR_PORT, ESIGN_PROXY_PORT or STORYBOOK_PORT.');
  process.exit(1);
});
