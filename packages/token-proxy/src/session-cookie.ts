/**
 * The proxy's cookies: the session (one per slot, the refresh token sealed inside) and the pre-login cookie of a
 * sign-in on its way (PKCE verifier and state, sealed, ten minutes). Names, attributes, sealing and reading live
 * here; the routes decide when. Runtime-free: no `node:` import.
 *
 * - `__Host-` prefix whenever the public origin is https (Secure, Path=/, no Domain: a sibling subdomain cannot
 *   plant or shadow one); `__Secure-` with a configured `cookieDomain`; no prefix and no Secure only for a public
 *   origin that is plain http on a loopback host (development). Secure follows the configuration, never a Host header.
 * - The name carries a hash of client_id, basePath and slot: two apps (or two proxies) behind one host never share it.
 * - Two cookies of one name in a request are refused (`CookieConflict`), never resolved by their order.
 * - With `framedBy` (pages inside other sites' frames) every cookie is `Partitioned; SameSite=None; Secure`: the
 *   browser keeps one jar per top-level site, and sends it from that site's frames (handoff.ts).
 */
import type { Context } from 'hono';
import { generateCookie } from 'hono/cookie';
import type { ResolvedConfig } from './config.js';
import type { Sealer } from './seal.js';
import { REVOKED_MARK_PREFIX } from './store.js';
import { isRecord } from '@esign-elements/shared';

/** The session cookie's payload (sealed). Short field names keep the cookie small. */
export interface Session {
  v: 1;
  /** Random session id: the rate-limit key, the refresh replay's binding, the revoked-session mark. */
  sid: string;
  /** Refresh token (absent if the service issued none). */
  rt?: string;
  /**
   * The refresh token's id: random, new with each refresh token, no secret. Its refresh's store key (claim, replay),
   * so no request hashes the token. Cookies sealed before it existed get SHA-256 of NUL + token when read (the key
   * such proxies used), kept until the next rotation.
   */
  rk?: string;
  cid: string;
  /** Space ('' when the service named none and none was designated). */
  sp: string;
  /** Slot (`open`, or `space:<id>`). */
  sl: string;
  /** Issued at, seconds since the epoch (the session's start; the absolute lifetime counts from it). */
  iat: number;
  /** Last activity, seconds since the epoch (the idle timeout counts from it); absent means `iat`. */
  lat?: number;
  /** The page's attempt id of the sign-in that made this session (not a secret): echoed as `login_attempt`. */
  la?: string;
  /** Cached access token, its type, expiry (ms since the epoch), lifetime (s) and scope. */
  at?: string;
  tt?: string;
  exp?: number;
  life?: number;
  sc?: string;
  /** Other plain fields of the token answer (e.g. user_name). */
  x?: Record<string, string | number | boolean>;
}

/** A sign-in on its way (pre-login cookie, sealed): what the callback needs to finish it and send the browser back. */
export interface PendingLogin {
  /** `state` sent to the authorization server. */
  st: string;
  /** PKCE verifier (base64url of 64 random bytes). */
  cv: string;
  /** Slot of the session to create. */
  sl: string;
  /** Designated Space (space_id), if any. */
  sp?: string;
  /** The page's origin (allowed at /login): where the outcome goes. */
  o: string;
  /** `popup` (a message to the opener) or `page` (a redirect back to `r`). */
  d: 'popup' | 'page';
  /** The page to go back to (display `page`). */
  r?: string;
  /** The page's attempt id, echoed with the outcome (not a secret: it only lets the page match its own attempt). */
  a: string;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** A framed page's sign-in: the hash of its handoff's secret, where the result goes (handoff.ts). */
  h?: string;
}

/** A framed page's handoff cookie (sealed, partitioned): which sign-in it waits for and the secret that claims it. */
export interface HandoffCookie {
  /** The page's attempt id. */
  a: string;
  /** The handoff secret (32 random bytes): its hash keys the sign-in's result in the store. */
  n: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

/** Two cookies of one name came with the request: a sibling subdomain or a path planted one. */
export class CookieConflict {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

const MAX_COOKIE_BYTES = 3_800;

/** Name hashes, by (client, basePath, slot or state): bounded, slots are few. */
const nameHashes = new Map<string, string>();

async function nameHash(sealer: Sealer, text: string): Promise<string> {
  let hash = nameHashes.get(text);
  if (hash === undefined) {
    hash = (await sealer.sha256url(text)).slice(0, 16);
    if (nameHashes.size >= 1_000) nameHashes.clear();
    nameHashes.set(text, hash);
  }
  return hash;
}

/** The cookie attributes every cookie of this proxy shares: decided by configuration only. */
export function cookieBase(config: ResolvedConfig): { secure: boolean; prefix: string; domain?: string; partitioned?: true } {
  // a partitioned cookie is always Secure (on a loopback http origin the browser must treat as trustworthy: Chromium)
  if (config.framedBy.size > 0 && !config.secureCookies) return { secure: true, prefix: '', partitioned: true };
  const secure = config.secureCookies;
  if (!secure) return { secure, prefix: '' };
  if (config.framedBy.size > 0)
    return config.cookieDomain
      ? { secure, prefix: '__Secure-', domain: config.cookieDomain, partitioned: true }
      : { secure, prefix: '__Host-', partitioned: true };
  return config.cookieDomain ? { secure, prefix: '__Secure-', domain: config.cookieDomain } : { secure, prefix: '__Host-' };
}

export class CookieSessions {
  readonly #config: ResolvedConfig;
  readonly #sealer: Sealer;

  constructor(config: ResolvedConfig, sealer: Sealer) {
    this.#config = config;
    this.#sealer = sealer;
  }

  /** The session cookie's name for a slot. */
  async sessionName(slot: string): Promise<string> {
    return `${cookieBase(this.#config).prefix}esign_${await nameHash(this.#sealer, `${this.#config.clientId}\u0000${this.#config.basePath}\u0000${slot}`)}`;
  }

  /** The pre-login cookie's name for a state: one per sign-in on its way, so racing tabs do not overwrite each other's. */
  async loginName(state: string): Promise<string> {
    return `${cookieBase(this.#config).prefix}esign_l_${(await this.#sealer.sha256url(`${this.#config.clientId}\u0000${this.#config.basePath}\u0000${state}`)).slice(0, 16)}`;
  }

  /** A framed page's handoff cookie for one of its attempts (handoff.ts). */
  async handoffName(attempt: string): Promise<string> {
    return `${cookieBase(this.#config).prefix}esign_h_${(await this.#sealer.sha256url(`${this.#config.clientId}\u0000${this.#config.basePath}\u0000${attempt}`)).slice(0, 16)}`;
  }

  async writeHandoff(c: Context, name: string, handoff: HandoffCookie, maxAgeSeconds: number): Promise<void> {
    const value = await this.#sealer.seal(JSON.stringify(handoff), this.#aad(name));
    sendCookie(c, generateCookie(name, value, { ...this.#attributes('Strict'), maxAge: maxAgeSeconds }));
  }

  async readHandoff(c: Context, name: string): Promise<HandoffCookie | 'missing' | 'invalid' | CookieConflict> {
    const opened = await this.#open(c, name);
    if (!('text' in opened)) return opened.problem;
    try {
      const handoff = JSON.parse(opened.text) as HandoffCookie;
      return isRecord(handoff) && typeof handoff.a === 'string' && typeof handoff.n === 'string' && typeof handoff.exp === 'number' ? handoff : 'invalid';
    } catch {
      return 'invalid';
    }
  }

  /** The names of the pre-login cookies this request carries (sign-ins on their way in this browser). */
  loginNames(c: Context): string[] {
    const prefix = `${cookieBase(this.#config).prefix}esign_l_`;
    return (c.req.header('cookie') ?? '')
      .split(';')
      .map((pair) => pair.slice(0, pair.indexOf('=')).trim())
      .filter((name) => name.startsWith(prefix));
  }

  /** The slot's session: missing, invalid (sealed by no key, another name, malformed), a conflict, or the payload. */
  async read(c: Context, name: string): Promise<Session | 'missing' | 'invalid' | CookieConflict> {
    const opened = await this.#open(c, name);
    if (!('text' in opened)) return opened.problem;
    const text = opened.text;
    let session: Session;
    try {
      session = JSON.parse(text) as Session;
    } catch {
      return 'invalid';
    }
    if (!isRecord(session) || session.v !== 1 || typeof session.sid !== 'string' || typeof session.iat !== 'number') return 'invalid';
    if (typeof session.rt === 'string' && typeof session.rk !== 'string') session.rk = await this.#sealer.sha256url(`\u0000${session.rt}`);
    return session;
  }

  async write(c: Context, name: string, session: Session): Promise<void> {
    const aad = this.#aad(name);
    let value = await this.#sealer.seal(JSON.stringify(session), aad);
    // a cookie over ~4 KB is dropped by browsers: leave out the extras, then the cached access token
    if (value.length + name.length > MAX_COOKIE_BYTES && session.x) {
      session = { ...session };
      delete session.x;
      value = await this.#sealer.seal(JSON.stringify(session), aad);
    }
    if (value.length + name.length > MAX_COOKIE_BYTES) {
      const { at: _at, tt: _tt, exp: _exp, life: _life, ...rest } = session;
      value = await this.#sealer.seal(JSON.stringify(rest), aad);
    }
    const maxAge = Math.max(0, session.iat + this.#config.sessionMaxAgeSeconds - Math.floor(Date.now() / 1000));
    sendCookie(c, generateCookie(name, value, { ...this.#attributes('Strict'), maxAge }));
  }

  clear(c: Context, name: string, sameSite: 'Strict' | 'Lax' = 'Strict'): void {
    sendCookie(c, generateCookie(name, '', { ...this.#attributes(sameSite), maxAge: 0 }));
  }

  /** Whether Disconnect (or a sign-in that replaced it) ended this session: a sealed mark in the store, so a writer of the shared store cannot forge one. */
  async isRevoked(session: Session): Promise<boolean> {
    const key = revokedKey(session);
    const mark = await this.#config.store.get(key);
    return mark !== undefined && (await this.#sealer.open(mark, key)) !== undefined;
  }

  /** Marks the session ended, for as long as it could have lived: every copy of its cookie is refused where the store is shared. */
  async markRevoked(session: Session): Promise<void> {
    const key = revokedKey(session);
    const ttlMs = Math.max(1, session.iat + this.#config.sessionMaxAgeSeconds - Math.floor(Date.now() / 1000)) * 1000;
    await this.#config.store.set(key, await this.#sealer.seal('revoked', key), ttlMs);
  }

  /** The pre-login cookie: SameSite=Lax, so it comes back on the authorization server's redirect to the callback. */
  async writeLogin(c: Context, name: string, login: PendingLogin, maxAgeSeconds: number): Promise<void> {
    const value = await this.#sealer.seal(JSON.stringify(login), this.#aad(name));
    sendCookie(c, generateCookie(name, value, { ...this.#attributes('Lax'), maxAge: maxAgeSeconds }));
  }

  async readLogin(c: Context, name: string): Promise<PendingLogin | 'missing' | 'invalid' | CookieConflict> {
    const opened = await this.#open(c, name);
    if (!('text' in opened)) return opened.problem;
    const text = opened.text;
    try {
      const login = JSON.parse(text) as PendingLogin;
      return isRecord(login) && typeof login.st === 'string' && typeof login.cv === 'string' && typeof login.exp === 'number' ? login : 'invalid';
    } catch {
      return 'invalid';
    }
  }

  async #open(c: Context, name: string): Promise<{ text: string } | { problem: 'missing' | 'invalid' | CookieConflict }> {
    const values = cookieValues(c.req.header('cookie'), name);
    if (values.length > 1) return { problem: new CookieConflict(name) };
    const value = values[0];
    if (value === undefined || value === '') return { problem: 'missing' };
    const text = await this.#sealer.open(value, this.#aad(name));
    return text === undefined ? { problem: 'invalid' } : { text };
  }

  #aad(name: string): string {
    return `${name}|${this.#config.clientId}`;
  }

  /** The attributes of every cookie: `sameSite` as the route wants it, `None` (and Partitioned) when framed. */
  #attributes(sameSite: 'Strict' | 'Lax'): {
    httpOnly: true;
    secure: boolean;
    path: string;
    sameSite: 'Strict' | 'Lax' | 'None';
    domain?: string;
    partitioned?: true;
  } {
    const base = cookieBase(this.#config);
    return {
      httpOnly: true,
      secure: base.secure,
      path: '/',
      sameSite: base.partitioned ? 'None' : sameSite,
      ...(base.domain ? { domain: base.domain } : {}),
      ...(base.partitioned ? { partitioned: true } : {}),
    };
  }
}

/**
 * A Set-Cookie line for this request's answer: kept in the request state, where `reply` builds its one answer with it
 * and the routes' finishing middleware adds it to any other answer (a redirect, a page); outside the routes, on Hono's
 * context.
 */
function sendCookie(c: Context, line: string): void {
  // the routes' request state (context.ts RequestState), of which only its cookies are this file's
  const state = c.get('st') as { cookies?: string[] } | undefined;
  if (state) (state.cookies ??= []).push(line);
  else c.header('Set-Cookie', line, { append: true });
}

function revokedKey(session: Session): string {
  // the session's Redis Cluster hash tag, as its rate counter and refresh claims: all its keys on one node; the
  // prefix keeps it in MemoryStore's own map of marks
  return `${REVOKED_MARK_PREFIX}{session:${session.sid}}`;
}

/** Every value of the cookie `name` in a Cookie header, in the order sent (RFC 6265 section 5.4 pairs). */
export function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    values.push(value);
  }
  return values;
}
