import type { ApiKeyStore, KeyChange, KeyRoll, KeyUse, NewApiKey } from '../../application/ports/api-key-store.js';
import type { Clock } from '../../application/ports/clock.js';
import type { ApiKeyRecord, KeyAuditEntry } from '../../domain/api-key.js';

export interface CachedApiKeyStoreOptions {
  /**
   * How long a key found by hash is answered from memory: the staleness bound. A key revoked, rolled or
   * given a new expiry through another process (the admin CLI, another instance) is seen here at most
   * this long after. An expiry that was already stored needs no bound: it is checked at every request.
   */
  readonly ttlMs: number;
  /** The most keys remembered; past it the oldest is forgotten. */
  readonly maxEntries?: number;
}

interface Remembered {
  readonly record: ApiKeyRecord;
  readonly untilMs: number;
}

/**
 * A key store in front of another, remembering the keys found by hash for `ttlMs`. Every request looks
 * its key up, so this spares the store a read per request; revocations and additions made through this
 * object forget what they touch at once, and those made elsewhere are seen within `ttlMs`. Unknown
 * hashes are never remembered: junk cannot push real keys out, and a key added elsewhere is found on
 * its first use. Last uses and the audit trail pass straight through: nothing of them is remembered.
 */
export class CachedApiKeyStore implements ApiKeyStore {
  private readonly remembered = new Map<string, Remembered>();
  private readonly maxEntries: number;

  constructor(
    private readonly inner: ApiKeyStore,
    private readonly clock: Clock,
    private readonly options: CachedApiKeyStoreOptions,
  ) {
    if (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 0) {
      throw new RangeError(`the key cache's ttlMs ${options.ttlMs} is not a whole number of milliseconds`);
    }
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  findByHash(hash: string): ApiKeyRecord | Promise<ApiKeyRecord | undefined> {
    const nowMs = this.clock.nowMs();
    const known = this.remembered.get(hash);
    // Nearly every request's key is remembered: answered at once, without a promise.
    if (known !== undefined && known.untilMs > nowMs) return known.record;
    return this.readAndRemember(hash, nowMs);
  }

  private async readAndRemember(hash: string, nowMs: number): Promise<ApiKeyRecord | undefined> {
    const record = await this.inner.findByHash(hash);
    if (record === undefined || this.options.ttlMs === 0) {
      this.remembered.delete(hash);
      return record;
    }
    if (!this.remembered.has(hash) && this.remembered.size >= this.maxEntries) {
      this.remembered.delete(this.remembered.keys().next().value as string);
    }
    this.remembered.set(hash, { record, untilMs: nowMs + this.options.ttlMs });
    return record;
  }

  findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.inner.findById(id);
  }

  add(key: NewApiKey, actor: string): Promise<void> {
    return this.inner.add(key, actor);
  }

  list(): Promise<readonly ApiKeyRecord[]> {
    return this.inner.list();
  }

  async revoke(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const revoked = await this.inner.revoke(id, change);
    this.forget(id);
    return revoked;
  }

  async roll(roll: KeyRoll, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const old = await this.inner.roll(roll, change);
    this.forget(roll.oldId);
    return old;
  }

  async setExpiry(id: string, expiresAtMs: number, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const changed = await this.inner.setExpiry(id, expiresAtMs, change);
    this.forget(id);
    return changed;
  }

  recordUses(uses: readonly KeyUse[]): Promise<void> {
    return this.inner.recordUses(uses);
  }

  auditTrail(limit: number): Promise<readonly KeyAuditEntry[]> {
    return this.inner.auditTrail(limit);
  }

  /** Records are few and admin changes rare: forgetting every entry of this id is a scan, and enough. */
  private forget(id: string): void {
    for (const [hash, entry] of this.remembered) if (entry.record.id === id) this.remembered.delete(hash);
  }
}
