import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RunningEmulator } from '../src/index.js';
import { alice, api, b64, get, helper, outbox, signIn, start, upload } from './emulator-helpers.js';

let emu: RunningEmulator;
const MAX = 1000;

before(async () => {
  emu = await start({ limits: { maxFileBytes: MAX, maxFilesPerRequest: 3, requestsPerMinute: 60 } });
});
after(() => emu.close());
beforeEach(() => emu.reset());

const pdf = (text = 'hello') => ({ FileName: 'contract.pdf', FileBody: b64(`%PDF-1.4 ${text}`) });

describe('business envelope and errors', () => {
  it('success bodies use the Response envelope with RequestId and X-Request-Id, UTF-8 JSON', async () => {
    const t = await alice(emu);
    const r = await upload(emu, t.access_token, [pdf()]);
    assert.equal(r.status, 200);
    assert.match(r.res.headers.get('content-type')!, /^application\/json; charset=utf-8$/);
    assert.equal(typeof r.body.Response.RequestId, 'string');
    assert.equal(r.res.headers.get('x-request-id'), r.body.Response.RequestId);
  });

  it('unknown routes answer 404 with the error envelope', async () => {
    const res = await fetch(`${emu.baseUrl}/openapi/v1/nothing`, { method: 'POST' });
    assert.equal(res.status, 404);
    const body = (await res.json()) as any;
    assert.equal(body.Response.Error.Code, 'ResourceNotFound');
    assert.equal(res.headers.get('x-request-id'), body.Response.RequestId);
  });

  it('no token, unknown token', async () => {
    const none = await upload(emu, '', [pdf()]);
    assert.equal(none.status, 401);
    assert.equal(none.body.Response.Error!.Code, 'AuthFailure.TokenMissing');
    const unknown = await upload(emu, 'at_nope', [pdf()]);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.Response.Error!.Code, 'AuthFailure.TokenInvalid');
  });

  it('malformed JSON is 400 InvalidParameter, wrong content type 415', async () => {
    const t = await alice(emu);
    const bad = await api(emu, '/files/upload', t.access_token, '{"Files": [');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.Response.Error!.Code, 'InvalidParameter');
    const notObject = await api(emu, '/files/upload', t.access_token, '[1,2]');
    assert.equal(notObject.status, 400);
    const wrong = await api(emu, '/files/upload', t.access_token, JSON.stringify({ Files: [pdf()] }), { 'content-type': 'text/plain' });
    assert.equal(wrong.status, 415);
    assert.equal(wrong.body.Response.Error!.Code, 'UnsupportedMediaType');
  });

  it('CORS: loopback origins allowed on business routes, others not', async () => {
    const res = await fetch(`${emu.baseUrl}/openapi/v1/files/upload`, { method: 'POST', headers: { origin: 'http://localhost:6006' } });
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:6006');
    assert.match(res.headers.get('access-control-expose-headers')!, /Retry-After/);
    assert.match(res.headers.get('access-control-expose-headers')!, /X-Request-Id/);
    const pre = await fetch(`${emu.baseUrl}/openapi/v1/embedded/views`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-operator-user-id',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'http://127.0.0.1:5173');
    for (const h of ['Authorization', 'Content-Type', 'X-Operator-User-Id', 'X-TC-Action'])
      assert.match(pre.headers.get('access-control-allow-headers')!, new RegExp(h));
    const foreign = await fetch(`${emu.baseUrl}/openapi/v1/files/upload`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    const dev = await fetch(`${emu.baseUrl}/__emulator/clock`, { headers: { origin: 'http://localhost:8000' } });
    assert.equal(dev.headers.get('access-control-allow-origin'), 'http://localhost:8000');
  });

  it('corsOrigins setting replaces the loopback default', async () => {
    const other = await start({ corsOrigins: ['https://app.example.com'] });
    try {
      const yes = await fetch(`${other.baseUrl}/openapi/v1/files/upload`, { method: 'POST', headers: { origin: 'https://app.example.com' } });
      assert.equal(yes.headers.get('access-control-allow-origin'), 'https://app.example.com');
      const no = await fetch(`${other.baseUrl}/openapi/v1/files/upload`, { method: 'POST', headers: { origin: 'http://localhost:6006' } });
      assert.equal(no.headers.get('access-control-allow-origin'), null);
    } finally {
      await other.close();
    }
  });
});

describe('POST /files/upload', () => {
  it('stores files in order and returns FileIds', async () => {
    const t = await alice(emu);
    const r = await upload(emu, t.access_token, [pdf('a'), { FileName: 'b.txt', FileBody: b64('bb') }, { FileName: '合同.pdf', FileBody: b64('c') }]);
    assert.equal(r.status, 200);
    const files = r.body.Response.Data.Files as Array<{ FileId: string; FileName: string }>;
    assert.deepEqual(
      files.map((f) => f.FileName),
      ['contract.pdf', 'b.txt', '合同.pdf'],
    );
    assert.equal(new Set(files.map((f) => f.FileId)).size, 3);
  });

  for (const [name, files] of [
    ['invalid Base64 characters', [{ FileName: 'a', FileBody: 'abc$' }]],
    ['Base64 with bad length', [{ FileName: 'a', FileBody: 'abc' }]],
    ['Base64 with whitespace', [{ FileName: 'a', FileBody: 'aGVs bG8=' }]],
    ['base64url alphabet', [{ FileName: 'a', FileBody: '__8=' }]],
    ['padding in the middle', [{ FileName: 'a', FileBody: 'aG==bG8=' }]],
    ['empty name', [{ FileName: '', FileBody: b64('x') }]],
    ['blank name', [{ FileName: '   ', FileBody: b64('x') }]],
    ['number name', [{ FileName: 3, FileBody: b64('x') }]],
    ['number body', [{ FileName: 'a', FileBody: 12 }]],
    ['empty file', [{ FileName: 'a', FileBody: '' }]],
    ['not an object', ['x']],
    ['no files', []],
  ] as Array<[string, unknown[]]>) {
    it(`rejects ${name} with 400 InvalidParameter`, async () => {
      const t = await alice(emu);
      const r = await api(emu, '/files/upload', t.access_token, { Files: files });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.Response.Error!.Code, 'InvalidParameter');
    });
  }

  it('Files must be an array', async () => {
    const t = await alice(emu);
    const r = await api(emu, '/files/upload', t.access_token, { Files: 'x' });
    assert.equal(r.status, 400);
  });

  it('a file over the size limit is 413 LimitExceeded.FileSize (exact limit passes)', async () => {
    const t = await alice(emu);
    const ok = await upload(emu, t.access_token, [{ FileName: 'max.bin', FileBody: b64(new Uint8Array(MAX)) }]);
    assert.equal(ok.status, 200);
    const r = await upload(emu, t.access_token, [{ FileName: 'big.bin', FileBody: b64(new Uint8Array(MAX + 1)) }]);
    assert.equal(r.status, 413);
    assert.equal(r.body.Response.Error!.Code, 'LimitExceeded.FileSize');
  });

  it('more files than allowed is 413 LimitExceeded.FileCount', async () => {
    const t = await alice(emu);
    const r = await upload(emu, t.access_token, [pdf(), pdf(), pdf(), pdf()]);
    assert.equal(r.status, 413);
    assert.equal(r.body.Response.Error!.Code, 'LimitExceeded.FileCount');
  });

  it('an oversized body is refused with 413 before parsing', async () => {
    const t = await alice(emu);
    const huge = 'x'.repeat(Math.ceil((3 * MAX * 4) / 3) + 70 * 1024);
    const r = await api(emu, '/files/upload', t.access_token, huge);
    assert.equal(r.status, 413);
    assert.equal(r.body.Response.Error!.Code, 'LimitExceeded.FileSize');
  });

  it('rate limit: 429 RequestLimitExceeded with Retry-After, per token, recovers with time', async () => {
    const t = await alice(emu);
    for (let i = 0; i < 60; i++) assert.equal((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).status, 200);
    const r = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    assert.equal(r.status, 429);
    assert.equal(r.body.Response.Error!.Code, 'RequestLimitExceeded');
    const retry = Number(r.res.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, String(retry));
    const other = await alice(emu, 'space_alice');
    assert.equal((await api(emu, '/embedded/views', other.access_token, { OperateType: 'signature_status' })).status, 200);
    emu.advanceClock(retry);
    assert.equal((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).status, 200);
  });
});

describe('Space isolation and embedded views', () => {
  it('FileIds of another Space are 404 ResourceNotFound.File, as unknown ones', async () => {
    const acme = await alice(emu, 'space_acme');
    const personal = await alice(emu, 'space_alice');
    const id = (await upload(emu, acme.access_token, [pdf()])).body.Response.Data.Files[0].FileId as string;
    const mine = await api(emu, '/embedded/views', acme.access_token, { OperateType: 'request_signatures', OperateParam: { FileIds: [id] } });
    assert.equal(mine.status, 200);
    const theirs = await api(emu, '/embedded/views', personal.access_token, { OperateType: 'request_signatures', OperateParam: { FileIds: [id] } });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.Response.Error!.Code, 'ResourceNotFound.File');
    const unknown = await api(emu, '/embedded/views', personal.access_token, { OperateType: 'request_signatures', OperateParam: { FileIds: ['file_nope'] } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.Response.Error!.Message.replace('file_nope', id), theirs.body.Response.Error!.Message);
  });

  it("one client_id installed in several Spaces: Bob in Acme sees Alice's Acme envelope, Alice Personal does not", async () => {
    const acme = await alice(emu, 'space_acme');
    const id = (await upload(emu, acme.access_token, [pdf()])).body.Response.Data.Files[0].FileId;
    const created = await api(
      emu,
      '/envelopes',
      acme.access_token,
      { FileIds: [id], Signers: [{ Name: 'Bob Lim', Email: 'bob@example.com' }] },
      { 'x-operator-user-id': 'user_alice' },
    );
    assert.equal(created.status, 200);
    const envId = created.body.Response.Data.EnvelopeId;
    const personal = await alice(emu, 'space_alice');
    const remind = await api(emu, '/envelopes/remind', personal.access_token, { EnvelopeId: envId }, { 'x-operator-user-id': 'user_alice' });
    assert.equal(remind.status, 404);
    assert.equal(remind.body.Response.Error!.Code, 'ResourceNotFound.Envelope');
    const bob = await signIn(emu, 'bob@example.com', 'bob-password', 'space_acme');
    const bobRemind = await api(emu, '/envelopes/remind', bob.access_token, { EnvelopeId: envId }, { 'x-operator-user-id': 'user_bob' });
    assert.equal(bobRemind.status, 200);
  });

  it('request_signatures needs FileIds; unknown OperateType; signature_status takes no OperateParam', async () => {
    const t = await alice(emu);
    for (const body of [
      { OperateType: 'request_signatures' },
      { OperateType: 'request_signatures', OperateParam: { FileIds: [] } },
      { OperateType: 'request_signatures', OperateParam: { FileIds: [1] } },
    ]) {
      const r = await api(emu, '/embedded/views', t.access_token, body);
      assert.equal(r.status, 400);
      assert.equal(r.body.Response.Error!.Code, 'InvalidParameter.FileIds');
    }
    const unknown = await api(emu, '/embedded/views', t.access_token, { OperateType: 'edit' });
    assert.equal(unknown.body.Response.Error!.Code, 'InvalidParameter');
    const withParam = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status', OperateParam: { FileIds: ['x'] } });
    assert.equal(withParam.status, 400);
    assert.equal(withParam.body.Response.Error!.Code, 'InvalidParameter');
  });

  it('Url is on the public origin, single use, with ExpiresAt RFC3339 from the emulator clock', async () => {
    const t = await alice(emu);
    const r = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    const { Url, ExpiresAt } = r.body.Response.Data as { Url: string; ExpiresAt: string };
    assert.ok(Url.startsWith(`${emu.baseUrl}/embedded/`), Url);
    assert.ok(new URL(Url).searchParams.get('embedded_token'));
    assert.match(ExpiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const delta = Date.parse(ExpiresAt) - emu.now().getTime();
    assert.ok(delta > 298_000 && delta <= 300_000, String(delta));
    const first = await get(Url);
    assert.equal(first.status, 303);
    const pageUrl = first.headers.get('location')!;
    assert.match(pageUrl, /\/embedded\/s\/[^/]+\/contracts$/);
    const pageRes = await get(pageUrl);
    assert.equal(pageRes.status, 200);
    assert.equal(pageRes.headers.get('x-frame-options'), null);
    assert.match(pageRes.headers.get('content-security-policy')!, /^frame-ancestors .*http:\/\/localhost:\*/);
    const html = await pageRes.text();
    assert.match(html, /"type":"ready","page":"signature_status"/);
    const second = await get(Url);
    assert.equal(second.status, 410);
    const secondHtml = await second.text();
    assert.match(secondHtml, /"type":"error","code":"url_used"/);
    assert.match(secondHtml, /source='esign'/);
    assert.equal((await get(pageUrl)).status, 200, 'the page session keeps working after the Url is consumed');
  });

  it('Url after ExpiresAt shows url_expired', async () => {
    const t = await alice(emu);
    const r = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    emu.advanceClock(301);
    const res = await get(r.body.Response.Data.Url);
    assert.equal(res.status, 410);
    assert.match(await res.text(), /"code":"url_expired"/);
  });

  it('HEAD does not consume the Url', async () => {
    const t = await alice(emu);
    const { Url } = (await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).body.Response.Data;
    await fetch(Url, { method: 'HEAD', redirect: 'manual' });
    assert.equal((await get(Url)).status, 303);
  });

  it('frameAncestors setting controls the CSP', async () => {
    const other = await start({ frameAncestors: ['https://shop.example'] });
    try {
      const t = await alice(other);
      const { Url } = (await api(other, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).body.Response.Data;
      const page = await get((await get(Url)).headers.get('location')!);
      assert.equal(page.headers.get('content-security-policy'), "frame-ancestors 'self' https://shop.example");
    } finally {
      await other.close();
    }
  });

  it('publicUrl setting is used for returned Urls and consent redirects', async () => {
    const other = await start({ publicUrl: 'https://esign.test.example' });
    try {
      const t = await import('./emulator-helpers.js');
      const res = await get(t.authUrl(other, t.defaultAuthParams(t.pkce().challenge)));
      assert.ok(res.headers.get('location')!.startsWith('https://esign.test.example/consent?request='));
    } finally {
      await other.close();
    }
  });
});

describe('members/add and the outbox', () => {
  it('adds a new user as pending, sends an invitation; the accept link makes them active; idempotent', async () => {
    const t = await alice(emu);
    const r = await api(emu, '/members/add', t.access_token, { Email: 'dora@example.com', Name: 'Dora Ng' });
    assert.equal(r.status, 200);
    assert.equal(r.body.Response.Data.Status, 'pending');
    const userId = r.body.Response.Data.UserId as string;
    const again = await api(emu, '/members/add', t.access_token, { Email: 'dora@example.com' });
    assert.deepEqual(again.body.Response.Data, { UserId: userId, Status: 'pending' });
    const mails = (await outbox(emu)).filter((m) => m.to === 'dora@example.com');
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.kind, 'invitation');
    assert.ok(mails[0]!.link.startsWith(`${emu.baseUrl}/invite/`));
    // operator check: a pending member is not an operator yet
    const pendingOp = await api(emu, '/envelopes/remind', t.access_token, { EnvelopeId: 'x' }, { 'x-operator-user-id': userId });
    assert.equal(pendingOp.body.Response.Error!.Code, 'OperationDenied.NotMember');
    const accept = await get(mails[0]!.link);
    assert.equal(accept.status, 200);
    const html = await accept.text();
    assert.match(html, /active member of <strong>Acme Legal/);
    assert.match(html, /name="password"/, 'a new user sets a password');
    assert.equal((await get(mails[0]!.link)).status, 200, 'accepting twice is fine');
    const active = await api(emu, '/members/add', t.access_token, { Email: 'dora@example.com' });
    assert.deepEqual(active.body.Response.Data, { UserId: userId, Status: 'active' });
    // set the password, then Dora can log in through OAuth and sees Acme
    const setPw = await fetch(`${mails[0]!.link}/password`, { method: 'POST', body: new URLSearchParams({ password: 'dora-password' }) });
    assert.equal(setPw.status, 200);
    const dora = await signIn(emu, 'dora@example.com', 'dora-password', 'space_acme');
    assert.equal(dora.space_id, 'space_acme');
  });

  it('a new user without password cannot log in before accepting', async () => {
    const t = await alice(emu);
    await api(emu, '/members/add', t.access_token, { Email: 'eve@example.com' });
    const h = await import('./emulator-helpers.js');
    const { requestId } = await h.openConsent(emu, h.defaultAuthParams(h.pkce().challenge));
    const { res, html } = await h.login(emu, requestId, 'eve@example.com', 'anything');
    assert.equal(res.status, 401);
    assert.match(html, /no password yet/);
  });

  it('an existing active member keeps its status', async () => {
    const t = await alice(emu);
    const r = await api(emu, '/members/add', t.access_token, { Email: 'BOB@example.com' });
    assert.deepEqual(r.body.Response.Data, { UserId: 'user_bob', Status: 'active' });
    assert.equal((await outbox(emu)).length, 0);
  });

  it('validates Email and Name', async () => {
    const t = await alice(emu);
    for (const body of [{}, { Email: 'nope' }, { Email: 3 }, { Email: 'a@b.co', Name: 5 }]) {
      const r = await api(emu, '/members/add', t.access_token, body);
      assert.equal(r.status, 400);
      assert.equal(r.body.Response.Error!.Code, 'InvalidParameter');
    }
  });

  it('outbox.html lists the emails with their links', async () => {
    const t = await alice(emu);
    await api(emu, '/members/add', t.access_token, { Email: 'fay@example.com' });
    const res = await get(`${emu.baseUrl}/__emulator/outbox.html`);
    const html = await res.text();
    assert.match(html, /fay@example.com/);
    assert.match(html, /Accept invitation/);
    assert.match(html, /href="http:\/\/127\.0\.0\.1:\d+\/invite\//);
  });
});

describe('envelope operations', () => {
  async function setup() {
    const t = await alice(emu);
    const id = (await upload(emu, t.access_token, [pdf()])).body.Response.Data.Files[0].FileId as string;
    return { t, id };
  }
  const op = { 'x-operator-user-id': 'user_alice' };

  it('without X-Operator-User-Id: 403 OperationDenied.OperatorRequired', async () => {
    const { t, id } = await setup();
    for (const [path, body] of [
      ['/envelopes', { FileIds: [id], Signers: [{ Name: 'Bob', Email: 'bob@example.com' }] }],
      ['/envelopes/void', { EnvelopeId: 'x' }],
      ['/envelopes/remind', { EnvelopeId: 'x' }],
    ] as const) {
      const r = await api(emu, path, t.access_token, body);
      assert.equal(r.status, 403, path);
      assert.equal(r.body.Response.Error!.Code, 'OperationDenied.OperatorRequired');
    }
  });

  it('a non-member operator (or a member of another Space) is 403 OperationDenied.NotMember', async () => {
    const { t, id } = await setup();
    for (const who of ['user_carol', 'user_dev', 'sys_demo-client', 'nobody']) {
      const r = await api(
        emu,
        '/envelopes',
        t.access_token,
        { FileIds: [id], Signers: [{ Name: 'Bob', Email: 'bob@example.com' }] },
        { 'x-operator-user-id': who },
      );
      assert.equal(r.status, 403, who);
      assert.equal(r.body.Response.Error!.Code, 'OperationDenied.NotMember');
    }
  });

  it('create, remind (emails pending signers again), void; wrong-state 409', async () => {
    const { t, id } = await setup();
    const created = await api(
      emu,
      '/envelopes',
      t.access_token,
      {
        FileIds: [id],
        Subject: 'NDA',
        Signers: [
          { Name: 'Bob Lim', Email: 'bob@example.com' },
          { Name: 'Ext', Email: 'ext@partner.example' },
        ],
      },
      op,
    );
    assert.equal(created.status, 200);
    const env = created.body.Response.Data;
    assert.equal(env.Status, 'sent');
    assert.equal(env.Subject, 'NDA');
    assert.deepEqual(env.FileIds, [id]);
    assert.deepEqual(
      env.Signers.map((s: any) => s.Status),
      ['pending', 'pending'],
    );
    assert.match(env.CreatedAt, /Z$/);
    assert.equal((await outbox(emu)).filter((m) => m.kind === 'sign-request').length, 2);
    const remind = await api(emu, '/envelopes/remind', t.access_token, { EnvelopeId: env.EnvelopeId }, op);
    assert.equal(remind.status, 200);
    const reminders = (await outbox(emu)).filter((m) => m.kind === 'reminder');
    assert.deepEqual(reminders.map((m) => m.to).sort(), ['bob@example.com', 'ext@partner.example']);
    const voided = await api(emu, '/envelopes/void', t.access_token, { EnvelopeId: env.EnvelopeId, Reason: 'typo' }, op);
    assert.equal(voided.status, 200);
    assert.equal(voided.body.Response.Data.Status, 'voided');
    const again = await api(emu, '/envelopes/void', t.access_token, { EnvelopeId: env.EnvelopeId }, op);
    assert.equal(again.status, 409);
    assert.equal(again.body.Response.Error!.Code, 'FailedOperation.EnvelopeState');
    const remindVoided = await api(emu, '/envelopes/remind', t.access_token, { EnvelopeId: env.EnvelopeId }, op);
    assert.equal(remindVoided.status, 409);
  });

  it('create validates FileIds and Signers; foreign files are 404', async () => {
    const { t, id } = await setup();
    const noFiles = await api(emu, '/envelopes', t.access_token, { FileIds: [], Signers: [{ Name: 'B', Email: 'b@example.com' }] }, op);
    assert.equal(noFiles.body.Response.Error!.Code, 'InvalidParameter.FileIds');
    const noSigners = await api(emu, '/envelopes', t.access_token, { FileIds: [id], Signers: [] }, op);
    assert.equal(noSigners.body.Response.Error!.Code, 'InvalidParameter');
    const badEmail = await api(emu, '/envelopes', t.access_token, { FileIds: [id], Signers: [{ Name: 'B', Email: 'nope' }] }, op);
    assert.equal(badEmail.body.Response.Error!.Code, 'InvalidParameter');
    const personal = await alice(emu, 'space_alice');
    const foreign = await api(emu, '/envelopes', personal.access_token, { FileIds: [id], Signers: [{ Name: 'B', Email: 'b@example.com' }] }, op);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.Response.Error!.Code, 'ResourceNotFound.File');
  });

  it('an external signer signs from the emailed link without login; all signed → completed', async () => {
    const { t, id } = await setup();
    const created = await api(emu, '/envelopes', t.access_token, { FileIds: [id], Signers: [{ Name: 'Ext', Email: 'ext@partner.example' }] }, op);
    const envId = created.body.Response.Data.EnvelopeId as string;
    const mail = (await outbox(emu)).find((m) => m.to === 'ext@partner.example')!;
    assert.ok(mail.link.includes(`/embedded/envelopes/${envId}`), 'the envelope id is in the signing page path');
    const pageRes = await get(mail.link);
    assert.equal(pageRes.status, 200);
    const html = await pageRes.text();
    assert.match(html, />Sign</);
    const signer = /name="signer" value="([^"]+)"/.exec(html)![1]!;
    const signed = await fetch(`${emu.baseUrl}/embedded/envelopes/${envId}/sign`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ signer, action: 'sign' }),
    });
    assert.equal(signed.status, 303);
    const after = await (await get(signed.headers.get('location')!)).text();
    assert.match(after, /"type":"envelope-signed","envelopeId":"[^"]+","status":"completed"/);
    const voidDone = await api(emu, '/envelopes/void', t.access_token, { EnvelopeId: envId }, op);
    assert.equal(voidDone.status, 409);
    assert.equal((await get(`${emu.baseUrl}/embedded/envelopes/${envId}?signer=wrong`)).status, 404);
  });

  it('the app system user is refused for envelope operations but may upload', async () => {
    const t = await alice(emu);
    assert.equal((await upload(emu, t.access_token, [pdf()])).status, 200);
    const seed = (await (await helper(emu, 'seed', undefined, 'GET')).json()) as any;
    assert.equal(seed.apps[0].systemUserId, 'sys_demo-client');
  });
});
