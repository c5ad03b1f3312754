import type { KeyGenerator, KeyHasher } from '../../application/ports/key-crypto.js';
import { hexOf } from './hex.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters from the platform's CSPRNG, without modulo bias (bytes >= 248 are drawn again). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Keys, their ids and their SHA-256 through Web Crypto (`globalThis.crypto`), which Node 20, browsers
 * and workers all have: the key crypto of the core wherever it runs. Its hash is asynchronous, as
 * `crypto.subtle.digest` is; the server uses NodeKeyCrypto, whose one-shot hash is synchronous and
 * faster for a short key. Both give the same hashes, so keys issued by one are found by the other.
 */
export class WebCryptoKeyCrypto implements KeyGenerator, KeyHasher {
  private readonly encoder = new TextEncoder();

  newKey(): string {
    return `psk_${randomBase62(40)}`;
  }

  newKeyId(): string {
    return `key_${randomBase62(12)}`;
  }

  async hash(key: string): Promise<string> {
    return hexOf(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', this.encoder.encode(key))));
  }
}
