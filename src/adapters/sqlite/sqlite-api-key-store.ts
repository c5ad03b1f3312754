import type { Database, Statement } from 'better-sqlite3';
import type { ApiKeyStore, KeyChange, KeyRoll, KeyUse, NewApiKey } from '../../application/ports/api-key-store.js';
import type { ApiKeyRecord, KeyAuditEntry } from '../../domain/api-key.js';
import {
  AUDIT_COLUMNS,
  type AuditRow,
  auditEntryOf,
  INSERT_COLUMNS,
  insertValues,
  KEY_COLUMNS,
  type KeyRow,
  recordOfRow,
} from '../sql/api-key-columns.js';

type AuditParams = [
  action: string,
  keyId: string,
  actor: string,
  atMs: number,
  newKeyId: string | null,
  expiresAtMs: number | null,
];

const read = (row: KeyRow | undefined): ApiKeyRecord | undefined => (row === undefined ? undefined : recordOfRow(row));

/**
 * The `api_keys` table: hashes of keys, never keys; and `api_key_audit`, the trail of admin changes,
 * each written in the transaction of its change. Every lookup reads the table; a cache with a stated
 * staleness bound (CachedApiKeyStore) goes in front of it where the composition wants one.
 */
export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly byHash: Statement<[string], KeyRow>;
  private readonly byId: Statement<[string], KeyRow>;
  private readonly all: Statement<[], KeyRow>;
  private readonly newest: Statement<[number], AuditRow>;
  private readonly addNow: (key: NewApiKey, actor: string) => void;
  private readonly revokeNow: (id: string, change: KeyChange) => KeyRow | undefined;
  private readonly rollNow: (roll: KeyRoll, change: KeyChange) => KeyRow | undefined;
  private readonly expireNow: (id: string, expiresAtMs: number, change: KeyChange) => KeyRow | undefined;
  private readonly useNow: (uses: readonly KeyUse[]) => void;

  constructor(db: Database) {
    this.byHash = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ?`).raw();
    this.byId = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`).raw();
    this.all = db.prepare<[], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at_ms, id`).raw();
    this.newest = db
      .prepare<[number], AuditRow>(`SELECT ${AUDIT_COLUMNS} FROM api_key_audit ORDER BY seq DESC LIMIT ?`)
      .raw();
    const insert = db.prepare(`INSERT INTO api_keys (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const audit = db.prepare<AuditParams>(
      'INSERT INTO api_key_audit (action, key_id, actor, at_ms, new_key_id, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.addNow = db.transaction((key: NewApiKey, actor: string) => {
      insert.run(...insertValues(key));
      audit.run('create', key.id, actor, key.createdAtMs, null, key.expiresAtMs);
    });
    // The first revocation time is kept: revoking again changes nothing and is not recorded again.
    const revoke = db.prepare<[number, string]>(
      'UPDATE api_keys SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL',
    );
    this.revokeNow = db.transaction((id: string, change: KeyChange) => {
      if (revoke.run(change.atMs, id).changes === 1) audit.run('revoke', id, change.actor, change.atMs, null, null);
      return this.byId.get(id);
    });
    // Only a key still active when the roll is written: a revocation or expiry just before it wins.
    const endGrace = db.prepare<[number, string, number]>(
      `UPDATE api_keys SET expires_at_ms = ?
       WHERE id = ? AND revoked_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > ?)`,
    );
    this.rollNow = db.transaction((roll: KeyRoll, change: KeyChange) => {
      if (endGrace.run(roll.oldExpiresAtMs, roll.oldId, change.atMs).changes === 0) return undefined;
      insert.run(...insertValues(roll.newKey));
      audit.run('roll', roll.oldId, change.actor, change.atMs, roll.newKey.id, roll.oldExpiresAtMs);
      return this.byId.get(roll.oldId);
    });
    const expire = db.prepare<[number, string]>(
      'UPDATE api_keys SET expires_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL',
    );
    this.expireNow = db.transaction((id: string, expiresAtMs: number, change: KeyChange) => {
      if (expire.run(expiresAtMs, id).changes === 0) return undefined;
      audit.run('expire', id, change.actor, change.atMs, null, expiresAtMs);
      return this.byId.get(id);
    });
    // A last use only moves forward: batches of several instances may land in any order.
    const use = db.prepare<[number, string, number]>(
      'UPDATE api_keys SET last_used_at_ms = ? WHERE id = ? AND (last_used_at_ms IS NULL OR last_used_at_ms < ?)',
    );
    this.useNow = db.transaction((uses: readonly KeyUse[]) => {
      for (const u of uses) use.run(u.atMs, u.keyId, u.atMs);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return read(this.byHash.get(hash));
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return read(this.byId.get(id));
  }

  /** Throws on a repeated id or hash: both come from a CSPRNG, so a clash is a bug. */
  async add(key: NewApiKey, actor: string): Promise<void> {
    this.addNow(key, actor);
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return this.all.all().map(recordOfRow);
  }

  async revoke(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return read(this.revokeNow(id, change));
  }

  async roll(roll: KeyRoll, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return read(this.rollNow(roll, change));
  }

  async setExpiry(id: string, expiresAtMs: number, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return read(this.expireNow(id, expiresAtMs, change));
  }

  async recordUses(uses: readonly KeyUse[]): Promise<void> {
    if (uses.length > 0) this.useNow(uses);
  }

  async auditTrail(limit: number): Promise<readonly KeyAuditEntry[]> {
    return this.newest.all(limit).map(auditEntryOf);
  }
}
