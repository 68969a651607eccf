/** The emulator for people: pages in the browser's language, a refused redirect explained, development redirects, display names. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RunningEmulator } from '../src/index.js';
import { pageLang } from '../src/page-i18n.js';
import { alice, api, authUrl, defaultAuthParams, get, pkce, start } from './emulator-helpers.js';

let emu: RunningEmulator;
let dev: RunningEmulator;

before(async () => {
  emu = await start();
  dev = await start({ devRedirects: true });
});
after(() => Promise.all([emu.close(), dev.close()]));
beforeEach(() => emu.reset());

async function listPage(acceptLanguage: string): Promise<string> {
  const t = await alice(emu);
  const view = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
  const landed = await get(view.body.Response.Data.Url);
  return (await get(landed.headers.get('location')!, { headers: { 'Accept-Language': acceptLanguage } })).text();
}

describe('emulator pages for people', () => {
  it('serves a favicon on both origins, so a browser showing its pages logs no 404', async () => {
    for (const origin of [emu.baseUrl, emu.fileUrl]) {
      const icon = await fetch(`${origin}/favicon.ico`);
      assert.equal(icon.status, 200, origin);
      assert.equal(icon.headers.get('content-type'), 'image/png');
      assert.deepEqual([...new Uint8Array(await icon.arrayBuffer()).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
    }
  });

  it('picks the page language from Accept-Language with q-values', () => {
    assert.equal(pageLang('ms-MY,ms;q=0.9,en;q=0.8'), 'ms');
    assert.equal(pageLang('en;q=0.5, zh-CN'), 'zh-CN');
    assert.equal(pageLang('zh-TW,fr'), 'en');
    assert.equal(pageLang(''), 'en');
    assert.equal(pageLang('de-DE, ms;q=0.1'), 'ms');
  });

  it('shows a Malay contract list to a Malay browser, and a Chinese one to a Chinese browser', async () => {
    const ms = await listPage('ms-MY,ms;q=0.9');
    assert.match(ms, /<html lang="ms">/);
    assert.match(ms, /<h1>Kontrak<\/h1>/);
    assert.match(ms, /Belum ada kontrak\./);
    const zh = await listPage('zh-CN');
    assert.match(zh, /<h1>合同<\/h1>/);
    const en = await listPage('en-GB');
    assert.match(en, /No contracts yet\./);
  });

  it('explains a refused redirect_uri: the address used, the registered ones, and a message for the opener', async () => {
    const { challenge } = pkce();
    const used = 'http://localhost:5173/my-page.html';
    const res = await get(authUrl(emu, defaultAuthParams(challenge, { redirect_uri: used })));
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, new RegExp(`id="redirect-uri-used"[^>]*>${used.replace(/[.]/g, '\\.')}<`));
    assert.match(html, /<code>http:\/\/localhost:6006\/iframe\.html<\/code>/);
    const json = /<script type="application\/json" id="oauth-error">([\s\S]*?)<\/script>/.exec(html);
    assert.ok(json, 'the page carries its message');
    const message = JSON.parse(json[1]!) as Record<string, unknown>;
    assert.deepEqual(
      { ...message, registered: (message['registered'] as string[]).includes('http://localhost:6006/iframe.html') },
      { source: 'esign', type: 'oauth-error', error: 'invalid_redirect_uri', redirectUri: used, registered: true },
    );
    assert.match(html, /window\.opener\.postMessage/);
    assert.match(html, /--dev/, 'says how to accept it in development');
  });

  it('in development mode accepts a loopback redirect_uri on any port and path, and still refuses other hosts', async () => {
    const { challenge } = pkce();
    const ok = await get(authUrl(dev, defaultAuthParams(challenge, { redirect_uri: 'http://127.0.0.1:5500/index.html' })));
    assert.equal(ok.status, 302);
    assert.match(ok.headers.get('location')!, /\/consent\?request=/);
    const refused = await get(authUrl(dev, defaultAuthParams(challenge, { redirect_uri: 'http://example.com:5500/' })));
    assert.equal(refused.status, 400);
    const strict = await get(authUrl(emu, defaultAuthParams(challenge, { redirect_uri: 'http://127.0.0.1:5500/index.html' })));
    assert.equal(strict.status, 400);
  });

  it('names the person and the Space in the token response (optional fields)', async () => {
    const t = (await alice(emu)) as unknown as Record<string, unknown>;
    assert.equal(t['user_name'], 'Alice Tan');
    assert.equal(t['user_email'], 'alice@example.com');
    assert.equal(t['space_name'], 'Acme Legal');
  });

  it('frame-ancestors lists only valid sources (no IPv6 literal, which CSP cannot express)', async () => {
    const t = await alice(emu);
    const view = await api(emu, '/embedded/views', t.access_token, { OperateType: 'signature_status' });
    const res = await get(view.body.Response.Data.Url);
    const landed = await get(res.headers.get('location')!);
    const csp = landed.headers.get('content-security-policy')!;
    assert.match(csp, /http:\/\/localhost:\*/);
    assert.doesNotMatch(csp, /\[::1\]/);
  });
});
