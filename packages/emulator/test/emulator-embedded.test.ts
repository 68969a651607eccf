import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RunningEmulator } from '../src/index.js';
import { alice, api, b64, get, outbox, signIn, start, upload } from './emulator-helpers.js';

let emu: RunningEmulator;

before(async () => {
  emu = await start();
});
after(() => emu.close());
beforeEach(() => emu.reset());

/** Opens an embedded Url (consuming it) and returns the page-session URL it lands on. */
async function open(url: string): Promise<string> {
  const res = await get(url);
  assert.equal(res.status, 303);
  return res.headers.get('location')!;
}

async function page(url: string): Promise<{ status: number; html: string; res: Response }> {
  const res = await get(url);
  return { status: res.status, html: await res.text(), res };
}

function messages(html: string): Array<Record<string, unknown>> {
  const m = /<script type="application\/json" id="esign-messages">([\s\S]*?)<\/script>/.exec(html);
  return m ? (JSON.parse(m[1]!) as Array<Record<string, unknown>>) : [];
}

async function composeFor(token: string, names: string[]): Promise<string> {
  const files = names.map((n) => ({ FileName: n, FileBody: b64(`%PDF ${n}`) }));
  const ids = (await upload(emu, token, files)).body.Response.Data.Files.map((f: { FileId: string }) => f.FileId);
  const view = await api(emu, '/embedded/views', token, { OperateType: 'request_signatures', OperateParam: { FileIds: ids } });
  assert.equal(view.status, 200);
  return open(view.body.Response.Data.Url);
}

function post(url: string, fields: Array<[string, string]>): Promise<Response> {
  return fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields) });
}

describe('embedded pages', () => {
  it('envelope edit page: files by name, Add signer keeps values, Send creates a sent envelope', async () => {
    const t = await alice(emu);
    const composeUrl = await composeFor(t.access_token, ['lease.pdf', '<script>x</script>.pdf']);
    assert.match(composeUrl, /\/embedded\/s\/[^/]+\/compose$/);
    const first = await page(composeUrl);
    assert.equal(first.status, 200);
    assert.match(first.html, /lease\.pdf/);
    assert.match(first.html, /&lt;script&gt;x&lt;\/script&gt;\.pdf/, 'names are escaped');
    assert.deepEqual(messages(first.html)[0], { type: 'ready', page: 'request_signatures' });
    assert.match(first.html, /ResizeObserver/);
    assert.match(first.html, />Add signer</);
    assert.match(first.html, /<label for="signer-name-0">Name<\/label>/);

    const added = await post(composeUrl, [
      ['subject', 'Lease 2025'],
      ['signer_name', 'Bob Lim'],
      ['signer_email', 'bob@example.com'],
      ['action', 'add_signer'],
    ]);
    assert.equal(added.status, 200);
    const addedHtml = await added.text();
    assert.match(addedHtml, /id="signer-name-1"/);
    assert.match(addedHtml, /value="Bob Lim"/);
    assert.match(addedHtml, /value="Lease 2025"/);

    const bad = await post(composeUrl, [
      ['signer_name', 'No Email'],
      ['signer_email', ''],
      ['action', 'send'],
    ]);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /valid email/);

    const sent = await post(composeUrl, [
      ['subject', 'Lease 2025'],
      ['signer_name', 'Bob Lim'],
      ['signer_email', 'bob@example.com'],
      ['signer_name', 'Ext Partner'],
      ['signer_email', 'ext@partner.example'],
      ['action', 'send'],
    ]);
    assert.equal(sent.status, 303);
    const envUrl = sent.headers.get('location')!;
    const envId = /\/envelopes\/([^/?]+)$/.exec(envUrl)![1]!;
    const envPage = await page(envUrl);
    assert.match(envPage.html, /Lease 2025/);
    assert.deepEqual(messages(envPage.html), [
      { type: 'ready', page: 'sign' },
      { type: 'envelope-sent', envelopeId: envId, status: 'sent' },
    ]);
    // the one-shot message is not repeated on reload
    assert.deepEqual(messages((await page(envUrl)).html), [{ type: 'ready', page: 'sign' }]);
    const mails = await outbox(emu);
    assert.deepEqual(
      mails
        .filter((m) => m.kind === 'sign-request')
        .map((m) => m.to)
        .sort(),
      ['bob@example.com', 'ext@partner.example'],
    );

    // the sender's contract list shows it with its state and dates
    const list = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    const listPage = await page(await open(list.body.Response.Data.Url));
    assert.match(listPage.html, new RegExp(`data-envelope-id="${envId}"`));
    assert.match(listPage.html, /data-status="sent"/);
    assert.match(listPage.html, /<time datetime="\d{4}-\d\d-\d\dT/);
  });

  it('a member signer signs in their contract list; the sender can void only while sent', async () => {
    const t = await alice(emu);
    const composeUrl = await composeFor(t.access_token, ['a.pdf']);
    const sent = await post(composeUrl, [
      ['signer_name', 'Bob Lim'],
      ['signer_email', 'bob@example.com'],
      ['action', 'send'],
    ]);
    const envId = /\/envelopes\/([^/?]+)$/.exec(sent.headers.get('location')!)![1]!;

    const bob = await signIn(emu, 'bob@example.com', 'bob-password', 'space_acme');
    const bobList = await page(await open((await api(emu, '/embedded/views', bob.access_token, { OperateType: 'signature_status' })).body.Response.Data.Url));
    assert.match(bobList.html, new RegExp(envId));
    const bobEnvUrl = new URL(/href="([^"]*\/envelopes\/[^"]+)"/.exec(bobList.html)![1]!, emu.baseUrl).toString();
    assert.ok(bobEnvUrl.includes(envId), 'the signing page path has the envelope id');
    const bobEnv = await page(bobEnvUrl);
    assert.match(bobEnv.html, />Sign</);
    assert.doesNotMatch(bobEnv.html, /Void envelope/, 'only the sender may void');
    const signed = await post(`${bobEnvUrl}/sign`, [['action', 'sign']]);
    assert.equal(signed.status, 303);
    const after = await page(signed.headers.get('location')!);
    assert.deepEqual(messages(after.html)[1], { type: 'envelope-signed', envelopeId: envId, status: 'completed' });
    assert.match(after.html, /data-status="completed"/);
    assert.ok((await outbox(emu)).some((m) => m.kind === 'envelope-completed' && m.to === 'alice@example.com'));

    // Alice's second envelope: void it from the page
    const compose2 = await composeFor(t.access_token, ['b.pdf']);
    const sent2 = await post(compose2, [
      ['signer_name', 'Bob Lim'],
      ['signer_email', 'bob@example.com'],
      ['action', 'send'],
    ]);
    const env2Url = sent2.headers.get('location')!;
    const env2 = await page(env2Url);
    assert.match(env2.html, /Void envelope/);
    const voided = await post(`${env2Url}/void`, []);
    assert.equal(voided.status, 303);
    const afterVoid = await page(voided.headers.get('location')!);
    assert.equal(messages(afterVoid.html)[1]!.type, 'envelope-voided');
    assert.match(afterVoid.html, /data-status="voided"/);
    assert.equal((await post(`${env2Url}/void`, [])).status, 404);
  });

  it('a user of another Space cannot open an envelope page', async () => {
    const t = await alice(emu);
    const composeUrl = await composeFor(t.access_token, ['a.pdf']);
    const sent = await post(composeUrl, [
      ['signer_name', 'Carol'],
      ['signer_email', 'carol@example.com'],
      ['action', 'send'],
    ]);
    const envId = /\/envelopes\/([^/?]+)$/.exec(sent.headers.get('location')!)![1]!;
    const personal = await alice(emu, 'space_alice');
    const listUrl = await open((await api(emu, '/embedded/views', personal.access_token, { OperateType: 'signature_status' })).body.Response.Data.Url);
    const list = await page(listUrl);
    assert.doesNotMatch(list.html, new RegExp(envId));
    assert.match(list.html, /No contracts yet/);
    const sid = /\/embedded\/s\/([^/]+)\//.exec(listUrl)![1]!;
    const peek = await page(`${emu.baseUrl}/embedded/s/${sid}/envelopes/${envId}`);
    assert.equal(peek.status, 404);
  });

  it('page sessions expire; unknown sessions show an error page posting an error message', async () => {
    const t = await alice(emu);
    const listUrl = await open((await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' })).body.Response.Data.Url);
    emu.advanceClock(3601);
    const expired = await page(listUrl);
    assert.equal(expired.status, 410);
    assert.equal(messages(expired.html)[0]!.type, 'error');
    const unknown = await page(`${emu.baseUrl}/embedded/view?embedded_token=nope`);
    assert.equal(unknown.status, 404);
    assert.deepEqual({ ...messages(unknown.html)[0], message: undefined }, { type: 'error', code: 'url_invalid', message: undefined });
  });

  it('the operator header picks the page user', async () => {
    const t = await alice(emu);
    const view = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' }, { 'x-operator-user-id': 'user_bob' });
    const list = await page(await open(view.body.Response.Data.Url));
    assert.match(list.html, /Bob Lim in Acme Legal/);
  });
});
