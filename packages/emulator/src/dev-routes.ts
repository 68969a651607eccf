import type { Hono } from 'hono';
import { parseFault } from './faults.js';
import { type EmuEnv, escapeHtml as e, htmlResponse, jsonResponse, page } from './http.js';
import type { Runtime } from './runtime.js';
import { type GrantRec, OPENER_POLICIES, type OpenerPolicy, secureToken, shortId } from './state.js';

/** Test helpers under /__emulator/ (docs/architecture.md); never part of the real service. */
export function mountDevRoutes(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  const bad = (message: string) => jsonResponse({ error: 'invalid_request', error_description: message }, 400);
  const readBody = async (text: string): Promise<unknown> => {
    if (!text.trim()) return {};
    return JSON.parse(text) as unknown;
  };

  app.post('/__emulator/reset', () => {
    store.reset();
    rt.log('reset to seed');
    return jsonResponse({ reset: true, now: store.now().toISOString() });
  });

  // A ready access token for a seed user in one Space, without the consent pages: demos (Storybook's state stories)
  // and tests that need "already connected". No refresh token; the grant behaves as one from the consent flow.
  app.post('/__emulator/token', async (c) => {
    let body: { email?: unknown; spaceId?: unknown; clientId?: unknown; scope?: unknown } | null;
    try {
      body = (await readBody(await c.req.text())) as typeof body;
    } catch {
      return bad('body must be JSON');
    }
    const app = store.apps.get(typeof body?.clientId === 'string' ? body.clientId : 'demo-client');
    const user = typeof body?.email === 'string' ? store.userByEmail(body.email) : undefined;
    const spaceId = typeof body?.spaceId === 'string' ? body.spaceId : '';
    if (!app) return bad('unknown clientId');
    if (!user || !store.isActiveMember(spaceId, user.userId)) return bad('email must be an active member of spaceId');
    const scope = typeof body?.scope === 'string' ? body.scope : app.scopes.join(' ');
    const grant: GrantRec = {
      id: shortId('grant_'),
      clientId: app.clientId,
      userId: user.userId,
      spaceId,
      scope,
      revoked: false,
      accessTokens: new Set(),
      refreshTokens: new Set(),
    };
    store.grants.set(grant.id, grant);
    const access = secureToken('at_');
    store.accessTokens.set(access, { grantId: grant.id, scope, expiresAt: store.nowMs() + rt.limits.accessTokenTtlSeconds * 1000 });
    grant.accessTokens.add(access);
    return jsonResponse(
      {
        access_token: access,
        token_type: 'Bearer',
        expires_in: rt.limits.accessTokenTtlSeconds,
        scope,
        space_id: spaceId,
        user_name: user.name,
        user_email: user.email,
        space_name: store.spaces.get(spaceId)?.name ?? spaceId,
      },
      200,
      { 'Cache-Control': 'no-store' },
    );
  });

  app.get('/__emulator/clock', () => jsonResponse({ now: store.now().toISOString(), offsetSeconds: store.offsetMs / 1000 }));
  app.post('/__emulator/clock', async (c) => {
    let body: unknown;
    try {
      body = await readBody(await c.req.text());
    } catch {
      return bad('body must be JSON');
    }
    const seconds = (body as { advanceSeconds?: unknown } | null)?.advanceSeconds;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return bad('advanceSeconds must be a number');
    store.advance(seconds);
    return jsonResponse({ now: store.now().toISOString(), offsetSeconds: store.offsetMs / 1000 });
  });

  const outbox = () => store.outbox.map(({ id, to, subject, kind, link, sentAt, text }) => ({ id, to, subject, kind, link, sentAt, text }));
  app.get('/__emulator/outbox', () => jsonResponse(outbox()));
  app.get('/__emulator/outbox.html', () => {
    const rows = [...outbox()]
      .reverse()
      .map(
        (m) => `<tr><td><time datetime="${e(m.sentAt)}">${e(m.sentAt)}</time></td><td>${e(m.to)}</td><td>${e(m.kind)}</td>
<td><strong>${e(m.subject)}</strong><br><span class="muted">${e(m.text)}</span></td>
<td>${m.link ? `<a href="${e(m.link)}" target="_blank" rel="noopener">${m.kind === 'invitation' ? 'Accept invitation' : 'Open to sign'}</a>` : ''}</td></tr>`,
      )
      .join('');
    return htmlResponse(
      page(
        'Emulator outbox',
        `<h1>Outbox</h1><p class="muted">Emails the emulator "sent". Newest first. Reload to see new mail.</p>
${rows ? `<table id="outbox"><thead><tr><th>Sent</th><th>To</th><th>Kind</th><th>Message</th><th>Link</th></tr></thead><tbody>${rows}</tbody></table>` : '<p id="empty-outbox">No emails yet.</p>'}`,
      ),
    );
  });

  app.post('/__emulator/faults', async (c) => {
    let body: unknown;
    try {
      body = await readBody(await c.req.text());
    } catch {
      return bad('body must be JSON');
    }
    const fault = parseFault(body);
    if (typeof fault === 'string') return bad(fault);
    store.faults.push(fault);
    return jsonResponse({ id: fault.id });
  });
  app.get('/__emulator/faults', () => jsonResponse(store.faults));

  // the consent pages' Cross-Origin-Opener-Policy until the next reset: `{openerPolicy: "same-origin"}`, or null for none
  app.post('/__emulator/consent-page', async (c) => {
    let body: { openerPolicy?: unknown } | null;
    try {
      body = (await readBody(await c.req.text())) as typeof body;
    } catch {
      return bad('body must be JSON');
    }
    const policy = body?.openerPolicy;
    if (policy !== null && !OPENER_POLICIES.includes(policy as OpenerPolicy)) return bad(`openerPolicy must be null or one of ${OPENER_POLICIES.join(', ')}`);
    store.consentOpenerPolicy = (policy as OpenerPolicy | null) ?? undefined;
    return jsonResponse({ openerPolicy: store.consentOpenerPolicy ?? null });
  });
  app.delete('/__emulator/faults', () => {
    const cleared = store.faults.length;
    store.faults = [];
    return jsonResponse({ cleared });
  });

  app.get('/__emulator/requests', () => jsonResponse(Object.fromEntries(store.counters)));
  app.delete('/__emulator/requests', () => {
    store.counters.clear();
    return jsonResponse({ cleared: true });
  });

  app.get('/__emulator/seed', () => jsonResponse(store.snapshot()));

  // record counts, to check that expired codes/tokens/Urls are swept
  app.get('/__emulator/stats', () => {
    store.sweep();
    return jsonResponse({
      authRequests: store.authRequests.size,
      codes: store.codes.size,
      grants: store.grants.size,
      accessTokens: store.accessTokens.size,
      refreshTokens: store.refreshTokens.size,
      embeddedUrls: store.embeddedUrls.size,
      pageSessions: store.pageSessions.size,
      files: store.files.size,
      envelopes: store.envelopes.size,
      outbox: store.outbox.length,
      rateWindows: store.rate.size,
    });
  });
}
