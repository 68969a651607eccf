/**
 * The proxy's sealer on Node's own crypto (`node:crypto`): the same AES-256-GCM format as seal.ts's
 * WebCrypto sealer (`v1.<kid>.<iv>.<ciphertext+tag>`, AAD, kid = SHA-256 fingerprint of the key), so a
 * cookie sealed by one opens with the other, but synchronous and about a tenth of the CPU per operation
 * (WebCrypto in Node 20 runs each operation as a thread-pool job: ~50 µs against ~5 µs). Used by
 * serveTokenProxy only; the Fetch entry stays on WebCrypto.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomFillSync } from 'node:crypto';
import type { Sealer } from './seal.js';

/** IVs are taken from this many random bytes at a time (one system call per 341 seals, not one per seal); each is used once. */
const IV_POOL_BYTES = 4_096;

export function nodeCryptoSealer(raw: Uint8Array[]): Sealer {
  // KeyObjects made once: a raw key Buffer would be imported again on every cipher
  const keys = raw.map((bytes) => ({ kid: createHash('sha256').update(bytes).digest('base64url').slice(0, 8), key: createSecretKey(Buffer.from(bytes)) }));
  const pool = Buffer.alloc(IV_POOL_BYTES);
  let used = IV_POOL_BYTES;
  const nextIv = (): Buffer => {
    if (used + 12 > IV_POOL_BYTES) {
      randomFillSync(pool);
      used = 0;
    }
    // a copy: the pool is refilled in place later
    const iv = Buffer.from(pool.subarray(used, used + 12));
    used += 12;
    return iv;
  };
  return {
    seal: (plaintext, aad) => {
      const { kid, key } = keys[0]!;
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return Promise.resolve(`v1.${kid}.${iv.toString('base64url')}.${body.toString('base64url')}`);
    },
    open: (sealed, aad) => {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') return Promise.resolve(undefined);
      const entry = keys.find((k) => k.kid === parts[1]);
      if (!entry || !/^[\w-]+$/.test(parts[2]!) || !/^[\w-]+$/.test(parts[3]!)) return Promise.resolve(undefined);
      const iv = Buffer.from(parts[2]!, 'base64url');
      const body = Buffer.from(parts[3]!, 'base64url');
      if (iv.length !== 12 || body.length < 16) return Promise.resolve(undefined);
      try {
        const decipher = createDecipheriv('aes-256-gcm', entry.key, iv);
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - 16));
        const text = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
        return Promise.resolve(text);
      } catch {
        return Promise.resolve(undefined);
      }
    },
    sha256url: (text) => Promise.resolve(createHash('sha256').update(text, 'utf8').digest('base64url')),
  };
}
