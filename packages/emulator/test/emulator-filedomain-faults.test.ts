import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { demoSeed, mergeSeed, type RunningEmulator } from '../src/index.js';
import { alice, api, helper, start, upload, b64 } from './emulator-helpers.js';
import { freePorts } from '@esign-elements/test-support/ports';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

let emu: RunningEmulator;

before(async () => {
  emu = await start({ limits: { maxFileBytes: 1000, maxFilesPerRequest: 2 } });
});
after(() => emu.close());
beforeEach(() => emu.reset());

function multipart(files: Array<{ name: string; bytes: Uint8Array | string }>): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([typeof f.bytes === 'string' ? f.bytes : Buffer.from(f.bytes)]), f.name);
  return form;
}

async function fileDomain(token: string | undefined, body: BodyInit, headers: Record<string, string> = { 'x-tc-action': 'UploadFile' }) {
  const res = await fetch(`${emu.fileUrl}/`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  return { status: res.status, res, body: (await res.json()) as any };
}

describe('file-management domain', () => {
  it('UploadFile stores multipart files in the token Space and answers {Response:{RequestId, Data:{Files}}}', async () => {
    const t = await alice(emu);
    const r = await fileDomain(
      t.access_token,
      multipart([
        { name: 'a.pdf', bytes: '%PDF a' },
        { name: 'b.pdf', bytes: '%PDF b' },
      ]),
    );
    assert.equal(r.status, 200);
    assert.equal(typeof r.body.Response.RequestId, 'string');
    const files = r.body.Response.Data.Files;
    assert.deepEqual(
      files.map((f: any) => f.FileName),
      ['a.pdf', 'b.pdf'],
    );
    // the FileIds are usable on the business API in the same Space only
    const view = await api(emu, '/embedded/views', t.access_token, {
      OperateType: 'request_signatures',
      OperateParam: { FileIds: files.map((f: any) => f.FileId) },
    });
    assert.equal(view.status, 200);
    const other = await alice(emu, 'space_alice');
    const denied = await api(emu, '/embedded/views', other.access_token, { OperateType: 'request_signatures', OperateParam: { FileIds: [files[0].FileId] } });
    assert.equal(denied.status, 404);
  });

  it('unknown X-TC-Action is 400 InvalidParameter.Action; missing is 400', async () => {
    const t = await alice(emu);
    const unknown = await fileDomain(t.access_token, multipart([{ name: 'a', bytes: 'x' }]), { 'x-tc-action': 'DeleteEverything' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.Response.Error.Code, 'InvalidParameter.Action');
    const missing = await fileDomain(t.access_token, multipart([{ name: 'a', bytes: 'x' }]), {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.Response.Error.Code, 'InvalidParameter.Action');
  });

  it('wrong content type is 415; no token 401', async () => {
    const t = await alice(emu);
    const json = await fileDomain(t.access_token, JSON.stringify({ Files: [] }), { 'x-tc-action': 'UploadFile', 'content-type': 'application/json' });
    assert.equal(json.status, 415);
    assert.equal(json.body.Response.Error.Code, 'UnsupportedMediaType');
    const none = await fileDomain(undefined, multipart([{ name: 'a', bytes: 'x' }]));
    assert.equal(none.status, 401);
    assert.equal(none.body.Response.Error.Code, 'AuthFailure.TokenMissing');
  });

  it('limits: size 413 FileSize, count 413 FileCount, empty 400', async () => {
    const t = await alice(emu);
    const big = await fileDomain(t.access_token, multipart([{ name: 'big', bytes: new Uint8Array(1001) }]));
    assert.equal(big.status, 413);
    assert.equal(big.body.Response.Error.Code, 'LimitExceeded.FileSize');
    const many = await fileDomain(t.access_token, multipart([1, 2, 3].map((i) => ({ name: `f${i}`, bytes: 'x' }))));
    assert.equal(many.status, 413);
    assert.equal(many.body.Response.Error.Code, 'LimitExceeded.FileCount');
    const none = await fileDomain(t.access_token, new FormData());
    assert.equal(none.status, 400);
  });

  it('unknown routes on the file domain are 404 envelopes; CORS for loopback origins', async () => {
    const res = await fetch(`${emu.fileUrl}/other`, { method: 'POST', headers: { origin: 'http://localhost:6006' } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:6006');
    const pre = await fetch(`${emu.fileUrl}/`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6006', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-tc-action' },
    });
    assert.match(pre.headers.get('access-control-allow-headers')!, /X-TC-Action/);
  });
});

describe('fault injection', () => {
  it('status fault with Retry-After, matched by path prefix and method, hits `times` requests', async () => {
    const t = await alice(emu);
    const f = await helper(emu, 'faults', { path: '/openapi/v1/files', method: 'POST', kind: 'status', status: 503, retryAfter: 7, times: 2 });
    assert.equal(f.status, 200);
    assert.ok(((await f.json()) as { id: string }).id);
    for (let i = 0; i < 2; i++) {
      const r = await upload(emu, t.access_token, [{ FileName: 'a', FileBody: b64('x') }]);
      assert.equal(r.status, 503);
      assert.equal(r.res.headers.get('retry-after'), '7');
      assert.equal(r.body.Response.Error!.Code, 'InternalError');
    }
    assert.equal((await upload(emu, t.access_token, [{ FileName: 'a', FileBody: b64('x') }])).status, 200);
  });

  it('a 429 fault carries RequestLimitExceeded; method mismatch does not match', async () => {
    await helper(emu, 'faults', { path: '/openapi/v1/embedded', method: 'GET', kind: 'status', status: 429 });
    const t = await alice(emu);
    assert.equal((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).status, 200);
    await helper(emu, 'faults', { path: '/openapi/v1/embedded', kind: 'status', status: 429, retryAfter: 3 });
    const r = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    assert.equal(r.status, 429);
    assert.equal(r.body.Response.Error!.Code, 'RequestLimitExceeded');
  });

  it('status faults on the token endpoint answer OAuth JSON', async () => {
    await helper(emu, 'faults', { path: '/openapi/v1/oauth/token', kind: 'status', status: 503 });
    const res = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token' }) });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: string }).error, 'temporarily_unavailable');
  });

  it('a status fault with delayMs is a slow failure; without, it answers at once', async () => {
    await helper(emu, 'faults', { path: '/openapi/v1/oauth/token', kind: 'status', status: 503, delayMs: 300 });
    const form = () => new URLSearchParams({ grant_type: 'refresh_token' });
    const t0 = Date.now();
    const slow = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: form() });
    assert.equal(slow.status, 503);
    assert.ok(Date.now() - t0 >= 290, 'held before the failure');
    const listed = (await (await helper(emu, 'faults', undefined, 'GET')).json()) as unknown[];
    assert.equal(listed.length, 0, 'used up');
    await helper(emu, 'faults', { path: '/openapi/v1/oauth/token', kind: 'status', status: 503 });
    const quick = await fetch(`${emu.baseUrl}/openapi/v1/oauth/token`, { method: 'POST', body: form() });
    assert.equal(quick.status, 503);
    assert.equal(((await helper(emu, 'faults', undefined, 'GET').then((r) => r.json())) as unknown[]).length, 0);
  });

  it('delay holds the response', async () => {
    await helper(emu, 'faults', { path: '/openapi/v1/members', kind: 'delay', delayMs: 300 });
    const t = await alice(emu);
    const t0 = Date.now();
    const r = await api(emu, '/members/add', t.access_token, { Email: 'x@example.com' });
    assert.equal(r.status, 200);
    assert.ok(Date.now() - t0 >= 290);
  });

  it('drop destroys the socket without an answer', async () => {
    await helper(emu, 'faults', { path: '/openapi/v1/embedded/views', kind: 'drop' });
    const t = await alice(emu);
    await assert.rejects(api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' }), TypeError);
    assert.equal((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).status, 200);
  });

  it('faults apply on the file domain too', async () => {
    const t = await alice(emu);
    await helper(emu, 'faults', { path: '/', kind: 'status', status: 502 });
    const fileRes = await fileDomain(t.access_token, multipart([{ name: 'a', bytes: 'x' }]));
    assert.equal(fileRes.status, 502);
    await fetch(`${emu.baseUrl}/__emulator/faults`, { method: 'POST', body: JSON.stringify({ path: '/', kind: 'drop' }) });
    await assert.rejects(fetch(`${emu.fileUrl}/`, { method: 'POST' }));
  });

  it('DELETE clears faults; invalid faults are 400; /__emulator/ is never faulted', async () => {
    await helper(emu, 'faults', { path: '/', kind: 'status', status: 500, times: 5 });
    assert.equal((await helper(emu, 'clock', undefined, 'GET')).status, 200);
    const cleared = await helper(emu, 'faults', undefined, 'DELETE');
    assert.deepEqual(await cleared.json(), { cleared: 1 });
    for (const bad of [
      { path: 'x', kind: 'drop' },
      { path: '/', kind: 'boom' },
      { path: '/', kind: 'status', status: 200 },
      { path: '/', kind: 'drop', times: 0 },
    ]) {
      assert.equal((await helper(emu, 'faults', bad)).status, 400, JSON.stringify(bad));
    }
  });
});

describe('test helpers', () => {
  it('clock: GET and advance; reset puts it back', async () => {
    const before = (await (await helper(emu, 'clock', undefined, 'GET')).json()) as { now: string; offsetSeconds: number };
    assert.equal(before.offsetSeconds, 0);
    const adv = (await (await helper(emu, 'clock', { advanceSeconds: 120 })).json()) as { now: string };
    assert.ok(Date.parse(adv.now) - Date.parse(before.now) >= 119_000);
    assert.equal((await helper(emu, 'clock', { advanceSeconds: 'x' })).status, 400);
    await helper(emu, 'reset');
    const after = (await (await helper(emu, 'clock', undefined, 'GET')).json()) as { offsetSeconds: number };
    assert.equal(after.offsetSeconds, 0);
  });

  it('reset: back to the seed (tokens, files, members, outbox, counters)', async () => {
    const t = await alice(emu);
    await api(emu, '/members/add', t.access_token, { Email: 'zed@example.com' });
    assert.equal((await helper(emu, 'reset')).status, 200);
    assert.equal((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).status, 401);
    assert.deepEqual(await (await helper(emu, 'outbox', undefined, 'GET')).json(), []);
    const seed = (await (await helper(emu, 'seed', undefined, 'GET')).json()) as any;
    assert.equal(
      seed.users.some((u: any) => u.email === 'zed@example.com'),
      false,
    );
    assert.equal(seed.users.find((u: any) => u.email === 'alice@example.com').password, 'alice-password');
  });

  it('requests: counters per route pattern, file domain separately', async () => {
    const t = await alice(emu);
    await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    await fileDomain(t.access_token, multipart([{ name: 'a', bytes: 'x' }]));
    const counts = (await (await helper(emu, 'requests', undefined, 'GET')).json()) as Record<string, number>;
    assert.equal(counts['POST /openapi/v1/embedded/views'], 1);
    assert.equal(counts['GET /openapi/v1/oauth/auth'], 1);
    assert.equal(counts['file:POST /'], 1);
  });
});

describe('seed', () => {
  it('the demo seed has what the demos need', () => {
    const s = demoSeed();
    const app = s.apps[0]!;
    assert.equal(app.clientId, 'demo-client');
    for (const uri of [
      'http://localhost:6006/iframe.html',
      'http://localhost:8000/test/browser/callback.html',
      'http://127.0.0.1:8000/test/browser/callback.html',
      'http://localhost:8000/',
      'com.example.esign:/oauth/callback',
    ])
      assert.ok(app.redirectUris.includes(uri), uri);
    const aliceSpaces = s.spaces.filter((x) => x.members.some((m) => m.email === 'alice@example.com'));
    assert.ok(aliceSpaces.length >= 2);
    assert.equal(s.spaces.filter((x) => x.members.some((m) => m.email === 'carol@example.com')).length, 0);
    assert.ok(s.spaces.some((x) => x.integrator));
  });

  it('mergeSeed extends (same id/email overrides) or replaces, and validates', () => {
    const merged = mergeSeed(demoSeed(), {
      users: [
        { email: 'alice@example.com', password: 'new', name: 'Alice T.' },
        { email: 'gil@example.com', password: 'gil-password', name: 'Gil' },
      ],
      spaces: [{ spaceId: 'space_gil', name: 'Gil Co', members: [{ email: 'gil@example.com', role: 'admin' }] }],
    });
    assert.equal(merged.users.find((u) => u.email === 'alice@example.com')!.password, 'new');
    assert.equal(merged.users.find((u) => u.email === 'alice@example.com')!.userId, 'user_alice');
    assert.match(merged.users.find((u) => u.email === 'gil@example.com')!.userId, /^user_[0-9a-f]{12}$/);
    assert.equal(merged.spaces.find((x) => x.spaceId === 'space_gil')!.members[0]!.status, 'active');
    assert.equal(merged.spaces.length, 4);
    const replaced = mergeSeed(demoSeed(), {
      replace: true,
      apps: [{ clientId: 'c', clientSecret: 's', name: 'n', scopes: ['a'], redirectUris: ['https://x.example/cb'] }],
    });
    assert.deepEqual(replaced.users, []);
    assert.equal(replaced.apps[0]!.systemUserId, 'sys_c');
    assert.throws(
      () => mergeSeed(demoSeed(), { spaces: [{ spaceId: 's', name: 'n', members: [{ email: 'ghost@example.com', role: 'admin' }] }] }),
      /unknown member/,
    );
    assert.throws(() => mergeSeed(demoSeed(), { users: [{ email: 'x', password: 'p', name: 'n' }] } as never), /email/);
    assert.throws(() => mergeSeed(demoSeed(), { apps: [{ clientId: 'c' }] } as never), /clientSecret/);
  });

  it('a seeded Space with a pending member works with createEmulator', async () => {
    const other = await start({
      seed: { spaces: [{ spaceId: 'space_new', name: 'New', members: [{ email: 'carol@example.com', role: 'member', status: 'pending' }] }] },
    });
    try {
      const seed = (await (await fetch(`${other.baseUrl}/__emulator/seed`)).json()) as any;
      assert.equal(seed.spaces.find((s: any) => s.spaceId === 'space_new').members[0].status, 'pending');
    } finally {
      await other.close();
    }
  });
});

describe('CLI', () => {
  function run(args: string[], untilOutput?: RegExp): Promise<{ code: number | null; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args]);
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (untilOutput && untilOutput.test(out)) child.kill('SIGTERM');
      });
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (code) => resolve({ code, out, err }));
    });
  }

  /** The CLI started and its banner printed; stop() sends SIGTERM and waits for the exit. */
  function startCli(args: string[]): Promise<{ out: string; stop: () => Promise<void> }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args]);
      let out = '';
      let err = '';
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      const stop = async (): Promise<void> => {
        child.kill('SIGTERM');
        await exited;
      };
      child.stdout.on('data', (d) => {
        out += d;
        if (/Spaces:/.test(out)) resolve({ out, stop });
      });
      child.stderr.on('data', (d) => (err += d));
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}${err}`)));
    });
  }

  it('--help prints usage and exits 0', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /--file-port/);
  });

  it('bad flags exit 2 with a clear message', async () => {
    const r = await run(['--nope']);
    assert.equal(r.code, 2);
    assert.match(r.err, /nope/);
    const p = await run(['--port', 'abc']);
    assert.equal(p.code, 2);
    assert.match(p.err, /--port/);
  });

  it('prints the base URLs and the seed, serves, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emu-'));
    const config = join(dir, 'seed.json');
    writeFileSync(config, JSON.stringify({ users: [{ email: 'hal@example.com', password: 'hal-password', name: 'Hal' }] }));
    const r = await run(['--port', '0', '--file-port', '0', '--config', config], /Spaces:[\s\S]*space_integrator/);
    assert.equal(r.code, 0, r.err);
    for (const text of [
      'business API',
      'file domain',
      'demo-client',
      'demo-secret',
      'alice@example.com / alice-password',
      'hal@example.com / hal-password',
      'space_acme',
      '/__emulator/outbox.html',
      'http://localhost:8000/test/browser/callback.html',
    ])
      assert.ok(r.out.includes(text), text);
  });

  it('prints the attribute values and the proxy flags that point at it', async () => {
    const r = await run(['--port', '0', '--dev'], /Spaces:[\s\S]*space_integrator/);
    assert.equal(r.code, 0, r.err);
    const baseUrl = r.out.match(/business API +(http:\/\/127\.0\.0\.1:\d+) /)![1]!;
    assert.ok(r.out.includes(`base-url="${baseUrl}" client-id="demo-client"`), r.out);
    assert.ok(r.out.includes(`--base-url ${baseUrl} --client-id demo-client  (ESIGN_CLIENT_SECRET=demo-secret)`), r.out);
    assert.doesNotMatch(r.out, /start the emulator with --dev/, 'with --dev there is no redirect URI to register');
    // with --public-url, the page and the proxy are pointed at the public URL
    const withoutDev = await run(['--port', '0', '--public-url', 'http://localhost:9999/'], /Spaces:/);
    assert.ok(withoutDev.out.includes('base-url="http://localhost:9999" client-id="demo-client"'), 'the public URL is what the page and proxy use');
    assert.match(withoutDev.out, /must be a redirect URI below, or start the emulator with --dev/);
  });

  it('--port moves both ports: the file domain follows on the next one unless --file-port names it', async () => {
    const business = await freePorts(2);
    const moved = await startCli(['--port', String(business)]);
    try {
      assert.match(moved.out, new RegExp(`business API +http://127\\.0\\.0\\.1:${business} `));
      assert.match(moved.out, new RegExp(`file domain +http://127\\.0\\.0\\.1:${business + 1}\\n`));
      // both answer over HTTP where it says
      assert.equal((await fetch(`http://127.0.0.1:${business}/__emulator/seed`)).status, 200);
      const file = await fetch(`http://127.0.0.1:${business + 1}/`, { method: 'POST' });
      assert.match(await file.text(), /X-TC-Action header is required/, 'the file domain answers on the next port');
    } finally {
      await moved.stop();
    }
    const [other, file] = [await freePorts(2), await freePorts(2)];
    const apart = await startCli(['--port', String(other), '--file-port', String(file)]);
    try {
      assert.match(apart.out, new RegExp(`file domain +http://127\\.0\\.0\\.1:${file}\\n`));
    } finally {
      await apart.stop();
    }
    const last = await run(['--port', '65535']);
    assert.equal(last.code, 2);
    assert.match(last.err, /--file-port/);
  });

  it('a broken config file exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emu-'));
    const config = join(dir, 'seed.json');
    writeFileSync(config, '{"users": [{"email": 1}]}');
    const r = await run(['--config', config]);
    assert.equal(r.code, 2);
    assert.match(r.err, /users\[0\]\.email/);
  });
});
