import type { ApiKeyStore, KeyChange, KeyRoll, KeyUse, NewApiKey } from '../../application/ports/api-key-store.js';
import { type ApiKeyRecord, type KeyAuditEntry, keyStanding } from '../../domain/api-key.js';
import { ownLimitsOf } from '../../domain/plan.js';
import type { MemoryStore } from './memory-store.js';

type AuditFields = Omit<KeyAuditEntry, 'seq' | 'actor' | 'atMs'>;

export class MemoryApiKeyStore implements ApiKeyStore {
  constructor(private readonly store: MemoryStore) {}

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.store.keyIdsByHash.get(hash);
    return id === undefined ? undefined : this.store.keys.get(id)?.record;
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.keys.get(id)?.record;
  }

  async add(key: NewApiKey, actor: string): Promise<void> {
    this.insert(key);
    this.audit(
      { action: 'create', keyId: key.id, newKeyId: null, expiresAtMs: key.expiresAtMs },
      actor,
      key.createdAtMs,
    );
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return [...this.store.keys.values()]
      .map((k) => k.record)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async revoke(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const entry = this.store.keys.get(id);
    if (entry === undefined) return undefined;
    if (entry.record.revokedAtMs === null) {
      entry.record = { ...entry.record, revokedAtMs: change.atMs };
      this.audit({ action: 'revoke', keyId: id, newKeyId: null, expiresAtMs: null }, change.actor, change.atMs);
    }
    return entry.record;
  }

  async roll(roll: KeyRoll, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const entry = this.store.keys.get(roll.oldId);
    if (entry === undefined || keyStanding(entry.record, change.atMs) !== 'active') return undefined;
    // The new key first: it throws on a clash, and then the old key must be left as it was.
    this.insert(roll.newKey);
    entry.record = { ...entry.record, expiresAtMs: roll.oldExpiresAtMs };
    this.audit(
      { action: 'roll', keyId: roll.oldId, newKeyId: roll.newKey.id, expiresAtMs: roll.oldExpiresAtMs },
      change.actor,
      change.atMs,
    );
    return entry.record;
  }

  async setExpiry(id: string, expiresAtMs: number, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const entry = this.store.keys.get(id);
    if (entry === undefined || entry.record.revokedAtMs !== null) return undefined;
    entry.record = { ...entry.record, expiresAtMs };
    this.audit({ action: 'expire', keyId: id, newKeyId: null, expiresAtMs }, change.actor, change.atMs);
    return entry.record;
  }

  async recordUses(uses: readonly KeyUse[]): Promise<void> {
    for (const use of uses) {
      const entry = this.store.keys.get(use.keyId);
      if (entry === undefined) continue;
      const last = entry.record.lastUsedAtMs;
      if (last === null || use.atMs > last) entry.record = { ...entry.record, lastUsedAtMs: use.atMs };
    }
  }

  async auditTrail(limit: number): Promise<readonly KeyAuditEntry[]> {
    return this.store.keyAudit.slice(-limit).reverse();
  }

  private insert(key: NewApiKey): void {
    if (this.store.keys.has(key.id) || this.store.keyIdsByHash.has(key.hash)) {
      // Ids and keys come from a CSPRNG; a clash is a bug, not an expected failure.
      throw new Error(`an API key with id ${key.id} or the same hash already exists`);
    }
    // The same rule a persistent store applies, so a key kept here would come back the same from there.
    ownLimitsOf(key.plan, key.policy);
    const { hash, ...fields } = key;
    this.store.keys.set(key.id, { record: { ...fields, revokedAtMs: null, lastUsedAtMs: null }, hash });
    this.store.keyIdsByHash.set(hash, key.id);
  }

  private audit(fields: AuditFields, actor: string, atMs: number): void {
    this.store.keyAudit.push({ seq: this.store.keyAudit.length + 1, ...fields, actor, atMs });
  }
}
