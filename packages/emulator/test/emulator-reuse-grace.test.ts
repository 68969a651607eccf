/**
 * The emulator models services that forgive (issue 39): `esign-emulator --refresh-reuse-grace <seconds>` (the
 * library's `limits.refreshReuseGraceSeconds`, the test kit's `refreshReuseGraceSeconds`). A client whose refresh
 * answer was lost presents the rotated refresh token again: within the grace it gets tokens and the grant lives;
 * without one the grant is revoked.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { codeExchangeForm, DEMO_LOGIN, obtainAuthorizationCode } from '@esign-elements/test-support/oauth-login';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** The emulator CLI on free ports; resolves with its business URL and a stop function. */
async function startCli(args: string[]): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--file-port', '0', ...args]);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const baseUrl = /business API\s+(http:\/\/\S+)/.exec(out)?.[1];
    if (baseUrl && /Spaces:/.test(out)) return { baseUrl, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the emulator did not start: ${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function token(baseUrl: string, form: URLSearchParams): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: form });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const refreshForm = (refreshToken: string): URLSearchParams =>
  new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: DEMO_LOGIN.clientId, client_secret: DEMO_LOGIN.clientSecret });

/** Signs in, refreshes once, then presents the first refresh token again (the lost answer's retry); then the grant's state. */
async function reuse(baseUrl: string): Promise<{ again: number; error: unknown; aliveAfter: number }> {
  const authorized = await obtainAuthorizationCode({ baseUrl, chooseSpaceId: 'space_acme' });
  const form = codeExchangeForm(authorized);
  form.set('client_id', DEMO_LOGIN.clientId);
  form.set('client_secret', DEMO_LOGIN.clientSecret);
  const first = await token(baseUrl, form);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  const rotated = await token(baseUrl, refreshForm(String(first.json.refresh_token)));
  assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
  const again = await token(baseUrl, refreshForm(String(first.json.refresh_token)));
  const next = await token(baseUrl, refreshForm(String(again.status === 200 ? again.json.refresh_token : rotated.json.refresh_token)));
  return { again: again.status, error: again.json.error, aliveAfter: next.status };
}

describe('esign-emulator --refresh-reuse-grace', { timeout: 90_000 }, () => {
  test('30 s: the rotated refresh token presented again gets tokens and the grant lives', async () => {
    const emulator = await startCli(['--refresh-reuse-grace', '30']);
    try {
      assert.deepEqual(await reuse(emulator.baseUrl), { again: 200, error: undefined, aliveAfter: 200 });
    } finally {
      await emulator.stop();
    }
  });

  test('none (the default): the reuse revokes the grant', async () => {
    const emulator = await startCli([]);
    try {
      assert.deepEqual(await reuse(emulator.baseUrl), { again: 400, error: 'invalid_grant', aliveAfter: 400 });
    } finally {
      await emulator.stop();
    }
  });

  test('a malformed value is refused with one line', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--refresh-reuse-grace', 'soon']);
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /--refresh-reuse-grace must be a number of seconds/);
  });
});
