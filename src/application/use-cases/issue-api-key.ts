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
    if (input.plan !== 'enterprise' && input.limits !== undefined) {
      throw new RangeError(`the ${input.plan} plan has fixed limits; only enterprise keys take their own`);
    }
    const key = this.generator.newKey();
    const record: ApiKeyRecord = {
      id: this.generator.newKeyId(),
      plan: input.plan,
      policy: policyForPlan(input.plan, input.limits),
      label: input.label === undefined ? null : keyLabel(input.label),
      createdAtMs: this.clock.nowMs(),
      revokedAtMs: null,
    };
    await this.keys.add({ ...record, hash: this.hasher.hash(key) });
    return { key, record };
  }
}
