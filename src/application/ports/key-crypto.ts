/** Makes new keys and their ids. An adapter draws them from a CSPRNG. */
export interface KeyGenerator {
  /** A new key: `psk_` and 40 base62 characters. */
  newKey(): string;
  /** A new public id for a key, safe to log and show. */
  newKeyId(): string;
}

/**
 * Hashes keys for storage and lookup. Either at once (Node's one-shot hash, which the server uses on
 * every request) or as a promise (Web Crypto's `subtle.digest`, the only SHA-256 of a browser or a
 * worker): the use cases wait only for a promise, so the synchronous form costs no extra turn.
 */
export interface KeyHasher {
  /** Lowercase hex SHA-256 of `key`. */
  hash(key: string): string | Promise<string>;
}
