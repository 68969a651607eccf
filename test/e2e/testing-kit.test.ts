/**
 * `@esign-elements/testing` as an integrator's test uses it: its services, a page it serves under the CSP it prints,
 * a person who signs in (popup and redirect), sends an envelope from the signing frame, and the people on the other
 * end (the signer on the emailed link, an invited member), the clock and a fault. Real sockets, real Chromium.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { EsignError } from '@esign-elements/shared/errors';
import { PEOPLE, SPACES, startEsignServices, type EsignServices } from '@esign-elements/testing';
import { signInWithPopup, signInWithRedirect } from '@esign-elements/testing/playwright';
import { cdnBuild } from '../helpers/built.js';
import { chromiumLaunchOptions } from '../helpers/chromium.js';

let services: EsignServices;
let browser: Browser;

/** A server's call with a ready token of `email` in `spaceId` (the kit's accessToken: no consent). */
async function api(
  path: string,
  email: string,
  spaceId: string,
  body: unknown,
): Promise<{ status: number; json: { Response: { Data?: Record<string, unknown>; Error?: { Code: string } } } }> {
  const response = await fetch(`${services.baseUrl}/openapi/v1${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${await services.accessToken(email, spaceId)}`,
      'Content-Type': 'application/json',
      'X-Operator-User-Id': await services.userId(email),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function envelopeFor(signerEmail: string, subject: string): Promise<string> {
  const upload = await api('/files/upload', PEOPLE.alice.email, SPACES.acme.spaceId, {
    Files: [{ FileName: 'nda.pdf', FileBody: Buffer.from('%PDF-1.4 nda').toString('base64') }],
  });
  const fileIds = (upload.json.Response.Data!['Files'] as Array<{ FileId: string }>).map((f) => f.FileId);
  const created = await api('/envelopes', PEOPLE.alice.email, SPACES.acme.spaceId, {
    FileIds: fileIds,
    Signers: [{ Name: 'Bob Lim', Email: signerEmail }],
    Subject: subject,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  return created.json.Response.Data!['EnvelopeId'] as string;
}

before(async () => {
  // the kit serves the package's CDN build: the one of this checkout's sources
  await cdnBuild();
  services = await startEsignServices({ appName: 'Kit test app' });
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await services?.close();
});

describe('@esign-elements/testing', () => {
  it('serves a page under the CSP it prints; a person connects, uploads and sends; the signer signs from the email', async () => {
    const url = services.servePage(
      `<esign-connect id="esign" ${services.connectAttributes}></esign-connect>
<esign-uploader id="up" connect="esign"></esign-uploader>
<esign-signing-frame connect="esign" uploader="up" auto></esign-signing-frame>
<esign-contract-list connect="esign"></esign-contract-list>`,
      { csp: true },
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(url);
    assert.match(
      response!.headers()['content-security-policy'] ?? '',
      new RegExp(`connect-src 'self' ${services.proxyOrigin} ${services.baseUrl}; frame-src ${services.baseUrl}`),
    );

    await signInWithPopup(page, PEOPLE.alice);
    await page.getByText('Connected as Alice Tan').waitFor();

    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('esign-uploader [part~="drop-zone"]').click()]);
    await chooser.setFiles({ name: 'kit-lease.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% kit\n%%EOF\n') });
    const frame = page.frameLocator('esign-signing-frame iframe');
    await frame.getByText('kit-lease.pdf').waitFor({ timeout: 20_000 });
    await frame.getByLabel('Subject').fill('Lease from the kit');
    await frame.getByLabel('Name').fill('Bob Lim');
    await frame.getByLabel('Email').fill('bob@example.com');
    await frame.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Envelope sent').waitFor();
    assert.deepEqual(violations, [], 'the printed CSP lets every part of the page work');

    const request = (await services.outbox()).find((m) => m.kind === 'sign-request' && m.to === 'bob@example.com');
    assert.ok(request, 'Bob got the signing request');
    const envelopeId = await services.signEnvelope('bob@example.com');
    assert.ok(request.link.includes(envelopeId));
    const completed = (await services.outbox()).filter((m) => m.kind === 'envelope-completed');
    assert.deepEqual(
      completed.map((m) => [m.to, m.subject]),
      [['alice@example.com', 'Completed: Lease from the kit']],
      'the sender hears that every signer signed',
    );
    await assert.rejects(
      services.signEnvelope('bob@example.com'),
      (error: EsignError) => error instanceof EsignError && error.code === 'invalid_argument',
      'nothing is left to sign',
    );
    await context.close();
  });

  it('declines as a signer, accepts an invitation, moves the clock and injects a fault', async () => {
    services.reset();
    await assert.rejects(
      services.accessToken(PEOPLE.carol.email, SPACES.acme.spaceId),
      (error: EsignError) => error.code === 'invalid_argument',
      'a token only for a member of the Space',
    );
    await assert.rejects(services.userId('nobody@example.com'), (error: EsignError) => error.code === 'not_found');
    const envelopeId = await envelopeFor('pat@partner.example', 'Supply agreement');
    assert.equal(await services.declineEnvelope('pat@partner.example', { envelopeId }), envelopeId);
    const link = (await services.outbox()).find((m) => m.to === 'pat@partner.example')!.link;
    assert.match(await (await fetch(link)).text(), /Declined/, 'the signing page says the envelope was declined');
    await assert.rejects(services.declineEnvelope('nobody@example.com'), (error: EsignError) => error.code === 'not_found');

    // the integrator's server invites Carol to its Space; she opens the email and becomes an active member
    const added = await api('/members/add', PEOPLE.dev.email, SPACES.integrator.spaceId, { Email: PEOPLE.carol.email });
    assert.equal(added.json.Response.Data!['Status'], 'pending');
    await services.acceptInvitation(PEOPLE.carol.email);
    const seed = (await (await fetch(`${services.baseUrl}/__emulator/seed`)).json()) as {
      spaces: Array<{ spaceId: string; members: Array<{ email?: string; userId: string; status: string }> }>;
    };
    const carol = seed.spaces.find((s) => s.spaceId === SPACES.integrator.spaceId)!.members.find((m) => m.userId === added.json.Response.Data!['UserId']);
    assert.equal(carol?.status, 'active');

    const before = services.emulator.now().getTime();
    const moved = services.advanceClock(3600);
    assert.ok(moved.getTime() - before >= 3600_000, 'the clock moved an hour');

    await services.injectFault({ path: '/openapi/v1/files/upload', kind: 'status', status: 503, retryAfter: 2 });
    const failed = await api('/files/upload', PEOPLE.alice.email, SPACES.acme.spaceId, { Files: [{ FileName: 'a.pdf', FileBody: 'JVBERg==' }] });
    assert.equal(failed.status, 503);
    const next = await api('/files/upload', PEOPLE.alice.email, SPACES.acme.spaceId, { Files: [{ FileName: 'a.pdf', FileBody: 'JVBERg==' }] });
    assert.equal(next.status, 200, 'the fault applied once');
  });

  it('serves a folder of your own beside its pages, and nothing outside it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'esign-kit-static-'));
    writeFileSync(join(folder, 'app.html'), '<p>my app</p>');
    writeFileSync(join(folder, '.env'), 'SECRET=1');
    const own = await startEsignServices({ staticDir: folder });
    try {
      assert.equal(await (await fetch(`${own.siteOrigin}/app.html`)).text(), '<p>my app</p>');
      for (const path of ['/.env', '/%2e%2e/%2e%2e/etc/passwd', '/../package.json', '/missing.html'])
        assert.equal((await fetch(`${own.siteOrigin}${path}`)).status, 404, path);
      const script = await fetch(`${own.siteOrigin}/__esign/cdn/esign-elements.min.js`);
      assert.equal(script.status, 200, "the package's CDN build is served for servePage's pages");
      assert.match(script.headers.get('content-type') ?? '', /javascript/);
    } finally {
      await own.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('signs in through the tab with mode="redirect"', async () => {
    services.reset();
    const url = services.servePage(`<esign-connect ${services.connectAttributes} mode="redirect"></esign-connect>`);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await signInWithRedirect(page, PEOPLE.bob);
    await page.getByText('Connected as Bob Lim').waitFor();
    assert.equal(new URL(page.url()).pathname, new URL(url).pathname, 'back on the page it started from');
    await context.close();
  });
});
