/** The kit's unguessable ids: a sign-in's `state` or attempt, a refresh's request id. */
import { base64url } from '@esign-elements/shared/base64url';

/** An unguessable, single-use id (256 bits, base64url). */
export function createState(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}
