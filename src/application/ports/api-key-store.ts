import type { ApiKeyRecord } from '../../domain/api-key.js';

/** A key to store: its hash, never the key. */
export interface NewApiKey extends Omit<ApiKeyRecord, 'revokedAtMs'> {
  /** Lowercase hex SHA-256 of the key. */
  readonly hash: string;
}

/** Where API keys live, by hash. */
export interface ApiKeyStore {
  /** The key with this hash, revoked or not. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  add(key: NewApiKey): Promise<void>;
  /** Every key, oldest first. */
  list(): Promise<readonly ApiKeyRecord[]>;
  /** Revokes a key; a key already revoked keeps its first revocation time. Resolves to the key, if any. */
  revoke(id: string, atMs: number): Promise<ApiKeyRecord | undefined>;
}
