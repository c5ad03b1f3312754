import { type ApiKeyRecord, DEFAULT_SCOPES, keyName, keyScopes, type Scope } from '../../domain/api-key.js';
import { type Plan, policyForPlan, type RateLimitPolicy } from '../../domain/plan.js';
import type { ApiKeyStore, NewApiKey } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { KeyGenerator, KeyHasher } from '../ports/key-crypto.js';

/** When a new key expires: never (absent), at a time, or a span after it is made. */
export type ExpiryChoice = { readonly atMs: number } | { readonly inMs: number };

export interface IssueApiKeyInput {
  readonly plan: Plan;
  /** Required for the enterprise plan, refused for the others. */
  readonly limits?: RateLimitPolicy;
  readonly name?: string;
  /** @deprecated The name's former spelling, still taken: `name` wins when both are given. */
  readonly label?: string;
  /** Both scopes when absent. */
  readonly scopes?: readonly Scope[];
  /** Never when absent; a time not after the key's creation is refused as a bug of the caller. */
  readonly expires?: ExpiryChoice;
  /** Who makes it, for the audit trail; {@link SYSTEM_ACTOR} when absent. */
  readonly actor?: string;
}

/** The actor recorded for a change made by code rather than by a person at the admin CLI. */
export const SYSTEM_ACTOR = 'system';

/** The key itself (shown this once) and what is stored of it. */
export interface IssuedKey {
  readonly key: string;
  readonly record: ApiKeyRecord;
}

/** The time a choice names at `nowMs`, throwing when it is not a whole number of milliseconds. */
export function expiryAt(choice: ExpiryChoice, nowMs: number): number {
  const atMs = 'atMs' in choice ? choice.atMs : nowMs + choice.inMs;
  if (!Number.isSafeInteger(atMs)) throw new RangeError(`the expiry ${atMs} is not a whole number of milliseconds`);
  return atMs;
}

/** Makes a new key. The key itself is returned once, here; only its hash is stored. */
export class IssueApiKey {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly generator: KeyGenerator,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: IssueApiKeyInput): Promise<IssuedKey> {
    // Checked before a key is made: policyForPlan refuses limits on a fixed plan.
    const policy = policyForPlan(input.plan, input.limits);
    const nowMs = this.clock.nowMs();
    const expiresAtMs = input.expires === undefined ? null : expiryAt(input.expires, nowMs);
    // The admin CLI refuses a past time before it gets here; a key born expired is a bug of the caller.
    if (expiresAtMs !== null && expiresAtMs <= nowMs) throw new RangeError('a new key must expire after it is made');
    const name = input.name ?? input.label;
    const key = this.generator.newKey();
    const id = this.generator.newKeyId();
    const fields: Omit<NewApiKey, 'hash'> = {
      id,
      plan: input.plan,
      policy,
      name: name === undefined ? null : keyName(name),
      scopes: keyScopes(input.scopes ?? DEFAULT_SCOPES),
      familyId: id,
      rolledFromId: null,
      createdAtMs: nowMs,
      expiresAtMs,
    };
    await this.keys.add({ ...fields, hash: await this.hasher.hash(key) }, input.actor ?? SYSTEM_ACTOR);
    return { key, record: { ...fields, revokedAtMs: null, lastUsedAtMs: null } };
  }
}
