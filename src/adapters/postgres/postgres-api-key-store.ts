import type { ApiKeyStore, NewApiKey } from '../../application/ports/api-key-store.js';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { isPlan, ownLimitsOf, policyForPlan, rateLimitPolicy } from '../../domain/plan.js';
import { type PostgresDatabase, prepared } from './postgres-database.js';

type KeyRow = [
  id: string,
  plan: string,
  perMinute: number | null,
  perDay: number | null,
  label: string | null,
  createdAtMs: bigint,
  revokedAtMs: bigint | null,
];

const COLUMNS = 'id, plan, per_minute, per_day, label, created_at_ms, revoked_at_ms';
/** Every request's key lookup (behind the key cache): parsed and planned once per connection. */
const BY_HASH = prepared('api_key_by_hash', `SELECT ${COLUMNS} FROM api_keys WHERE hash = $1`);

function recordOfRow([id, plan, perMinute, perDay, label, createdAtMs, revokedAtMs]: KeyRow): ApiKeyRecord {
  if (!isPlan(plan)) throw new Error(`API key ${id} has the unknown plan ${plan}`);
  const custom = perMinute === null || perDay === null ? undefined : rateLimitPolicy(perMinute, perDay);
  return {
    id,
    plan,
    policy: policyForPlan(plan, custom),
    label,
    createdAtMs: Number(createdAtMs),
    revokedAtMs: revokedAtMs === null ? null : Number(revokedAtMs),
  };
}

/** Only a key's own limits are stored (see ownLimitsOf); a fixed-plan key is read back with its plan's. */
function limitsToStore(key: NewApiKey): [number | null, number | null] {
  const own = ownLimitsOf(key.plan, key.policy);
  return own === undefined ? [null, null] : [own.perMinute, own.perDay];
}

/**
 * The `api_keys` table: hashes of keys, never keys. Every lookup reads the table: several instances
 * share it, and a key revoked through any of them (or the admin CLI) must be refused by all of them on
 * the next request. One indexed read by primary-key-like hash costs a round trip, no more.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: PostgresDatabase) {}

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.rows<KeyRow>(BY_HASH, [hash]);
    return row === undefined ? undefined : recordOfRow(row);
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.rows<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return row === undefined ? undefined : recordOfRow(row);
  }

  /** Throws on a repeated id or hash: both come from a CSPRNG, so a clash is a bug. */
  async add(key: NewApiKey): Promise<void> {
    const [perMinute, perDay] = limitsToStore(key);
    await this.db.run(
      `INSERT INTO api_keys (id, hash, plan, per_minute, per_day, label, created_at_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [key.id, key.hash, key.plan, perMinute, perDay, key.label, key.createdAtMs],
    );
  }

  async list(): Promise<readonly ApiKeyRecord[]> {
    return (await this.db.rows<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at_ms, id`)).map(recordOfRow);
  }

  /** The first revocation time is kept: revoking again changes nothing. One statement, so no transaction. */
  async revoke(id: string, atMs: number): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.rows<KeyRow>(
      `WITH revoked AS (
         UPDATE api_keys SET revoked_at_ms = $2 WHERE id = $1 AND revoked_at_ms IS NULL RETURNING ${COLUMNS}
       )
       SELECT ${COLUMNS} FROM revoked
       UNION ALL
       SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM revoked)`,
      [id, atMs],
    );
    return row === undefined ? undefined : recordOfRow(row);
  }
}
