/**
 * The sign-in's `state`, which the proxy recognises as its own without a store read or write:
 * `<random>.<issued at>.<mac>`, the MAC an HMAC-SHA-256 under a key derived (HKDF) from each cookie key, over the
 * random part, the issue time, client_id and basePath. The first key signs, every key verifies (rotation). A state
 * the proxy never issued, or issued longer ago than the sign-in's time limit, is refused before anything is written;
 * only issued states (each counted against the login route's rate limit) are ever burnt in the store.
 * WebCrypto only (`crypto.subtle`): runtime-free.
 */
import { base64url } from '@esign-elements/shared';
import { fromBase64url } from './seal.js';

const encoder = new TextEncoder();
/** A state issued this far in the future (another replica's clock) is still accepted. */
const CLOCK_SKEW_MS = 60_000;
const STATE = /^([A-Za-z0-9_-]{43})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

export type StateCheck = { ok: true; issuedAt: number } | { ok: false; reason: 'unknown' | 'expired' };

export class LoginStates {
  readonly #keys: Promise<CryptoKey[]>;
  readonly #context: string;
  readonly #lifetimeMs: number;

  constructor(raw: Uint8Array[], context: { clientId: string; basePath: string; lifetimeMs: number }) {
    this.#keys = Promise.all(raw.map(derive));
    this.#context = `${context.clientId}\u0000${context.basePath}`;
    this.#lifetimeMs = context.lifetimeMs;
  }

  /** A new state, issued now. */
  async issue(now = Date.now()): Promise<string> {
    const random = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const time = now.toString(36);
    const [key] = await this.#keys;
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key!, this.#message(random, time)));
    return `${random}.${time}.${base64url(mac)}`;
  }

  /** Whether the proxy issued `state` (a MAC of one of its keys) and it is still within the sign-in's time limit. */
  async check(state: string, now = Date.now()): Promise<StateCheck> {
    const parts = STATE.exec(state);
    const mac = parts ? fromBase64url(parts[3]!) : undefined;
    if (!parts || !mac || mac.length !== 32) return { ok: false, reason: 'unknown' };
    const message = this.#message(parts[1]!, parts[2]!);
    let valid = false;
    for (const key of await this.#keys) {
      if (await crypto.subtle.verify('HMAC', key, mac as Uint8Array<ArrayBuffer>, message)) valid = true;
    }
    if (!valid) return { ok: false, reason: 'unknown' };
    const issuedAt = parseInt(parts[2]!, 36);
    if (issuedAt > now + CLOCK_SKEW_MS || issuedAt + this.#lifetimeMs < now) return { ok: false, reason: 'expired' };
    return { ok: true, issuedAt };
  }

  #message(random: string, time: string): Uint8Array<ArrayBuffer> {
    return encoder.encode(`esign-state\u0000${this.#context}\u0000${random}\u0000${time}`);
  }
}

/** The state key of a cookie key: HKDF-SHA-256 with its own label, so the AES key of the cookies is never an HMAC key too. */
async function derive(bytes: Uint8Array): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode('esign-proxy login state v1') },
    base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign', 'verify'],
  );
}
