import type { Plan, RateLimitPolicy } from './plan.js';

/** What a key may do: read stock, change it, or both. */
export const SCOPES = ['inventory:read', 'inventory:write'] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: unknown): value is Scope => value === 'inventory:read' || value === 'inventory:write';

/** A key made without a choice of scopes may do everything. */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES;

/** Makes a key's scopes: the distinct ones given, in SCOPES order; throws on none (a bug of the caller). */
export function keyScopes(scopes: readonly Scope[]): readonly Scope[] {
  const chosen = SCOPES.filter((s) => scopes.includes(s));
  if (chosen.length === 0) throw new RangeError('a key needs at least one scope');
  return chosen;
}

/** An API key as the store keeps it: never the key itself, only what it grants. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly plan: Plan;
  /** The limits the key is held to: its plan's, or its own on the enterprise plan. */
  readonly policy: RateLimitPolicy;
  /** A name to tell the key apart, such as the customer's (set with `--name`, formerly `--label`). */
  readonly name: string | null;
  readonly scopes: readonly Scope[];
  /**
   * The id of the first key of its roll chain: its own id unless it was made by rolling another. The
   * keys of one chain share one rate-limit subject, so rolling neither resets nor doubles the limits.
   */
  readonly familyId: string;
  /** The key it replaced by a roll, if any. */
  readonly rolledFromId: string | null;
  readonly createdAtMs: number;
  /** When the key stops working (answered `key_expired` from then on); null for never. */
  readonly expiresAtMs: number | null;
  readonly revokedAtMs: number | null;
  /** When it was last used, to within a minute; null if never (or not yet recorded). */
  readonly lastUsedAtMs: number | null;
}

/** A key is `psk_` and 40 base62 characters: 238 bits from a CSPRNG. */
export const API_KEY_PATTERN = /^psk_[0-9A-Za-z]{40}$/;

/** The longest name a key takes, in UTF-16 code units: enough for a customer's name and a note. */
export const KEY_NAME_MAX = 200;

/** Makes a key's name, throwing on an empty one or one beyond KEY_NAME_MAX: a bug of the caller. */
export function keyName(text: string): string {
  if (text.length === 0 || text.length > KEY_NAME_MAX) {
    throw new RangeError(`a key name must have 1 to ${KEY_NAME_MAX} characters, not ${text.length}`);
  }
  return text;
}

export const looksLikeApiKey = (text: string): boolean => API_KEY_PATTERN.test(text);

/** Where a key stands at a moment: usable, revoked, or past its expiry. Revocation wins over expiry. */
export type KeyStanding = 'active' | 'revoked' | 'expired';

export function keyStanding(key: ApiKeyRecord, nowMs: number): KeyStanding {
  if (key.revokedAtMs !== null) return 'revoked';
  if (key.expiresAtMs !== null && key.expiresAtMs <= nowMs) return 'expired';
  return 'active';
}

/** How the rate-limit subject of a key begins; every other subject is a client address's. */
export const KEY_SUBJECT_PREFIX = 'key:';

/** The rate-limit subject of a key: its roll chain's, so an old and a new key share one quota. */
export const limitSubjectOf = (key: Pick<ApiKeyRecord, 'familyId'>): string => `${KEY_SUBJECT_PREFIX}${key.familyId}`;

/** Who a request acts as, once its key is known. */
export interface Principal {
  readonly keyId: string;
  readonly plan: Plan;
  readonly policy: RateLimitPolicy;
  readonly name: string | null;
  readonly scopes: readonly Scope[];
  /** The rate-limit subject the request counts under (see limitSubjectOf). */
  readonly limitSubject: string;
  readonly expiresAtMs: number | null;
}

export const principalOf = (key: ApiKeyRecord): Principal => ({
  keyId: key.id,
  plan: key.plan,
  policy: key.policy,
  name: key.name,
  scopes: key.scopes,
  limitSubject: limitSubjectOf(key),
  expiresAtMs: key.expiresAtMs,
});

/** Whether a principal may do what `scope` covers. */
export const grants = (principal: Pick<Principal, 'scopes'>, scope: Scope): boolean => principal.scopes.includes(scope);

/** The admin actions on keys the audit trail records. */
export type KeyAuditAction = 'create' | 'roll' | 'revoke' | 'expire';

/** One entry of the key audit trail: who did what to which key, and when. Entries are never changed. */
export interface KeyAuditEntry {
  /** Grows with every entry: orders the trail. */
  readonly seq: number;
  readonly action: KeyAuditAction;
  readonly keyId: string;
  readonly actor: string;
  readonly atMs: number;
  /** For a roll: the new key's id. */
  readonly newKeyId: string | null;
  /** For a create, roll or expire: the key's expiry after the action (for a roll, the old key's). */
  readonly expiresAtMs: number | null;
}
