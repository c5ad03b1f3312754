/**
 * Temporary bans: a subject that keeps knocking after being refused is shut out for a while, longer
 * each time within a day. Plain functions over a plain state, like the sliding window.
 */
export interface BanPolicy {
  /** Refusals within `strikeWindowMs` that bring a ban. */
  readonly strikes: number;
  readonly strikeWindowMs: number;
  /** Length of the first ban, the second within `escalationWindowMs`, and so on; the last repeats. */
  readonly durationsMs: readonly number[];
  readonly escalationWindowMs: number;
}

export const DEFAULT_BAN_POLICY: BanPolicy = {
  strikes: 20,
  strikeWindowMs: 60_000,
  durationsMs: [300_000, 900_000, 3_600_000],
  escalationWindowMs: 86_400_000,
};

/** Checks a ban policy's invariants, throwing on a policy that could never work. */
export function banPolicy(policy: BanPolicy): BanPolicy {
  const positive = (n: number): boolean => Number.isInteger(n) && n > 0;
  if (!positive(policy.strikes)) throw new RangeError('ban strikes must be a positive integer');
  if (!positive(policy.strikeWindowMs)) throw new RangeError('ban strike window must be a positive integer');
  if (!positive(policy.escalationWindowMs)) throw new RangeError('ban escalation window must be a positive integer');
  if (policy.durationsMs.length === 0 || !policy.durationsMs.every(positive)) {
    throw new RangeError('ban durations must be a non-empty list of positive integers');
  }
  return policy;
}

export interface BanState {
  /** Times of the recent refusals, oldest first; never more than `strikes` of them. */
  strikes: number[];
  bannedUntilMs: number;
  lastBanAtMs: number;
  /** Index into `durationsMs` of the last ban; -1 before the first. */
  level: number;
}

export const newBanState = (): BanState => ({
  strikes: [],
  bannedUntilMs: 0,
  lastBanAtMs: Number.NEGATIVE_INFINITY,
  level: -1,
});

export const isBanned = (state: BanState, nowMs: number): boolean => state.bannedUntilMs > nowMs;

/** Records a refusal at `nowMs`; returns true when it brings a ban. */
export function recordStrike(state: BanState, policy: BanPolicy, nowMs: number): boolean {
  const since = nowMs - policy.strikeWindowMs;
  while (state.strikes.length > 0 && (state.strikes[0] as number) <= since) state.strikes.shift();
  state.strikes.push(nowMs);
  if (state.strikes.length < policy.strikes) return false;
  const escalates = nowMs - state.lastBanAtMs < policy.escalationWindowMs;
  state.level = escalates ? Math.min(state.level + 1, policy.durationsMs.length - 1) : 0;
  state.bannedUntilMs = nowMs + (policy.durationsMs[state.level] as number);
  state.lastBanAtMs = nowMs;
  state.strikes = [];
  return true;
}
