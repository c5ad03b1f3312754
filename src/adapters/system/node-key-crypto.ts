import { hash as oneShotHash, randomBytes } from 'node:crypto';
import type { KeyGenerator, KeyHasher } from '../../application/ports/key-crypto.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from the CSPRNG, without modulo bias (bytes >= 248 are drawn again). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Keys and ids from node's CSPRNG; SHA-256 for storage. */
export class NodeKeyCrypto implements KeyGenerator, KeyHasher {
  newKey(): string {
    return `psk_${randomBase62(40)}`;
  }

  newKeyId(): string {
    return `key_${randomBase62(12)}`;
  }

  hash(key: string): string {
    // The one-shot form (Node >= 20.12, within the engines range) hashes a short key about three times
    // faster than a Hash object, and every request with a key pays it.
    return oneShotHash('sha256', key, 'hex');
  }
}
