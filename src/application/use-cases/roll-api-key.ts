import { type ApiKeyRecord, keyStanding } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore, NewApiKey } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { KeyGenerator, KeyHasher } from '../ports/key-crypto.js';

/** A day: how long an old key keeps working after a roll unless told otherwise. */
export const DEFAULT_ROLL_GRACE_MS = 86_400_000;

export interface RollApiKeyInput {
  readonly id: string;
  /** How long the old key keeps working; 0 ends it now. */
  readonly graceMs: number;
  readonly actor: string;
}

/** The new key itself (shown this once), its record, and the old key as the roll left it. */
export interface RolledKey {
  readonly key: string;
  readonly record: ApiKeyRecord;
  readonly old: ApiKeyRecord;
}

const NOT_FOUND = fail(domainError('key_not_found', 'no API key has that id'));
const INACTIVE = fail(domainError('key_inactive', 'the key is revoked or expired; a roll needs a key in use'));

/**
 * Replaces a key by a new one with the same name, plan, limits, scopes and expiry, and lets the old one
 * work until its grace ends, so that a client can switch without a moment lacking a valid key. The two
 * share one rate-limit subject (the chain's first key): rolling neither resets nor doubles the limits.
 * The new key keeps the old one's expiry, so a roll never lengthens a key's life.
 */
export class RollApiKey {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly generator: KeyGenerator,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: RollApiKeyInput): Promise<Result<RolledKey, DomainError<'key_not_found' | 'key_inactive'>>> {
    if (!Number.isSafeInteger(input.graceMs) || input.graceMs < 0) {
      throw new RangeError(`the grace ${input.graceMs} is not a whole number of milliseconds from 0`);
    }
    const old = await this.keys.findById(input.id);
    if (old === undefined) return NOT_FOUND;
    const nowMs = this.clock.nowMs();
    if (keyStanding(old, nowMs) !== 'active') return INACTIVE;
    const graceEndsMs = nowMs + input.graceMs;
    const oldExpiresAtMs = old.expiresAtMs === null ? graceEndsMs : Math.min(old.expiresAtMs, graceEndsMs);
    const key = this.generator.newKey();
    const newKey: NewApiKey = {
      id: this.generator.newKeyId(),
      hash: await this.hasher.hash(key),
      plan: old.plan,
      policy: old.policy,
      name: old.name,
      scopes: old.scopes,
      familyId: old.familyId,
      rolledFromId: old.id,
      createdAtMs: nowMs,
      expiresAtMs: old.expiresAtMs,
    };
    // The store checks again that the old key is active, in the write: a revocation in between wins.
    const rolled = await this.keys.roll({ oldId: old.id, newKey, oldExpiresAtMs }, { actor: input.actor, atMs: nowMs });
    if (rolled === undefined) return INACTIVE;
    const { hash: _hash, ...fields } = newKey;
    return ok({ key, record: { ...fields, revokedAtMs: null, lastUsedAtMs: null }, old: rolled });
  }
}
