import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { OriginList } from './types.js';

export interface EmuEnv {
  Bindings: HttpBindings;
  Variables: { requestId: string };
}

export type Ctx = Context<EmuEnv>;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Every request gets a RequestId, echoed as X-Request-Id. */
export const requestIdMiddleware: MiddlewareHandler<EmuEnv> = async (c, next) => {
  const id = randomUUID();
  c.set('requestId', id);
  await next();
  c.res.headers.set('X-Request-Id', id);
};

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': JSON_TYPE, ...headers } });
}

/** Business success: {"Response": {"RequestId", "Data"}}. */
export function ok(c: Ctx, data: unknown, status = 200): Response {
  return jsonResponse({ Response: { RequestId: c.get('requestId'), Data: data } }, status);
}

/** Business error (assumption): {"Response": {"RequestId", "Error": {"Code", "Message"}}}. */
export function fail(c: Ctx, status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse({ Response: { RequestId: c.get('requestId') ?? randomUUID(), Error: { Code: code, Message: message } } }, status, headers);
}

/** Thrown inside business handlers; turned into the error envelope. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** RFC 6749 error body (assumption: the service uses it). */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return jsonResponse({ error, error_description: description }, status, {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...headers,
  });
}

export function mediaType(c: Ctx): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

export function isLoopbackOrigin(origin: string): boolean {
  return LOOPBACK_ORIGIN.test(origin);
}

/** Origin check for CORS: the configured list, or any loopback origin by default. */
export function originAllowed(list: OriginList | undefined, origin: string): boolean {
  if (!origin) return false;
  if (list === '*') return true;
  if (list === undefined) return isLoopbackOrigin(origin);
  return list.includes(origin);
}

/**
 * CSP frame-ancestors source list (default: loopback origins, any port, plus the CORS origins). CSP host sources have
 * no syntax for IPv6 literals, so `[::1]` cannot be listed (browsers report `http://[::1]:*` as invalid): pages on
 * [::1] frame the emulator through `localhost` instead, or list it with `frameAncestors: '*'`.
 */
export function frameAncestorsHeader(frame: OriginList | undefined, cors: OriginList | undefined): string {
  if (frame === '*' || (frame === undefined && cors === '*')) return 'frame-ancestors *';
  const sources = new Set<string>(["'self'"]);
  if (frame === undefined) {
    for (const scheme of ['http', 'https']) for (const host of ['localhost', '127.0.0.1']) sources.add(`${scheme}://${host}:*`);
    if (Array.isArray(cors)) for (const o of cors) if (cspSource(o)) sources.add(o);
  } else {
    for (const o of frame) if (cspSource(o)) sources.add(o);
  }
  return 'frame-ancestors ' + [...sources].join(' ');
}

/** False for an origin a CSP source list cannot express (an IPv6 literal host). */
function cspSource(origin: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\/\[/i.test(origin);
}

export function escapeHtml(value: string | number | boolean | null | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to embed inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1d2430;--bg:#ffffff;--muted:#5b6576;--line:#d5dae2;--accent:#2457c5;--accent-fg:#fff;--warn-bg:#fff4d6;--warn-fg:#5c4300;--err-bg:#fde7e7;--err-fg:#8a1c1c;--ok-bg:#e5f6ea;--ok-fg:#165c2b}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--bg:#161a21;--muted:#a2abba;--line:#39414f;--accent:#7aa2ff;--accent-fg:#0b1020;--warn-bg:#3b3113;--warn-fg:#f7dd92;--err-bg:#3d1a1a;--err-fg:#ffb4b4;--ok-bg:#173522;--ok-fg:#a9e7bb}}
*{box-sizing:border-box}
body{margin:0;padding:1.25rem;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:40rem;margin:0 auto}
h1{font-size:1.3rem;margin:0 0 .75rem}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0}.muted{color:var(--muted)}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
input[type=text],input[type=email],input[type=password]{width:100%;padding:.5rem .6rem;border:1px solid var(--line);border-radius:6px;background:transparent;color:inherit;font:inherit}
fieldset{border:1px solid var(--line);border-radius:8px;padding:.5rem .9rem .8rem;margin:.75rem 0}
legend{font-weight:600;padding:0 .3rem}
.choice{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.35rem 0}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--line);background:transparent;color:inherit;cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1rem}
.note{padding:.6rem .8rem;border-radius:6px;margin:.75rem 0}
.warn{background:var(--warn-bg);color:var(--warn-fg)}.error{background:var(--err-bg);color:var(--err-fg)}.ok{background:var(--ok-bg);color:var(--ok-fg)}
table{border-collapse:collapse;width:100%}th,td{text-align:start;padding:.5rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.02em}
.row{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}
.status{display:inline-block;font-size:.8rem;font-weight:600;padding:.05rem .55rem;border-radius:99px;border:1px solid var(--line);white-space:nowrap}
.status[data-status=completed],.status[data-status=signed]{background:var(--ok-bg);color:var(--ok-fg);border-color:transparent}
.status[data-status=declined],.status[data-status=voided]{background:var(--err-bg);color:var(--err-fg);border-color:transparent}
.status[data-status=sent],.status[data-status=pending]{background:var(--warn-bg);color:var(--warn-fg);border-color:transparent}
.wrap,code{overflow-wrap:anywhere}
.empty{padding:1.5rem 1rem;text-align:center;border:1px dashed var(--line);border-radius:8px}.empty p{margin:.25rem 0}
a{color:var(--accent)}
@media (max-width:36rem){
body{padding:.85rem}
.row{grid-template-columns:1fr}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{border:1px solid var(--line);border-radius:8px;padding:.35rem .75rem;margin:0 0 .6rem}
table.stack td{display:grid;grid-template-columns:minmax(6.5rem,35%) 1fr;gap:.5rem;border:0;padding:.3rem 0}
table.stack td::before{content:attr(data-label);font-size:.8rem;font-weight:600;color:var(--muted)}
}
`;

/**
 * Pages shown inside another site's frame are light only: a frame cannot see the host page's color-scheme (its
 * prefers-color-scheme is the OS's), so following the OS would put a dark page on a light host. Top-level pages
 * (consent, invitations) follow the OS.
 */
const LIGHT_ONLY = STYLE.replace(/@media \(prefers-color-scheme:dark\)\{:root\{[^}]*\}\}/, '').replace(
  ':root{color-scheme:light dark;',
  ':root{color-scheme:light;',
);

/** A complete, plain HTML page with the shared inline CSS. */
export function page(title: string, body: string, extraHead = '', lang = 'en', options: { lightOnly?: boolean } = {}): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${options.lightOnly ? LIGHT_ONLY : STYLE}</style>${extraHead}</head>
<body><main>${body}</main></body></html>`;
}

export function htmlResponse(html: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(html, {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

/** RFC3339 UTC, second precision. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
