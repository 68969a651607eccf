/**
 * Sealing with the cookie keys: AES-256-GCM through WebCrypto (`crypto.subtle`, on every runtime).
 * Format `v1.<kid>.<iv>.<ciphertext>` (base64url); the first key seals, every key opens (rotation).
 * The kid is a short SHA-256 fingerprint of the key, never the key.
 */
import { base64url } from '@esign-elements/shared';

export interface CookieKey {
  kid: string;
  key: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '') + '='.repeat((4 - (text.replace(/=+$/, '').length % 4)) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** The raw 32 bytes of a configured key (base64 or base64url), or undefined when it is not one. */
export function decodeCookieKey(text: string): Uint8Array | undefined {
  const bytes = typeof text === 'string' ? fromBase64url(text.trim()) : undefined;
  return bytes && bytes.length === 32 ? bytes : undefined;
}

/** A new random key, base64url: what `--generate-cookie-key` prints. */
export function generateCookieKey(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function importCookieKeys(raw: Uint8Array[]): Promise<CookieKey[]> {
  return Promise.all(
    raw.map(async (bytes) => {
      const fingerprint = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
      return {
        kid: base64url(fingerprint).slice(0, 8),
        key: await crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']),
      };
    }),
  );
}

/** Seals `plaintext` with the first key, authenticating `aad` with it. */
export async function seal(keys: CookieKey[], plaintext: string, aad: string): Promise<string> {
  const { kid, key } = keys[0]!;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(aad) }, key, encoder.encode(plaintext)));
  return `v1.${kid}.${base64url(iv)}.${base64url(ciphertext)}`;
}

/** The plaintext, or undefined when no key opens it (unknown kid, tampered, other aad, malformed). */
export async function open(keys: CookieKey[], sealed: string, aad: string): Promise<string | undefined> {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
  const entry = keys.find((k) => k.kid === parts[1]);
  const iv = fromBase64url(parts[2]!);
  const ciphertext = fromBase64url(parts[3]!);
  if (!entry || !iv || iv.length !== 12 || !ciphertext || ciphertext.length < 16) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, additionalData: encoder.encode(aad) },
      entry.key,
      ciphertext as Uint8Array<ArrayBuffer>,
    );
    return decoder.decode(plain);
  } catch {
    return undefined;
  }
}

export async function sha256url(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));
}

/** Sealing and hashing as the proxy uses them, bound to its keys. */
export interface Sealer {
  /** Seals with the first key, authenticating `aad`: `v1.<kid>.<iv>.<ciphertext+tag>`. */
  seal(plaintext: string, aad: string): Promise<string>;
  /** The plaintext, or undefined when no key opens it. */
  open(sealed: string, aad: string): Promise<string | undefined>;
  /** base64url(SHA-256(utf8(text))). */
  sha256url(text: string): Promise<string>;
}

/** The sealer: WebCrypto (`crypto.subtle`), the same on every runtime. */
export function webCryptoSealer(raw: Uint8Array[]): Sealer {
  let keys: Promise<CookieKey[]> | undefined;
  const imported = (): Promise<CookieKey[]> => (keys ??= importCookieKeys(raw));
  return {
    seal: async (plaintext, aad) => seal(await imported(), plaintext, aad),
    open: async (sealed, aad) => open(await imported(), sealed, aad),
    sha256url,
  };
}
