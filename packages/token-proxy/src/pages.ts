/**
 * The few pages a person meets at the token proxy (the sign-in's refusals and its done page): one small stylesheet,
 * light or dark as the system is, and headers that keep them out of caches, frames and Referer headers. What they say
 * is the proxy's own text; a value from the request appears only escaped. Runtime-free: no `node:` import.
 */

/** Headers of every page the sign-in routes answer with: never cached, framed, sniffed or sent on as a referrer. */
export const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

const STYLE =
  ':root{color-scheme:light dark;--fg:#1d2430;--bg:#fff;--muted:#5b6576;--err-bg:#fde7e7;--err-fg:#8a1c1c}' +
  '@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--bg:#161a21;--muted:#a2abba;--err-bg:#3d1a1a;--err-fg:#ffb4b4}}' +
  'body{margin:0;padding:1.25rem;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}' +
  'main{max-width:36rem;margin:0 auto}h1{font-size:1.2rem;margin:0 0 .75rem}p{margin:.5rem 0}.muted{color:var(--muted)}' +
  '.error{padding:.6rem .8rem;border-radius:6px;background:var(--err-bg);color:var(--err-fg)}' +
  'code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}';

/** CSP sources of the inline scripts and the style, computed once per text. */
const hashes = new Map<string, Promise<string>>();
function hashOf(text: string): Promise<string> {
  let hash = hashes.get(text);
  if (!hash) {
    hash = crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)).then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    hashes.set(text, hash);
  }
  return hash;
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * A complete page: `title` (plain text), `body` (HTML the caller built, values escaped), an optional inline `script`
 * (a fixed text: it reads what it needs from `data-*` attributes of `<body>`, so its hash never changes) and those
 * attributes. Answers the HTML and the headers, its Content-Security-Policy included.
 */
export async function proxyPage(
  title: string,
  body: string,
  options: { script?: string; data?: Record<string, string> } = {},
): Promise<{ html: string; headers: Record<string, string> }> {
  const data = Object.entries(options.data ?? {})
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body${data}><main>${body}</main>` +
    `${options.script ? `<script>${options.script}</script>` : ''}</body></html>`;
  const script = options.script ? `script-src ${await hashOf(options.script)}; ` : '';
  return {
    html,
    headers: {
      ...PAGE_HEADERS,
      'Content-Security-Policy': `default-src 'none'; ${script}style-src ${await hashOf(STYLE)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    },
  };
}
