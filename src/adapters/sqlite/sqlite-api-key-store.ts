import type { Database, Statement } from 'better-sqlite3';
import type { ApiKeyStore, NewApiKey } from '../../application/ports/api-key-store.js';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { isPlan, ownLimitsOf, policyForPlan, rateLimitPolicy } from '../../domain/plan.js';

interface KeyRow {
  readonly id: string;
  readonly plan: string;
  readonly per_minute: bigint | null;
  readonly per_day: bigint | null;
  readonly label: string | null;
  readonly created_at_ms: bigint;
  readonly revoked_at_ms: bigint | null;
}

type InsertParams = [string, string, string, number | null, number | null, string | null, number];

const COLUMNS = 'id, plan, per_minute, per_day, label, created_at_ms, revoked_at_ms';

function recordOfRow(row: KeyRow): ApiKeyRecord {
  if (!isPlan(row.plan)) throw new Error(`API key ${row.id} has the unknown plan ${row.plan}`);
  const custom =
    row.per_minute === null || row.per_day === null
      ? undefined
      : rateLimitPolicy(Number(row.per_minute), Number(row.per_day));
  return {
    id: row.id,
    plan: row.plan,
    policy: policyForPlan(row.plan, custom),
    label: row.label,
    createdAtMs: Number(row.created_at_ms),
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
  };
}

/** Only a key's own limits are stored (see ownLimitsOf); a fixed-plan key is read back with its plan's. */
function limitsToStore(key: NewApiKey): [number | null, number | null] {
  const own = ownLimitsOf(key.plan, key.policy);
  return own === undefined ? [null, null] : [own.perMinute, own.perDay];
}

/**
 * The `api_keys` table: hashes of keys, never keys. Every lookup reads the table; a cache with a stated
 * staleness bound (CachedApiKeyStore) goes in front of it where the composition wants one.
 */
export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly byHash: Statement<[string], KeyRow>;
  private readonly byId: Statement<[string], KeyRow>;
  private readonly all: Statement<[], KeyRow>;
  private readonly insert: Statement<InsertParams>;
  private readonly revokeNow: (id: string, atMs: number) => KeyRow | undefined;

  constructor(db: Database) {
    this.byHash = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE hash = ?`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at_ms, id`);
    this.insert = db.prepare(
      `INSERT INTO api_keys (id, hash, plan, per_minute, per_day, label, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    // The first revocation time is kept: revoking again changes nothing.
    const revoke = db.prepare<[number, string]>(
      'UPDATE api_keys SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL',
    );
    this.revokeNow = db.transaction((id: string, atMs: number) => {
      revoke.run(atMs, id);
      return this.byId.get(id);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.byHash.get(hash);
    return row === undefined ? undefined : recordOfRow(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.byId.get(id);
    return row === undefined ? undefined : recordOfRow(row);
  }

  /** Throws on a repeated id or hash: both come from a CSPRNG, so a clash is a bug. */
  async add(key: NewApiKey): Promise<void> {
    const [perMinute, perDay] = limitsToStore(key);
    this.insert.run(key.id, key.hash, key.plan, perMinute, perDay, key.label, key.createdAtMs);
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return this.all.all().map(recordOfRow);
  }

  async revoke(id: string, atMs: number): Promise<ApiKeyRecord | undefined> {
    const row = this.revokeNow(id, atMs);
    return row === undefined ? undefined : recordOfRow(row);
  }
}
