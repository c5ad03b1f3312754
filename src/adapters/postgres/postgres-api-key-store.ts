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
import { slices, valuesList } from './multi-row.js';
import { type PostgresDatabase, prepared, type Queryable, type SqlValue } from './postgres-database.js';

/** Every request's key lookup (behind the key cache): parsed and planned once per connection. */
const BY_HASH = prepared('api_key_by_hash', `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`);
const INSERT = `INSERT INTO api_keys (${INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
const AUDIT =
  'INSERT INTO api_key_audit (action, key_id, actor, at_ms, new_key_id, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6)';

const recordIfFound = (row: KeyRow | undefined): ApiKeyRecord | undefined =>
  row === undefined ? undefined : recordOfRow(row);

/**
 * The `api_keys` table: hashes of keys, never keys; and `api_key_audit`, the trail of admin changes,
 * each written in the transaction of its change. Every lookup reads the table: several instances share
 * it, and a cache with a stated staleness bound (CachedApiKeyStore) goes in front of it.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: PostgresDatabase) {}

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.rows<KeyRow>(BY_HASH, [hash]);
    return recordIfFound(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.byId(this.db, id);
  }

  /** Throws on a repeated id or hash: both come from a CSPRNG, so a clash is a bug. */
  async add(key: NewApiKey, actor: string): Promise<void> {
    const values = insertValues(key);
    await this.db.transaction(async (tx) => {
      await tx.run(INSERT, values);
      await tx.run(AUDIT, ['create', key.id, actor, key.createdAtMs, null, key.expiresAtMs]);
    });
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return (await this.db.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at_ms, id`)).map(
      recordOfRow,
    );
  }

  /** The first revocation time is kept: revoking again changes nothing and is not recorded again. */
  async revoke(id: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const revoked = await tx.run('UPDATE api_keys SET revoked_at_ms = $2 WHERE id = $1 AND revoked_at_ms IS NULL', [
        id,
        change.atMs,
      ]);
      if (revoked === 1) await tx.run(AUDIT, ['revoke', id, change.actor, change.atMs, null, null]);
      return this.byId(tx, id);
    });
  }

  /** Only a key still active when the roll is written: a revocation or expiry just before it wins. */
  async roll(roll: KeyRoll, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const ended = await tx.run(
        `UPDATE api_keys SET expires_at_ms = $2
         WHERE id = $1 AND revoked_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > $3)`,
        [roll.oldId, roll.oldExpiresAtMs, change.atMs],
      );
      if (ended === 0) return undefined;
      await tx.run(INSERT, insertValues(roll.newKey));
      await tx.run(AUDIT, ['roll', roll.oldId, change.actor, change.atMs, roll.newKey.id, roll.oldExpiresAtMs]);
      return this.byId(tx, roll.oldId);
    });
  }

  async setExpiry(id: string, expiresAtMs: number, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const set = await tx.run('UPDATE api_keys SET expires_at_ms = $2 WHERE id = $1 AND revoked_at_ms IS NULL', [
        id,
        expiresAtMs,
      ]);
      if (set === 0) return undefined;
      await tx.run(AUDIT, ['expire', id, change.actor, change.atMs, null, expiresAtMs]);
      return this.byId(tx, id);
    });
  }

  /** One statement a thousand uses; a last use only moves forward, whatever order instances write in. */
  async recordUses(uses: readonly KeyUse[]): Promise<void> {
    for (const slice of slices(uses)) {
      const rows: SqlValue[][] = slice.map((u) => [u.keyId, u.atMs]);
      const { text, values } = valuesList(rows, ['text', 'bigint']);
      await this.db.run(
        `UPDATE api_keys AS k SET last_used_at_ms = u.at_ms
         FROM (VALUES ${text}) AS u (id, at_ms)
         WHERE k.id = u.id AND (k.last_used_at_ms IS NULL OR k.last_used_at_ms < u.at_ms)`,
        values,
      );
    }
  }

  async auditTrail(limit: number): Promise<readonly KeyAuditEntry[]> {
    const rows = await this.db.rows<AuditRow>(`SELECT ${AUDIT_COLUMNS} FROM api_key_audit ORDER BY seq DESC LIMIT $1`, [
      limit,
    ]);
    return rows.map(auditEntryOf);
  }

  private async byId(on: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await on.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return recordIfFound(row);
  }
}
