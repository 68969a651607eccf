/**
 * `npm start`: the service emulator and the token proxy, then Storybook, so every demo works with
 * no account and no configuration. Ctrl+C stops all three.
 */
import { spawn } from 'node:child_process';
import { startDemoServices } from './demo-services.js';

const STORYBOOK_PORT = Number(process.env['STORYBOOK_PORT'] ?? 6006);
const EMULATOR_PORT = Number(process.env['ESIGN_EMULATOR_PORT'] ?? 4010);
const FILE_PORT = Number(process.env['ESIGN_EMULATOR_FILE_PORT'] ?? 4011);
const PROXY_PORT = Number(process.env['ESIGN_PROXY_PORT'] ?? 4020);

async function main(): Promise<void> {
  // Storybook opened as localhost or as 127.0.0.1 (two sites to a browser): the proxy answers each by the name it was
  // reached at, with its callback on that name, so the sign-in works from either (scripts/demo-services.ts)
  const services = await startDemoServices({ emulator: EMULATOR_PORT, files: FILE_PORT, proxy: PROXY_PORT }, [
    `http://localhost:${STORYBOOK_PORT}`,
    `http://127.0.0.1:${STORYBOOK_PORT}`,
  ]);
  const { emulator } = services;

  console.log(`
esign-elements demo services
  emulator (business API)   ${emulator.baseUrl}
  emulator (file domain)    ${emulator.fileUrl}
  emulator outbox           ${emulator.baseUrl}/__emulator/outbox.html
  token proxy               ${services.proxyUrl}   (runs the sign-in at /login and ${services.callbackUrls.join(' or ')}; holds ${services.clientId}'s client_secret and each session's refresh token; ephemeral cookie key; store in memory)
  demo users                ${emulator.seed.users.map((u) => `${u.email} / ${u.password}`).join(', ')}
  Storybook                 http://localhost:${STORYBOOK_PORT} (or http://127.0.0.1:${STORYBOOK_PORT})
`);

  const storybook = spawn(process.execPath, ['node_modules/storybook/dist/bin/dispatcher.js', 'dev', '-p', String(STORYBOOK_PORT), '--no-open', '--ci'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      STORYBOOK_ESIGN_BASE_URL: emulator.baseUrl,
      STORYBOOK_ESIGN_TOKEN_ENDPOINT: `${services.proxyUrl}/token`,
      STORYBOOK_ESIGN_CLIENT_ID: services.clientId,
      STORYBOOK_DISABLE_TELEMETRY: '1',
    },
  });

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    storybook.kill('SIGTERM');
    await services.close();
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
