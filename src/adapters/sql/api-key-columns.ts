import type { NewApiKey } from '../../application/ports/api-key-store.js';
import {
  type ApiKeyRecord,
  isScope,
  type KeyAuditAction,
  type KeyAuditEntry,
  type Scope,
} from '../../domain/api-key.js';
import { isPlan, ownLimitsOf, policyForPlan, rateLimitPolicy } from '../../domain/plan.js';

/**
 * An API key as the SQL stores keep it, shared by SQLite and PostgreSQL so that both read a row alike:
 * the name in the column `label` (its name before 1.2), scopes as space-separated text (as OAuth writes
 * them), times in Unix ms, and limits only for enterprise keys (see ownLimitsOf).
 */
export const KEY_COLUMNS =
  'id, plan, per_minute, per_day, label, scopes, family_id, rolled_from_id, created_at_ms, expires_at_ms, ' +
  'revoked_at_ms, last_used_at_ms';

/** A number column as a driver answers it: a bigint from SQLite's safe integers, a number or bigint from pg. */
type Whole = number | bigint;

/** A row of KEY_COLUMNS, read as an array. */
export type KeyRow = [
  id: string,
  plan: string,
  perMinute: Whole | null,
  perDay: Whole | null,
  name: string | null,
  scopes: string,
  familyId: string | null,
  rolledFromId: string | null,
  createdAtMs: Whole,
  expiresAtMs: Whole | null,
  revokedAtMs: Whole | null,
  lastUsedAtMs: Whole | null,
];

const orNull = (value: Whole | null): number | null => (value === null ? null : Number(value));

export const scopesText = (scopes: readonly Scope[]): string => scopes.join(' ');

function scopesOf(id: string, text: string): readonly Scope[] {
  const scopes = text.split(' ');
  if (!scopes.every(isScope) || scopes.length === 0) throw new Error(`API key ${id} has the unknown scopes ${text}`);
  return scopes;
}

export function recordOfRow(row: KeyRow): ApiKeyRecord {
  const [id, plan, perMinute, perDay, name, scopes, familyId, rolledFromId, createdAtMs, expiresAtMs, revokedAtMs] =
    row;
  if (!isPlan(plan)) throw new Error(`API key ${id} has the unknown plan ${plan}`);
  const custom = perMinute === null || perDay === null ? undefined : rateLimitPolicy(Number(perMinute), Number(perDay));
  return {
    id,
    plan,
    policy: policyForPlan(plan, custom),
    name,
    scopes: scopesOf(id, scopes),
    familyId: familyId ?? id,
    rolledFromId,
    createdAtMs: Number(createdAtMs),
    expiresAtMs: orNull(expiresAtMs),
    revokedAtMs: orNull(revokedAtMs),
    lastUsedAtMs: orNull(row[11]),
  };
}

/** The columns an insert writes, in this order. */
export const INSERT_COLUMNS =
  'id, hash, plan, per_minute, per_day, label, scopes, family_id, rolled_from_id, created_at_ms, expires_at_ms';

/** A new key's values in INSERT_COLUMNS order; throws on limits its plan does not take (see ownLimitsOf). */
export function insertValues(key: NewApiKey): (string | number | null)[] {
  const own = ownLimitsOf(key.plan, key.policy);
  return [
    key.id,
    key.hash,
    key.plan,
    own?.perMinute ?? null,
    own?.perDay ?? null,
    key.name,
    scopesText(key.scopes),
    key.familyId,
    key.rolledFromId,
    key.createdAtMs,
    key.expiresAtMs,
  ];
}

export const AUDIT_COLUMNS = 'seq, action, key_id, actor, at_ms, new_key_id, expires_at_ms';

/** A row of AUDIT_COLUMNS, read as an array. */
export type AuditRow = [
  seq: Whole,
  action: string,
  keyId: string,
  actor: string,
  atMs: Whole,
  newKeyId: string | null,
  expiresAtMs: Whole | null,
];

const ACTIONS: readonly string[] = ['create', 'roll', 'revoke', 'expire'] satisfies KeyAuditAction[];

export function auditEntryOf([seq, action, keyId, actor, atMs, newKeyId, expiresAtMs]: AuditRow): KeyAuditEntry {
  if (!ACTIONS.includes(action)) throw new Error(`audit entry ${seq} has the unknown action ${action}`);
  return {
    seq: Number(seq),
    action: action as KeyAuditAction,
    keyId,
    actor,
    atMs: Number(atMs),
    newKeyId,
    expiresAtMs: orNull(expiresAtMs),
  };
}
