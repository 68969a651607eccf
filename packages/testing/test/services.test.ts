/**
 * The kit's services as a test of an integrator's server code uses them, over real sockets: the emulator, the token
 * proxy and the kit's site start on free ports; an access token from the kit works at the emulator's API, a fault the
 * kit injects is what the next call meets, a page the kit serves is served with the policy it names, and close()
 * stops all three. (The browser side, a person signing in through the proxy, is the root's end-to-end tests.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PEOPLE, SPACES, startEsignServices, type EsignServices } from '../src/index.js';

let services: EsignServices;

before(async () => {
  services = await startEsignServices({ clientId: 'kit-test', appName: 'Kit test' });
});
after(async () => {
  await services?.close();
});

/** The emulator's embedded-view call, as server code makes it with a token of the kit. */
async function signatureStatusView(token: string): Promise<Response> {
  return fetch(`${services.baseUrl}/openapi/v1/embedded/views`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ OperateType: 'signature_status' }),
  });
}

describe('@esign-elements/testing: startEsignServices', () => {
  it('gives an access token the emulator accepts, for a member of a Space', async () => {
    const token = await services.accessToken(PEOPLE.alice.email, SPACES.acme.spaceId);
    const answer = await signatureStatusView(token);
    assert.equal(answer.status, 200, await answer.clone().text());
    const body = (await answer.json()) as { Response: { Data: { Url: string } } };
    assert.ok(body.Response.Data.Url.startsWith(`${services.baseUrl}/embedded/view?`), body.Response.Data.Url);
    assert.match(await services.userId(PEOPLE.alice.email), /\S/);
  });

  it('injects a fault the next matching call meets, once', async () => {
    const token = await services.accessToken(PEOPLE.alice.email, SPACES.acme.spaceId);
    await services.injectFault({ path: '/openapi/v1/embedded/views', kind: 'status', status: 503, retryAfter: 2 });
    const failed = await signatureStatusView(token);
    assert.equal(failed.status, 503);
    assert.equal(failed.headers.get('retry-after'), '2');
    await failed.body?.cancel();
    const next = await signatureStatusView(token);
    assert.equal(next.status, 200);
    await next.body?.cancel();
  });

  it("runs a token proxy that answers its health route and names the kit's site as an allowed origin", async () => {
    const health = await fetch(`${services.proxyOrigin}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.equal(services.tokenEndpoint, `${services.proxyOrigin}/token`);
    assert.match(services.connectAttributes, /client-id="kit-test"/);
    assert.ok(services.connectAttributes.includes(`base-url="${services.baseUrl}"`));
  });

  it('serves a page on its site, with the Content-Security-Policy its services need', async () => {
    const url = services.servePage('<p>Hello from the kit</p>', { elements: false, csp: true, title: 'Kit page' });
    assert.ok(url.startsWith(services.siteOrigin));
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const policy = page.headers.get('content-security-policy') ?? '';
    assert.ok(policy.includes(services.cspHeader), `${policy} has the services' ${services.cspHeader}`);
    assert.match(policy, /script-src 'self'/);
    assert.ok(services.cspHeader.includes(new URL(services.baseUrl).origin), services.cspHeader);
    const html = await page.text();
    assert.ok(html.includes('<p>Hello from the kit</p>') && html.includes('<title>Kit page</title>'), html);
  });

  it('close() stops the emulator, the proxy and the site', async () => {
    const more = await startEsignServices();
    const urls = [`${more.baseUrl}/__emulator/outbox.html`, `${more.proxyOrigin}/health`, more.siteOrigin];
    await more.close();
    for (const url of urls) await assert.rejects(fetch(url), `${url} is closed`);
  });
});
