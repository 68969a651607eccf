import { escapeHtml as e, page, scriptJson } from './http.js';
import type { AuthRequest, SpaceRec, UserRec } from './state.js';
import type { SeedApp } from './types.js';

export interface ConsentView {
  req: AuthRequest;
  app: SeedApp;
  error?: string;
  email?: string;
}

function header(v: ConsentView): string {
  const scopes = v.req.scope
    .split(' ')
    .map((s) => `<li><code>${e(s)}</code></li>`)
    .join('');
  const devNote = v.req.loopbackHttp
    ? `<p class="note warn" role="note" id="loopback-note">Development only: this app uses the plain http redirect address
<code>${e(v.req.redirectUri)}</code> on a loopback host. The emulator accepts it for local development; the real service accepts only https or a custom scheme.</p>`
    : '';
  return `<h1>Sign in to authorize ${e(v.app.name)}</h1>
<p><strong>${e(v.app.name)}</strong> asks for access to your e-signature account:</p><ul>${scopes}</ul>
<p class="muted">After you agree you return to <code>${e(v.req.redirectUri)}</code>.</p>${devNote}`;
}

function errorNote(error: string | undefined): string {
  return error ? `<p class="note error" role="alert" id="consent-error">${e(error)}</p>` : '';
}

function denyForm(req: AuthRequest): string {
  return `<form method="post" action="/consent/decision">
<input type="hidden" name="request" value="${e(req.id)}">
<button type="submit" name="decision" value="deny" id="deny">Deny</button></form>`;
}

export function loginPage(v: ConsentView): string {
  const hint = v.req.loginHint;
  const designated = v.req.spaceId
    ? `<p class="note ok" id="designated-note">You were invited to a Space by this app. Log in as <strong>${e(hint)}</strong>.</p>`
    : '';
  const email = v.email ?? hint ?? '';
  return page(
    'Sign in',
    `${header(v)}${designated}${errorNote(v.error)}
<form method="post" action="/consent/login" id="login-form">
<input type="hidden" name="request" value="${e(v.req.id)}">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${e(email)}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary" id="login">Log in</button></div>
</form>
<div class="actions">${denyForm(v.req)}</div>`,
  );
}

export function choicePage(v: ConsentView & { user: UserRec; spaces: SpaceRec[]; designated?: { space: SpaceRec; pending: boolean } }): string {
  const r = v.req;
  const hidden = `<input type="hidden" name="request" value="${e(r.id)}"><input type="hidden" name="ticket" value="${e(r.login?.ticket)}">`;
  let choice: string;
  let canAgree = true;
  if (v.designated) {
    const s = v.designated.space;
    choice = `<p id="designated-space">Space: <strong>${e(s.name)}</strong></p>${
      v.designated.pending ? '<p class="muted">Agreeing also accepts your invitation to this Space.</p>' : ''
    }`;
  } else if (v.spaces.length === 0) {
    canAgree = false;
    choice = `<p class="note warn" role="alert" id="no-space">Your account is not a member of any Space yet, so there is nothing to authorize.
Ask a Space admin to invite you, then try again.</p>`;
  } else {
    const checked = v.spaces.length === 1;
    choice = `<fieldset><legend>Choose the Space this app may use</legend>${v.spaces
      .map(
        (s) =>
          `<label class="choice" for="space-${e(s.spaceId)}"><input type="radio" name="space_id" id="space-${e(s.spaceId)}" value="${e(
            s.spaceId,
          )}"${checked ? ' checked' : ''} required> ${e(s.name)}</label>`,
      )
      .join('')}</fieldset>`;
  }
  const buttons = `<div class="actions">${
    canAgree ? '<button type="submit" class="primary" name="decision" value="agree" id="agree">Agree</button>' : ''
  }<button type="submit" name="decision" value="deny" formnovalidate id="deny">Deny</button></div>`;
  return page(
    'Authorize',
    `${header(v)}<p>Signed in as <strong>${e(v.user.name)}</strong> (${e(v.user.email)}).</p>${errorNote(v.error)}
<form method="post" action="/consent/decision" id="consent-form">${hidden}${choice}${buttons}</form>`,
  );
}

export function notInvitedPage(v: ConsentView & { user: UserRec }): string {
  return page(
    'Not invited',
    `${header(v)}<p class="note error" role="alert" id="not-invited">${e(v.user.email)} is not a member of the Space this app asked for.
Ask the app to invite you first.</p><div class="actions">${denyForm(v.req)}</div>`,
  );
}

export function consentErrorPage(title: string, message: string): string {
  return page(
    title,
    `<h1>${e(title)}</h1><p class="note error" role="alert" id="consent-error">${e(message)}</p>
<p class="muted">Return to the app and start again.</p>`,
  );
}

/**
 * The authorization request named a redirect_uri the app did not register: the page shows the address used and the
 * registered ones, and tells the window that opened it (`oauth-error`, docs/emulator.md), since it cannot redirect.
 */
export function redirectErrorPage(v: { message: string; redirectUri: string; registered: readonly string[]; devRedirects: boolean }): string {
  const registered = v.registered.map((uri) => `<li><code>${e(uri)}</code></li>`).join('');
  const message = { source: 'esign', type: 'oauth-error', error: 'invalid_redirect_uri', redirectUri: v.redirectUri, registered: [...v.registered] };
  const hint = v.devRedirects
    ? ''
    : '<p class="muted">For local development, run the emulator with <code>--dev</code> (as <code>npm start</code> does): it then accepts any <code>http://localhost</code> or <code>http://127.0.0.1</code> address, on any port.</p>';
  // what it posts is on the page anyway; the opener's origin is unknown (it is the address that was refused), hence '*'
  const script = `<script type="application/json" id="oauth-error">${scriptJson(message)}</script><script>(function(){try{var m=JSON.parse(document.getElementById('oauth-error').textContent);if(window.opener)window.opener.postMessage(m,'*')}catch(e){}})();</script>`;
  return page(
    'Invalid redirect address',
    `<h1>Invalid redirect address</h1><p class="note error" role="alert" id="consent-error">${e(v.message)}</p>
<h2>Address used</h2><p><code id="redirect-uri-used" class="wrap">${e(v.redirectUri || '(none)')}</code></p>
<h2>Addresses registered for this app</h2><ul id="redirect-uris-registered">${registered || '<li>(none)</li>'}</ul>
<p class="muted">Register the address used for the app, or set <code>redirect-uri</code> on <code>&lt;esign-connect&gt;</code> to a registered one, then start again.</p>${hint}${script}`,
  );
}
