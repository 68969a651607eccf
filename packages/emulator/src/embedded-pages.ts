import type { Hono } from 'hono';
import { createEnvelope, EMAIL_RE, envelopesOf, signerAct, voidEnvelope } from './domain.js';
import { type Ctx, type EmuEnv, escapeHtml as e, frameAncestorsHeader, htmlResponse, page, rfc3339, scriptJson, ServiceError } from './http.js';
import { pageLang, pageText, type PageText } from './page-i18n.js';
import type { Runtime } from './runtime.js';
import { type EnvelopeRec, type PageSession, shortId, type SignerRec, type UserRec } from './state.js';

type Message = Record<string, unknown>;

/**
 * Posts {source:'esign', ...} to parent and opener, reports the content's height (the body's, not the viewport's: a
 * frame taller than its page would report itself), and (assumption) that the person works in the page, at most every
 * 5 s, for the host's idle timer (docs/architecture.md).
 */
const MESSENGER = `(function(){
var targets=[];try{if(window.parent&&window.parent!==window)targets.push(window.parent)}catch(e){}
try{if(window.opener)targets.push(window.opener)}catch(e){}
function post(m){m.source='esign';for(var i=0;i<targets.length;i++){try{targets[i].postMessage(m,'*')}catch(e){}}}
var data=document.getElementById('esign-messages');var list=data?JSON.parse(data.textContent||'[]'):[];
for(var i=0;i<list.length;i++)post(list[i]);
var last=0;function measure(){var b=document.body;var h=Math.ceil(b?b.getBoundingClientRect().height:document.documentElement.scrollHeight);if(h!==last){last=h;post({type:'resize',height:h})}}
if(typeof ResizeObserver==='function'&&document.body){new ResizeObserver(measure).observe(document.body)}measure();
var acted=0;function act(){var n=Date.now();if(n-acted>=5000){acted=n;post({type:'activity'})}}
['keydown','pointerdown','input','scroll'].forEach(function(t){document.addEventListener(t,act,true)});
})();`;

function embeddedPage(tx: PageText, title: string, body: string, messages: Message[]): string {
  return page(title, `${body}<script type="application/json" id="esign-messages">${scriptJson(messages)}</script><script>${MESSENGER}</script>`, '', tx.lang, {
    lightOnly: true,
  });
}

function statusBadge(tx: PageText, status: string): string {
  return `<span class="status" data-status="${e(status)}">${e(tx.status(status))}</span>`;
}

function time(tx: PageText, ms: number): string {
  return `<time datetime="${rfc3339(ms)}">${e(tx.time(ms))}</time>`;
}

/** Bytes with the unit that matches the divisor: "598 bytes", "1.5 KiB". */
function size(tx: PageText, bytes: number): string {
  const locale = tx.lang === 'ms' ? 'ms-MY' : tx.lang;
  if (bytes < 1024) return new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes);
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: value < 10 ? 1 : 0 }).format(value)}\u00a0${units[unit]}`;
}

interface SignerRow {
  name: string;
  email: string;
}

function composeBody(tx: PageText, rt: Runtime, s: PageSession, rows: SignerRow[], subject: string, errors: string[]): string {
  const files = s.fileIds
    .map((id) => rt.store.files.get(id))
    .filter((f) => f !== undefined)
    .map((f) => `<li data-file-id="${e(f.fileId)}">${e(f.name)} <span class="muted">(${e(size(tx, f.size))})</span></li>`)
    .join('');
  const signerRows = rows
    .map(
      (r, i) => `<fieldset class="signer"><legend>${e(tx.t('signer', { n: i + 1 }))}</legend><div class="row">
<div><label for="signer-name-${i}">${e(tx.t('name'))}</label><input type="text" id="signer-name-${i}" name="signer_name" value="${e(r.name)}" autocomplete="off"></div>
<div><label for="signer-email-${i}">${e(tx.t('email'))}</label><input type="email" id="signer-email-${i}" name="signer_email" value="${e(r.email)}" autocomplete="off"></div>
</div></fieldset>`,
    )
    .join('');
  const err = errors.length ? `<div class="note error" role="alert" id="compose-error">${errors.map((x) => `<p>${e(x)}</p>`).join('')}</div>` : '';
  return `<h1>${e(tx.t('newEnvelope'))}</h1><h2>${e(tx.t('files'))}</h2><ul id="files">${files}</ul>${err}
<form method="post" action="/embedded/s/${e(s.id)}/compose" id="compose-form">
<label for="subject">${e(tx.t('subject'))}</label><input type="text" id="subject" name="subject" value="${e(subject)}">
<h2>${e(tx.t('signers'))}</h2>${signerRows}
<div class="actions"><button type="submit" name="action" value="add_signer" id="add-signer" formnovalidate>${e(tx.t('addSigner'))}</button>
<button type="submit" name="action" value="send" class="primary" id="send">${e(tx.t('send'))}</button></div></form>
<p><a href="/embedded/s/${e(s.id)}/contracts">${e(tx.t('allContracts'))}</a></p>`;
}

function envelopeBody(
  tx: PageText,
  rt: Runtime,
  env: EnvelopeRec,
  viewer: { user?: UserRec; signer?: SignerRec },
  actions: { sign?: string; void?: string; hidden?: string },
  back?: string,
): string {
  const files = env.fileIds
    .map((id) => rt.store.files.get(id))
    .filter((f) => f !== undefined)
    .map((f) => `<li>${e(f.name)}</li>`)
    .join('');
  const signers = env.signers
    .map(
      (s) =>
        `<tr><td data-label="${e(tx.t('name'))}">${e(s.name)}</td><td data-label="${e(tx.t('email'))}" class="wrap">${e(s.email)}</td><td data-label="${e(tx.t('status'))}">${statusBadge(tx, s.status)}</td><td data-label="${e(tx.t('colSigned'))}">${s.signedAt ? time(tx, s.signedAt) : ''}</td></tr>`,
    )
    .join('');
  const sender = rt.store.users.get(env.senderUserId);
  const hidden = actions.hidden ?? '';
  const signForm = actions.sign
    ? `<form method="post" action="${e(actions.sign)}" id="sign-form">${hidden}<p>${tx.t('signingAs', { name: `<strong>${e(viewer.signer?.name ?? viewer.user?.name)}</strong>` })}</p>
<div class="actions"><button type="submit" name="action" value="sign" class="primary" id="sign">${e(tx.t('sign'))}</button>
<button type="submit" name="action" value="decline" id="decline">${e(tx.t('decline'))}</button></div></form>`
    : '';
  const voidForm = actions.void
    ? `<form method="post" action="${e(actions.void)}" id="void-form"><div class="actions"><button type="submit" id="void">${e(tx.t('voidEnvelope'))}</button></div></form>`
    : '';
  return `<h1>${e(env.subject ?? tx.t('envelope'))}</h1>
<p>${e(tx.t('status'))}: ${statusBadge(tx, env.status)} <span class="muted">${e(tx.t('envelope'))} <code id="envelope-id">${e(env.envelopeId)}</code></span></p>
<p class="muted">${tx.t('sentBy', { name: e(sender?.name ?? tx.t('unknown')), created: time(tx, env.createdAt), updated: time(tx, env.updatedAt) })}</p>
<h2>${e(tx.t('files'))}</h2><ul>${files}</ul>
<h2>${e(tx.t('signers'))}</h2><table class="stack"><thead><tr><th>${e(tx.t('name'))}</th><th>${e(tx.t('email'))}</th><th>${e(tx.t('status'))}</th><th>${e(tx.t('colSigned'))}</th></tr></thead><tbody>${signers}</tbody></table>
${signForm}${voidForm}${back ? `<p><a href="${e(back)}">${e(tx.t('allContracts'))}</a></p>` : ''}`;
}

function listBody(tx: PageText, rt: Runtime, s: PageSession, user: UserRec): string {
  const envs = envelopesOf(rt, s.spaceId, user);
  const space = rt.store.spaces.get(s.spaceId);
  const rows = envs
    .map((env) => {
      const role = env.senderUserId === user.userId ? tx.t('sender') : tx.t('signerRole');
      return `<tr data-envelope-id="${e(env.envelopeId)}"><td data-label="${e(tx.t('colSubject'))}" class="wrap"><a href="/embedded/s/${e(s.id)}/envelopes/${e(env.envelopeId)}">${e(env.subject ?? rt.store.files.get(env.fileIds[0] ?? '')?.name ?? tx.t('noSubject'))}</a></td>
<td data-label="${e(tx.t('colStatus'))}">${statusBadge(tx, env.status)}</td><td data-label="${e(tx.t('colRole'))}">${e(role)}</td><td data-label="${e(tx.t('colCreated'))}">${time(tx, env.createdAt)}</td><td data-label="${e(tx.t('colUpdated'))}">${time(tx, env.updatedAt)}</td></tr>`;
    })
    .join('');
  const table = envs.length
    ? `<table id="contracts" class="stack"><thead><tr><th>${e(tx.t('colSubject'))}</th><th>${e(tx.t('colStatus'))}</th><th>${e(tx.t('colRole'))}</th><th>${e(tx.t('colCreated'))}</th><th>${e(tx.t('colUpdated'))}</th></tr></thead><tbody>${rows}</tbody></table>`
    : `<div class="empty" id="no-contracts"><p><strong>${e(tx.t('noContracts'))}</strong></p><p class="muted">${e(tx.t('noContractsHint'))}</p></div>`;
  return `<h1>${e(tx.t('contracts'))}</h1><p class="muted">${e(tx.t('inSpace', { user: user.name, space: space?.name ?? s.spaceId }))}</p>${table}`;
}

function errorPage(tx: PageText, code: string, message: string): string {
  const shown = tx.lang === 'en' ? message : (tx.maybe(`error.${code}`) ?? message);
  return embeddedPage(
    tx,
    tx.t('cannotOpen'),
    `<h1>${e(tx.t('cannotOpen'))}</h1><p class="note error" role="alert" id="embedded-error" data-code="${e(code)}">${e(shown)}</p>`,
    [{ type: 'error', code, message }],
  );
}

/** Reads a urlencoded or multipart form; repeated fields come back as arrays. */
async function formOf(c: Ctx): Promise<Record<string, string[]>> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}));
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(body)) {
    const list = Array.isArray(v) ? v : [v];
    out[k] = list.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

export function mountEmbedded(app: Hono<EmuEnv>, rt: Runtime): void {
  const store = rt.store;
  const headers = () => ({
    'Content-Security-Policy': frameAncestorsHeader(rt.frameAncestors, rt.corsOrigins),
    'Referrer-Policy': 'no-referrer',
  });
  const html = (body: string, status = 200) => htmlResponse(body, status, headers());
  const txOf = (c: Ctx): PageText => pageText(pageLang(c.req.header('accept-language')));
  const seeOther = (path: string) => new Response(null, { status: 303, headers: { Location: `${rt.publicUrl}${path}`, 'Cache-Control': 'no-store' } });

  app.get('/embedded/view', (c) => {
    // HEAD (link previews) must not consume the one-time token
    if (c.req.method === 'HEAD') return html('');
    store.sweep();
    const token = c.req.query('embedded_token') ?? '';
    const rec = store.embeddedUrls.get(token);
    if (!rec) return html(errorPage(txOf(c), 'url_invalid', 'This page address is not valid.'), 404);
    if (rec.used) return html(errorPage(txOf(c), 'url_used', 'This page address was already used. Ask the app for a new one.'), 410);
    if (rec.expiresAt <= store.nowMs()) return html(errorPage(txOf(c), 'url_expired', 'This page address has expired. Ask the app for a new one.'), 410);
    rec.used = true;
    const session: PageSession = {
      id: shortId('ps_') + shortId(''),
      kind: rec.kind,
      spaceId: rec.spaceId,
      userId: rec.userId,
      fileIds: rec.fileIds,
      expiresAt: store.nowMs() + rt.limits.embeddedSessionTtlSeconds * 1000,
      flash: [],
    };
    store.pageSessions.set(session.id, session);
    return seeOther(`/embedded/s/${session.id}/${rec.kind === 'request_signatures' ? 'compose' : 'contracts'}`);
  });

  const sessionOf = (c: Ctx): { s: PageSession; user: UserRec } | Response => {
    const s = store.pageSessions.get(c.req.param('sid') ?? '');
    if (!s || s.expiresAt <= store.nowMs()) return html(errorPage(txOf(c), 'session_expired', 'This page has expired. Ask the app for a new one.'), 410);
    const user = store.users.get(s.userId);
    if (!user || !store.isActiveMember(s.spaceId, user.userId)) return html(errorPage(txOf(c), 'forbidden', 'You are no longer a member of this Space.'), 403);
    return { s, user };
  };
  const takeFlash = (s: PageSession): Message[] => s.flash.splice(0, s.flash.length);

  app.get('/embedded/s/:sid/compose', (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const { s } = found;
    if (s.kind !== 'request_signatures') return html(errorPage(txOf(c), 'not_found', 'Nothing to compose here.'), 404);
    const tx = txOf(c);
    return html(
      embeddedPage(tx, tx.t('newEnvelope'), composeBody(tx, rt, s, [{ name: '', email: '' }], '', []), [
        { type: 'ready', page: 'request_signatures' },
        ...takeFlash(s),
      ]),
    );
  });

  app.post('/embedded/s/:sid/compose', async (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const { s, user } = found;
    if (s.kind !== 'request_signatures') return html(errorPage(txOf(c), 'not_found', 'Nothing to compose here.'), 404);
    const form = await formOf(c);
    const tx = txOf(c);
    const names = form.signer_name ?? [];
    const emails = form.signer_email ?? [];
    const rows: SignerRow[] = Array.from({ length: Math.max(names.length, emails.length, 1) }, (_, i) => ({
      name: (names[i] ?? '').trim(),
      email: (emails[i] ?? '').trim(),
    })).slice(0, 50);
    const subject = (form.subject?.[0] ?? '').trim().slice(0, 200);
    const again = (errors: string[], status = 200) =>
      html(embeddedPage(tx, tx.t('newEnvelope'), composeBody(tx, rt, s, rows, subject, errors), [{ type: 'ready', page: 'request_signatures' }]), status);
    if (form.action?.[0] === 'add_signer') {
      if (rows.length < 50) rows.push({ name: '', email: '' });
      return again([]);
    }
    const filled = rows.filter((r) => r.name || r.email);
    const errors: string[] = [];
    filled.forEach((r) => {
      if (!r.name) errors.push(tx.t('error.noName', { email: r.email }));
      if (!EMAIL_RE.test(r.email)) errors.push(tx.t('error.badEmail', { name: r.name || tx.t('error.theSigner') }));
    });
    if (filled.length === 0) errors.push(tx.t('error.noSigner'));
    if (errors.length) return again(errors, 400);
    try {
      const env = createEnvelope(rt, { spaceId: s.spaceId, senderUserId: user.userId, fileIds: s.fileIds, signers: filled, subject: subject || undefined });
      s.flash.push({ type: 'envelope-sent', envelopeId: env.envelopeId, status: env.status });
      return seeOther(`/embedded/s/${s.id}/envelopes/${env.envelopeId}`);
    } catch (err) {
      if (err instanceof ServiceError) return again([err.message], err.status);
      throw err;
    }
  });

  app.get('/embedded/s/:sid/contracts', (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const tx = txOf(c);
    return html(
      embeddedPage(tx, tx.t('contracts'), listBody(tx, rt, found.s, found.user), [{ type: 'ready', page: 'signature_status' }, ...takeFlash(found.s)]),
    );
  });

  const visibleEnvelope = (s: PageSession, user: UserRec, id: string | undefined): EnvelopeRec | undefined =>
    envelopesOf(rt, s.spaceId, user).find((env) => env.envelopeId === id);
  const pendingSigner = (env: EnvelopeRec, email: string) =>
    env.status === 'sent' ? env.signers.find((x) => x.status === 'pending' && x.email.toLowerCase() === email.toLowerCase()) : undefined;

  app.get('/embedded/s/:sid/envelopes/:eid', (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const { s, user } = found;
    const env = visibleEnvelope(s, user, c.req.param('eid'));
    if (!env) return html(errorPage(txOf(c), 'not_found', 'Envelope not found.'), 404);
    const base = `/embedded/s/${s.id}/envelopes/${env.envelopeId}`;
    const signer = pendingSigner(env, user.email);
    const actions = {
      ...(signer ? { sign: `${base}/sign` } : {}),
      ...(env.status === 'sent' && env.senderUserId === user.userId ? { void: `${base}/void` } : {}),
    };
    return html(
      embeddedPage(txOf(c), env.subject ?? txOf(c).t('envelope'), envelopeBody(txOf(c), rt, env, { user }, actions, `/embedded/s/${s.id}/contracts`), [
        { type: 'ready', page: 'sign' },
        ...takeFlash(s),
      ]),
    );
  });

  app.post('/embedded/s/:sid/envelopes/:eid/sign', async (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const { s, user } = found;
    const env = visibleEnvelope(s, user, c.req.param('eid'));
    if (!env || !pendingSigner(env, user.email)) return html(errorPage(txOf(c), 'not_found', 'Nothing to sign here.'), 404);
    const action = (await formOf(c)).action?.[0] === 'decline' ? 'decline' : 'sign';
    signerAct(rt, env, user.email, action);
    s.flash.push(
      action === 'sign'
        ? { type: 'envelope-signed', envelopeId: env.envelopeId, status: env.status }
        : { type: 'envelope-declined', envelopeId: env.envelopeId, status: env.status },
    );
    return seeOther(`/embedded/s/${s.id}/envelopes/${env.envelopeId}`);
  });

  app.post('/embedded/s/:sid/envelopes/:eid/void', (c) => {
    const found = sessionOf(c);
    if (found instanceof Response) return found;
    const { s, user } = found;
    const env = visibleEnvelope(s, user, c.req.param('eid'));
    if (!env || env.senderUserId !== user.userId || env.status !== 'sent') return html(errorPage(txOf(c), 'not_found', 'Nothing to void here.'), 404);
    voidEnvelope(rt, env);
    s.flash.push({ type: 'envelope-voided', envelopeId: env.envelopeId });
    return seeOther(`/embedded/s/${s.id}/envelopes/${env.envelopeId}`);
  });

  // External signers: the emailed link is a capability for one signer of one envelope, no login.
  const bySignerToken = (eid: string | undefined, token: string | undefined) => {
    const env = eid ? store.envelopes.get(eid) : undefined;
    const signer = env && token ? env.signers.find((x) => x.token === token) : undefined;
    return env && signer ? { env, signer } : undefined;
  };

  app.get('/embedded/envelopes/:eid', (c) => {
    const found = bySignerToken(c.req.param('eid'), c.req.query('signer'));
    if (!found) return html(errorPage(txOf(c), 'not_found', 'This signing link is not valid.'), 404);
    const { env, signer } = found;
    const flash = c.req.query('done') === 'signed' ? [{ type: 'envelope-signed', envelopeId: env.envelopeId, status: env.status }] : [];
    const canSign = env.status === 'sent' && signer.status === 'pending';
    return html(
      embeddedPage(
        txOf(c),
        env.subject ?? txOf(c).t('envelope'),
        envelopeBody(
          txOf(c),
          rt,
          env,
          { signer },
          canSign ? { sign: `/embedded/envelopes/${env.envelopeId}/sign`, hidden: `<input type="hidden" name="signer" value="${e(signer.token)}">` } : {},
        ),
        [{ type: 'ready', page: 'sign' }, ...flash],
      ),
    );
  });

  app.post('/embedded/envelopes/:eid/sign', async (c) => {
    const form = await formOf(c);
    const found = bySignerToken(c.req.param('eid'), form.signer?.[0]);
    if (!found || found.env.status !== 'sent' || found.signer.status !== 'pending') return html(errorPage(txOf(c), 'not_found', 'Nothing to sign here.'), 404);
    const action = form.action?.[0] === 'decline' ? 'decline' : 'sign';
    signerAct(rt, found.env, found.signer.email, action);
    return seeOther(`/embedded/envelopes/${found.env.envelopeId}?signer=${encodeURIComponent(found.signer.token)}${action === 'sign' ? '&done=signed' : ''}`);
  });

  // Invitation links from the outbox: opening one makes the member active, independent of OAuth.
  app.get('/invite/:token', (c) => {
    const inv = store.invitations.get(c.req.param('token'));
    if (!inv) return htmlResponse(page('Invitation', '<h1>Invitation</h1><p class="note error" role="alert">This invitation link is not valid.</p>'), 404);
    const space = store.spaces.get(inv.spaceId);
    const user = store.users.get(inv.userId);
    const member = space?.members.get(inv.userId);
    if (!space || !user || !member)
      return htmlResponse(page('Invitation', '<h1>Invitation</h1><p class="note error" role="alert">This invitation is no longer valid.</p>'), 410);
    member.status = 'active';
    const setPassword =
      user.password === undefined
        ? `<form method="post" action="/invite/${e(c.req.param('token'))}/password"><p>Set a password to log in later.</p>
<label for="password">New password</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="8" required>
<div class="actions"><button type="submit" class="primary" id="set-password">Set password</button></div></form>`
        : '';
    return htmlResponse(
      page(
        'Invitation accepted',
        `<h1>Welcome, ${e(user.name)}</h1><p class="note ok" id="invite-accepted">You are now an active member of <strong>${e(space.name)}</strong>.</p>${setPassword}`,
      ),
    );
  });

  app.post('/invite/:token/password', async (c) => {
    const inv = store.invitations.get(c.req.param('token'));
    const user = inv ? store.users.get(inv.userId) : undefined;
    if (!user) return htmlResponse(page('Invitation', '<h1>Invitation</h1><p class="note error" role="alert">This invitation link is not valid.</p>'), 404);
    if (user.password !== undefined)
      return htmlResponse(page('Password', '<h1>Password</h1><p class="note warn" role="alert">A password is already set for this account.</p>'), 409);
    const password = (await formOf(c)).password?.[0] ?? '';
    if (password.length < 8) return htmlResponse(page('Password', '<h1>Password</h1><p class="note error" role="alert">Use at least 8 characters.</p>'), 400);
    user.password = password;
    return htmlResponse(page('Password set', `<h1>Password set</h1><p class="note ok" id="password-set">You can now log in as ${e(user.email)}.</p>`));
  });
}
