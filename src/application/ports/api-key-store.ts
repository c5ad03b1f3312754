import type { ApiKeyRecord, KeyAuditEntry } from '../../domain/api-key.js';

/** A key to store: its hash, never the key. A new key is never revoked nor used yet. */
export interface NewApiKey extends Omit<ApiKeyRecord, 'revokedAtMs' | 'lastUsedAtMs'> {
  /** Lowercase hex SHA-256 of the key. */
  readonly hash: string;
}

/** Who makes an admin change, and when: what the audit trail records with it. */
export interface KeyChange {
  readonly actor: string;
  readonly atMs: number;
}

/** A roll: the new key (made from the old one), and when the old one now expires. */
export interface KeyRoll {
  readonly oldId: string;
  readonly newKey: NewApiKey;
  /** The old key's expiry after the roll: the end of its grace, or its own expiry if that is sooner. */
  readonly oldExpiresAtMs: number;
}

/** That a key was used at a time, for its last-use time. */
export interface KeyUse {
  readonly keyId: string;
  readonly atMs: number;
}

/**
 * Where API keys live, by hash, with the append-only audit trail of the admin changes to them. Every
 * change and its audit entry are written together, or neither.
 */
export interface ApiKeyStore {
  /**
   * The key with this hash, revoked or not. A store that remembers the key (a cache) may answer at once,
   * without a promise: every request with a key asks.
   */
  findByHash(hash: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Adds a key, and a `create` entry by `actor` at its creation time. */
  add(key: NewApiKey, actor: string): Promise<void>;
  /** Every key, oldest first. */
  list(): Promise<readonly ApiKeyRecord[]>;
  /**
   * Revokes a key; a key already revoked keeps its first revocation time and gets no second entry.
   * Resolves to the key, if any.
   */
  revoke(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined>;
  /**
   * Rolls a key: only if the old key is still active at `change.atMs` (neither revoked nor expired), sets
   * its expiry, adds the new key and a `roll` entry. Resolves to the old key as it now is, or undefined
   * (and nothing written) when it is unknown or no longer active.
   */
  roll(roll: KeyRoll, change: KeyChange): Promise<ApiKeyRecord | undefined>;
  /**
   * Sets when a key that is not revoked expires, with an `expire` entry. Resolves to the key as it now
   * is, or undefined (nothing written) when it is unknown or revoked.
   */
  setExpiry(id: string, expiresAtMs: number, change: KeyChange): Promise<ApiKeyRecord | undefined>;
  /** Records uses of keys: a key's last-use time only ever moves forward. Unknown ids are ignored. */
  recordUses(uses: readonly KeyUse[]): Promise<void>;
  /** The newest `limit` entries of the audit trail, newest first. */
  auditTrail(limit: number): Promise<readonly KeyAuditEntry[]>;
}
