import type { ApiKeyRecord, KeyAuditEntry } from '../../domain/api-key.js';
import type { RateLimitPolicy } from '../../domain/plan.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const limitsText = (policy: RateLimitPolicy): string => `${policy.perMinute} a minute, ${policy.perDay} a day`;

/** One key as a JSON object on one line, never the key: the `--json` form of `keys list` and `keys show`. */
export const keyJson = (key: ApiKeyRecord): string =>
  JSON.stringify({
    id: key.id,
    name: key.name,
    plan: key.plan,
    perMinute: key.policy.perMinute,
    perDay: key.policy.perDay,
    scopes: key.scopes,
    createdAt: iso(key.createdAtMs),
    expiresAt: iso(key.expiresAtMs),
    lastUsedAt: iso(key.lastUsedAtMs),
    revokedAt: iso(key.revokedAtMs),
    rolledFrom: key.rolledFromId,
  });

/** The columns of a key for a person: what `keys list` prints under its header, and `keys show` by name. */
function keyFields(key: ApiKeyRecord): [string, string][] {
  return [
    ['id', key.id],
    ['name', key.name ?? '-'],
    ['plan', key.plan],
    ['limits', `${key.policy.perMinute}/min ${key.policy.perDay}/day`],
    ['scopes', key.scopes.join(',')],
    ['created', iso(key.createdAtMs) as string],
    ['expires', iso(key.expiresAtMs) ?? 'never'],
    ['last used', iso(key.lastUsedAtMs) ?? 'never'],
    ['revoked', iso(key.revokedAtMs) ?? '-'],
  ];
}

// A name may hold tabs or line breaks; in a table of tab-separated lines each becomes a space.
const cell = (text: string): string => text.replace(/[\t\r\n]+/g, ' ');

/** The keys as a table for a person: a header, then one tab-separated line a key. */
export function keyTable(keys: readonly ApiKeyRecord[]): string[] {
  const header = keyFields(keys[0] as ApiKeyRecord).map(([name]) => name.toUpperCase());
  return [
    header.join('\t'),
    ...keys.map((k) =>
      keyFields(k)
        .map(([, value]) => cell(value))
        .join('\t'),
    ),
  ];
}

/** One key for a person: a `field: value` line each. */
export const keyCard = (key: ApiKeyRecord): string[] =>
  keyFields(key).map(([name, value]) => `${`${name}:`.padEnd(11)}${cell(value)}`);

/** One audit entry as a JSON object on one line. */
export const auditJson = (entry: KeyAuditEntry): string =>
  JSON.stringify({
    seq: entry.seq,
    at: iso(entry.atMs),
    action: entry.action,
    keyId: entry.keyId,
    actor: entry.actor,
    newKeyId: entry.newKeyId,
    expiresAt: iso(entry.expiresAtMs),
  });

/** One audit entry for a person, on one line. */
export function auditLine(entry: KeyAuditEntry): string {
  const what =
    entry.action === 'roll'
      ? `rolled into ${entry.newKeyId}, which works from now; this key expires ${iso(entry.expiresAtMs)}`
      : entry.action === 'expire'
        ? `expiry set to ${iso(entry.expiresAtMs)}`
        : entry.action === 'create'
          ? `created, expiring ${iso(entry.expiresAtMs) ?? 'never'}`
          : 'revoked';
  return `${iso(entry.atMs)}\t${entry.keyId}\t${entry.action}\t${cell(entry.actor)}\t${what}`;
}
