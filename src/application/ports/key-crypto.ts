/** Makes new keys and their ids. An adapter draws them from a CSPRNG. */
export interface KeyGenerator {
  /** A new key: `psk_` and 40 base62 characters. */
  newKey(): string;
  /** A new public id for a key, safe to log and show. */
  newKeyId(): string;
}

/** Hashes keys for storage and lookup. */
export interface KeyHasher {
  /** Lowercase hex SHA-256 of `key`. */
  hash(key: string): string;
}
