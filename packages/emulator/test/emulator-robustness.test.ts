import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { RunningEmulator } from '../src/index.js';
import { alice, api, start } from './emulator-helpers.js';

let emu: RunningEmulator;
let accessToken = '';

before(async () => {
  emu = await start({ limits: { requestsPerMinute: 100_000 } });
  accessToken = (await alice(emu)).access_token;
});
after(() => emu.close());

const paths = [
  '/openapi/v1/oauth/auth',
  '/openapi/v1/oauth/token',
  '/openapi/v1/oauth/revoke',
  '/openapi/v1/files/upload',
  '/openapi/v1/embedded/views',
  '/openapi/v1/members/add',
  '/openapi/v1/envelopes',
  '/openapi/v1/envelopes/void',
  '/openapi/v1/envelopes/remind',
  '/consent',
  '/consent/login',
  '/consent/decision',
  '/embedded/view',
  '/embedded/s/x/compose',
  '/embedded/envelopes/x',
  '/embedded/envelopes/x/sign',
  '/invite/x',
  '/invite/x/password',
  '/__emulator/clock',
  '/__emulator/faults',
  '/%E0%A4%A',
  '/',
];

const bodies = fc.oneof(
  fc.constant(''),
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify({ Files: v, OperateType: v, OperateParam: v, Email: v, FileIds: v, Signers: v, EnvelopeId: v })),
  fc
    .dictionary(
      fc.constantFrom('grant_type', 'code', 'token', 'request', 'email', 'password', 'decision', 'space_id', 'client_id', 'client_secret'),
      fc.string(),
    )
    .map((d) => new URLSearchParams(d).toString()),
);

describe('robustness', () => {
  it('never answers 5xx or crashes on arbitrary requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.string({ maxLength: 30 }),
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain', 'application/json; charset=utf-8', ''),
        bodies,
        fc.boolean(),
        fc.option(fc.string({ maxLength: 20 })),
        async (path, query, method, type, body, withToken, operator) => {
          if (path.startsWith('/__emulator/') && method !== 'GET') return; // helpers change global state on purpose
          const headers: Record<string, string> = {};
          if (type) headers['content-type'] = type;
          if (withToken) headers.authorization = `Bearer ${accessToken}`;
          if (operator !== null && /^[\x20-\x7e]*$/.test(operator)) headers['x-operator-user-id'] = operator;
          const res = await fetch(`${emu.baseUrl}${path}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`, {
            method,
            headers,
            redirect: 'manual',
            ...(method === 'GET' ? {} : { body }),
          });
          await res.arrayBuffer();
          assert.ok(res.status < 500, `${method} ${path} -> ${res.status}`);
        },
      ),
      { numRuns: 400 },
    );
    // still alive and still correct afterwards
    assert.equal((await api(emu, '/embedded/views', accessToken, { OperateType: 'signature_status' })).status, 200);
  });

  it('expired codes, tokens, Urls and sessions are swept so memory stays bounded', async () => {
    await fetch(`${emu.baseUrl}/__emulator/reset`, { method: 'POST' });
    const t = await alice(emu);
    const view = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    await fetch(view.body.Response.Data.Url, { redirect: 'manual' });
    const h = await import('./emulator-helpers.js');
    await h.openConsent(emu, h.defaultAuthParams(h.pkce().challenge));
    const stats = async () => (await (await fetch(`${emu.baseUrl}/__emulator/stats`)).json()) as Record<string, number>;
    const full = await stats();
    for (const k of ['authRequests', 'codes', 'grants', 'accessTokens', 'refreshTokens', 'embeddedUrls', 'pageSessions', 'rateWindows'])
      assert.ok(full[k]! >= 1, k);
    emu.advanceClock(40 * 24 * 3600);
    const swept = await stats();
    for (const k of ['authRequests', 'codes', 'grants', 'accessTokens', 'refreshTokens', 'embeddedUrls', 'pageSessions', 'rateWindows'])
      assert.equal(swept[k], 0, k);
  });

  it('setOffline: requests under way and new ones fail as a dropped network does, and work again after', async () => {
    await fetch(`${emu.baseUrl}/__emulator/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: '/openapi/v1/files/upload', kind: 'delay', delayMs: 2000, times: 1 }),
    });
    const underWay = fetch(`${emu.baseUrl}/openapi/v1/files/upload`, { method: 'POST', headers: { Authorization: `Bearer ${accessToken}` }, body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    emu.setOffline(true);
    try {
      await assert.rejects(underWay, TypeError, 'the request under way is cut, not answered');
      await assert.rejects(fetch(`${emu.baseUrl}/openapi/v1/oauth/auth`), TypeError, 'a new request on the business API fails');
      await assert.rejects(fetch(`${emu.fileUrl}/`), TypeError, 'and on the file domain');
    } finally {
      emu.setOffline(false);
    }
    const back = await fetch(`${emu.baseUrl}/openapi/v1/oauth/auth`);
    await back.arrayBuffer();
    assert.ok(back.status < 500, `answers again (${back.status})`);
  });
});
