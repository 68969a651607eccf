/**
 * `esign-token-proxy --print-csp`: the policy sources a page needs for the proxy's settings, on stdout, with no
 * secret and nothing started. That these sources are enough on a real page: test/e2e/testing-kit.test.ts (the kit
 * prints them with the same function), and what a page without them shows: test/e2e/csp.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ESIGN_') && name !== 'PORT'));
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8', env: { ...clean, ...env } });
  return { status: result.status, out: result.stdout, err: result.stderr };
};

describe('esign-token-proxy --print-csp', () => {
  it('production: the proxy on the page origin is self; the service for calls and frames', () => {
    const result = run([
      '--print-csp',
      '--base-url',
      'https://esign.example.com/',
      '--public-origin',
      'https://www.example.com',
      '--allowed-origin',
      'https://www.example.com',
    ]);
    assert.equal(result.status, 0, result.err);
    assert.equal(result.out, "connect-src 'self' https://esign.example.com; frame-src https://esign.example.com\n");
  });

  it('a proxy on another origin than the page is named; the embedded pages on their own origin from --embed-origin', () => {
    const result = run(['--print-csp', '--allowed-origin', 'https://www.example.com', '--public-origin', 'https://api.example.com'], {
      ESIGN_BASE_URL: 'https://esign.example.com',
      ESIGN_EMBED_ORIGIN: 'https://sign.esign.example.com',
    });
    assert.equal(result.status, 0, result.err);
    assert.equal(result.out, "connect-src 'self' https://api.example.com https://esign.example.com; frame-src https://sign.esign.example.com\n");
  });

  it("a page inside other sites' frames: frame-ancestors names exactly the --framed-by sites (issue 49)", () => {
    const result = run(
      ['--print-csp', '--base-url', 'https://esign.example.com', '--public-origin', 'https://app.example.com', '--framed-by', 'https://admin.shopify.com/'],
      { ESIGN_FRAMED_BY: 'https://ignored.example', ESIGN_ALLOWED_ORIGINS: 'https://app.example.com' },
    );
    assert.equal(result.status, 0, result.err);
    assert.equal(result.out, "connect-src 'self' https://esign.example.com; frame-src https://esign.example.com; frame-ancestors https://admin.shopify.com\n");
    const fromEnv = run(['--print-csp', '--base-url', 'https://esign.example.com'], {
      ESIGN_FRAMED_BY: 'https://admin.shopify.com, https://teams.microsoft.com',
    });
    assert.match(fromEnv.out, /; frame-ancestors https:\/\/admin\.shopify\.com https:\/\/teams\.microsoft\.com\n$/);
  });

  it('development: the loopback default origin on its port; --static pages reach it as self', () => {
    assert.equal(
      run(['--print-csp', '--base-url', 'http://127.0.0.1:4010', '--port', '8080', '--allowed-origin', 'http://localhost:5173']).out,
      "connect-src 'self' http://localhost:8080 http://127.0.0.1:4010; frame-src http://127.0.0.1:4010\n",
    );
    assert.equal(
      run(['--print-csp', '--base-url', 'http://127.0.0.1:4010', '--port', '8080', '--static', '.']).out,
      "connect-src 'self' http://127.0.0.1:4010; frame-src http://127.0.0.1:4010\n",
    );
  });

  it('needs no secret, but a base URL; says so and exits 2 without one', () => {
    const result = run(['--print-csp']);
    assert.equal(result.status, 2);
    assert.match(result.err, /--print-csp needs --base-url/);
    assert.equal(result.out, '');
  });
});
