/** The plans a key can be on. Enterprise keys carry their own limits. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;

export type Plan = (typeof PLANS)[number];

export const isPlan = (value: unknown): value is Plan =>
  value === 'free' || value === 'pro' || value === 'business' || value === 'enterprise';

/** How many requests a subject may make: both windows bind at once. */
export interface RateLimitPolicy {
  readonly perMinute: number;
  readonly perDay: number;
}

/** The largest limit a window accepts; far above any plan, and small enough to count exactly. */
export const LIMIT_MAX = 1_000_000_000;

const isLimit = (value: number): boolean => Number.isInteger(value) && value >= 1 && value <= LIMIT_MAX;

/** Makes a policy, throwing on a limit that is not a whole number from 1 to LIMIT_MAX. */
export function rateLimitPolicy(perMinute: number, perDay: number): RateLimitPolicy {
  if (!isLimit(perMinute))
    throw new RangeError(`per-minute limit ${perMinute} is not an integer from 1 to ${LIMIT_MAX}`);
  if (!isLimit(perDay)) throw new RangeError(`per-day limit ${perDay} is not an integer from 1 to ${LIMIT_MAX}`);
  return { perMinute, perDay };
}

/** The published limits of the plans that have fixed ones. */
export const PLAN_POLICIES: Readonly<Record<Exclude<Plan, 'enterprise'>, RateLimitPolicy>> = {
  free: rateLimitPolicy(60, 1_000),
  pro: rateLimitPolicy(300, 10_000),
  business: rateLimitPolicy(1_000, 100_000),
};

/**
 * The policy of a key on `plan`: the one place that says which plans carry their published limits.
 * Enterprise limits are custom and must be given; a fixed plan refuses custom limits, so a key can
 * never raise (or lower) its plan's.
 */
export function policyForPlan(plan: Plan, custom?: RateLimitPolicy): RateLimitPolicy {
  if (plan !== 'enterprise') {
    if (custom !== undefined)
      throw new RangeError(`the ${plan} plan has fixed limits; only enterprise keys take their own`);
    return PLAN_POLICIES[plan];
  }
  if (custom === undefined) throw new RangeError('an enterprise plan needs its own per-minute and per-day limits');
  return rateLimitPolicy(custom.perMinute, custom.perDay);
}

/**
 * The limits a key on `plan` holds as its own, which a store must keep with it: an enterprise key's,
 * or none for a fixed plan (it is read back with the plan's published limits). A fixed-plan `policy`
 * other than the published one is refused: stored, it would come back different.
 */
export function ownLimitsOf(plan: Plan, policy: RateLimitPolicy): RateLimitPolicy | undefined {
  if (plan === 'enterprise') return policyForPlan(plan, policy);
  const published = PLAN_POLICIES[plan];
  if (policy.perMinute !== published.perMinute || policy.perDay !== published.perDay) {
    throw new RangeError(`a key on the ${plan} plan must carry that plan's limits`);
  }
  return undefined;
}
