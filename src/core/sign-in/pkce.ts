/** PKCE (RFC 7636, S256 only): an authorization attempt's code verifier and challenge. */
import { base64url } from '@esign-elements/shared/base64url';

/** Bytes of entropy in a verifier; 64 bytes give 86 base64url characters (spec: 43..128). */
export const VERIFIER_BYTES = 64;

function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** A fresh code verifier: base64url of 64 random bytes (86 characters). */
export function createCodeVerifier(): string {
  return base64url(randomBytes(VERIFIER_BYTES));
}

/** base64url(SHA-256(verifier)), the S256 code challenge. */
export function createCodeChallenge(verifier: string): Promise<string> {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) {
    return Promise.reject(new RangeError('A PKCE verifier is 43 to 128 unreserved characters.'));
  }
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)).then((hash) => base64url(new Uint8Array(hash)));
}
