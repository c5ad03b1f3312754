import { type ApiKeyRecord, keyLabel } from '../../domain/api-key.js';
import { type Plan, policyForPlan, type RateLimitPolicy } from '../../domain/plan.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { KeyGenerator, KeyHasher } from '../ports/key-crypto.js';

export interface IssueApiKeyInput {
  readonly plan: Plan;
  /** Required for the enterprise plan, refused for the others. */
  readonly limits?: RateLimitPolicy;
  readonly label?: string;
}

/** Makes a new key. The key itself is returned once, here; only its hash is stored. */
export class IssueApiKey {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly generator: KeyGenerator,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: IssueApiKeyInput): Promise<{ readonly key: string; readonly record: ApiKeyRecord }> {
    // Checked before a key is made: policyForPlan refuses limits on a fixed plan.
    const policy = policyForPlan(input.plan, input.limits);
    const key = this.generator.newKey();
    const record: ApiKeyRecord = {
      id: this.generator.newKeyId(),
      plan: input.plan,
      policy,
      label: input.label === undefined ? null : keyLabel(input.label),
      createdAtMs: this.clock.nowMs(),
      revokedAtMs: null,
    };
    await this.keys.add({ ...record, hash: this.hasher.hash(key) });
    return { key, record };
  }
}
