import type { ApiKeyStore, NewApiKey } from '../../application/ports/api-key-store.js';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { ownLimitsOf } from '../../domain/plan.js';
import type { MemoryStore } from './memory-store.js';

export class MemoryApiKeyStore implements ApiKeyStore {
  constructor(private readonly store: MemoryStore) {}

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.store.keyIdsByHash.get(hash);
    return id === undefined ? undefined : this.store.keys.get(id)?.record;
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.keys.get(id)?.record;
  }

  async add(key: NewApiKey): Promise<void> {
    if (this.store.keys.has(key.id) || this.store.keyIdsByHash.has(key.hash)) {
      // Ids and keys come from a CSPRNG; a clash is a bug, not an expected failure.
      throw new Error(`an API key with id ${key.id} or the same hash already exists`);
    }
    // The same rule a persistent store applies, so a key kept here would come back the same from there.
    ownLimitsOf(key.plan, key.policy);
    const { hash, ...fields } = key;
    this.store.keys.set(key.id, { record: { ...fields, revokedAtMs: null }, hash });
    this.store.keyIdsByHash.set(hash, key.id);
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return [...this.store.keys.values()]
      .map((k) => k.record)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async revoke(id: string, atMs: number): Promise<ApiKeyRecord | undefined> {
    const entry = this.store.keys.get(id);
    if (entry === undefined) return undefined;
    if (entry.record.revokedAtMs === null) entry.record = { ...entry.record, revokedAtMs: atMs };
    return entry.record;
  }
}
