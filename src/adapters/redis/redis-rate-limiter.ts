import type { Redis, Result } from 'ioredis';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { type BanPolicy, banPolicy, DEFAULT_BAN_POLICY, newBanState } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import {
  admitRequest,
  decision,
  type RateLimitDecision,
  type SubjectState,
  type WindowReport,
} from '../../domain/rate-limit.js';
import {
  DAY_WINDOW,
  MINUTE_WINDOW,
  newWindowCounter,
  type WindowCounter,
  type WindowSpec,
} from '../../domain/sliding-window.js';
import { BanCache } from './ban-cache.js';
import type { LocalAnswers } from './failover-rate-limiter.js';
import { SLIDING_WINDOW_SCRIPT } from './sliding-window-script.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** The sliding-window script of sliding-window-script.ts, registered by RedisRateLimiter. */
    petstoreSlidingWindow(
      minuteKey: string,
      dayKey: string,
      strikesKey: string,
      banKey: string,
      ...argv: string[]
    ): Result<unknown, Context>;
  }
}

/** The Redis keys of one subject. */
export interface RateLimitKeys {
  readonly minute: string;
  readonly day: string;
  readonly strikes: string;
  readonly ban: string;
}

/**
 * The keys of `subject` under `prefix`. They share the hash tag `{subject}`, so that in a Redis Cluster
 * they sit in one slot: a script may only touch keys of one slot.
 */
export function rateLimitKeys(subject: string, prefix = ''): RateLimitKeys {
  const base = `${prefix}rl:{${subject}}`;
  return { minute: `${base}:m`, day: `${base}:d`, strikes: `${base}:x`, ban: `${base}:ban` };
}

export interface RedisRateLimiterOptions {
  /** Put before every key (`<prefix>rl:{subject}:m`), to share a Redis between services or tests. No braces. */
  readonly keyPrefix?: string;
  readonly banPolicy?: BanPolicy;
  /** How many bans are held in process at most; default 10,000. */
  readonly banCacheSize?: number;
  /**
   * Tests only: a time in Unix ms passed to the script instead of the server's clock, so that a test
   * clock can drive Redis. Production leaves it unset: every process then shares the server's TIME.
   */
  readonly now?: () => number;
}

const ADMITTED = 0;
const RATE_LIMITED = 1;
const BANNED = 2;

/**
 * The sliding-window limiter over Redis, shared by every service process that uses the same server:
 * one Lua script decides each request atomically, in one round trip, on the server's clock. Limits and
 * the ban policy travel with every call, so plan changes and enterprise limits need no migration.
 */
export class RedisRateLimiter implements RateLimiter, LocalAnswers {
  private readonly keyPrefix: string;
  private readonly banPolicy: BanPolicy;
  private readonly bans: BanCache;
  private readonly policyArgs: readonly string[];
  private readonly now: (() => number) | undefined;

  constructor(
    private readonly client: Redis,
    options: RedisRateLimiterOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? '';
    // A brace in the prefix would become the hash tag and split a subject's keys over slots.
    if (/[{}]/.test(this.keyPrefix)) throw new RangeError('the Redis key prefix must not hold { or }');
    this.banPolicy = banPolicy(options.banPolicy ?? DEFAULT_BAN_POLICY);
    this.bans = new BanCache(options.banCacheSize ?? 10_000);
    this.now = options.now;
    const { strikes, strikeWindowMs, escalationWindowMs, durationsMs } = this.banPolicy;
    this.policyArgs = [strikes, strikeWindowMs, escalationWindowMs, ...durationsMs].map(String);
    // defineCommand sends EVALSHA and falls back to EVAL when the server lacks the script (after a restart).
    client.defineCommand('petstoreSlidingWindow', { numberOfKeys: 4, lua: SLIDING_WINDOW_SCRIPT });
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    // An empty subject would make an empty hash tag, which Redis Cluster ignores: the keys would split.
    if (subject === '') throw new RangeError('a rate-limit subject must not be empty');
    const known = this.answerLocally(subject, policy);
    if (known !== undefined) return known;

    const keys = rateLimitKeys(subject, this.keyPrefix);
    const reply = await this.client.petstoreSlidingWindow(
      keys.minute,
      keys.day,
      keys.strikes,
      keys.ban,
      this.now === undefined ? '' : String(this.now()),
      ...windowArgs(policy.perMinute, MINUTE_WINDOW),
      ...windowArgs(policy.perDay, DAY_WINDOW),
      ...this.policyArgs,
    );
    const figures = list(reply);
    const code = num(figures[0]);
    const nowMs = num(figures[1]);
    if (code === BANNED) {
      const state = bannedState(num(figures[2]), list(figures[3]), list(figures[4]));
      this.bans.remember(subject, state, nowMs - this.localNow());
      // While banned, the domain only expires buckets and reports: the same answer the cache gives later.
      return admitRequest(state, policy, this.banPolicy, nowMs);
    }
    const windows = [
      report(MINUTE_WINDOW, policy.perMinute, num(figures[2]), num(figures[3])),
      report(DAY_WINDOW, policy.perDay, num(figures[4]), num(figures[5])),
    ];
    if (code === ADMITTED) return decision('admitted', windows, nowMs, 0);
    if (code !== RATE_LIMITED) throw new Error(`the rate-limit script answered an unknown code ${code}`);
    // As in the domain: a full window admits again once enough old buckets leave it; the later one rules.
    let retryAtMs = nowMs;
    for (const w of windows) if (w.remaining === 0) retryAtMs = Math.max(retryAtMs, w.resetAtMs);
    return decision('rate_limited', windows, nowMs, retryAtMs - nowMs);
  }

  /** The answer for a subject whose ban is held in process, with no round trip; else undefined. */
  answerLocally(subject: string, policy: RateLimitPolicy): RateLimitDecision | undefined {
    const cached = this.bans.find(subject, this.localNow());
    return cached === undefined ? undefined : admitRequest(cached.state, policy, this.banPolicy, cached.nowMs);
  }

  /** How many bans are answered in process (for tests and metrics). */
  get cachedBans(): number {
    return this.bans.size;
  }

  private localNow(): number {
    return this.now === undefined ? Date.now() : this.now();
  }
}

const windowArgs = (limit: number, spec: WindowSpec): string[] =>
  [limit, spec.bucketMs, spec.windowMs / spec.bucketMs].map(String);

const report = (spec: WindowSpec, limit: number, remaining: number, resetAtMs: number): WindowReport => ({
  name: spec.name,
  windowSeconds: spec.windowMs / 1000,
  limit,
  remaining,
  resetAtMs,
});

/** A banned subject's state as the script reported it: the ban's end and both windows' buckets. */
const bannedState = (untilMs: number, minute: readonly unknown[], day: readonly unknown[]): SubjectState => ({
  minute: counter(minute),
  day: counter(day),
  ban: { ...newBanState(), bannedUntilMs: untilMs },
});

/** A window counter from a flat {bucket, count, ...} list, oldest first. */
function counter(flat: readonly unknown[]): WindowCounter {
  if (flat.length % 2 !== 0) throw new Error('the rate-limit script answered an odd bucket list');
  const out = newWindowCounter();
  for (let i = 0; i < flat.length; i += 2) {
    const bucket = num(flat[i]);
    const count = num(flat[i + 1]);
    out.buckets.set(bucket, count);
    out.total += count;
    out.newest = bucket;
  }
  return out;
}

// The script's reply is checked as it is read: a malformed one is a bug or a foreign script, and throws.
function list(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  throw new Error('the rate-limit script answered something other than a list');
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  throw new Error('the rate-limit script answered something other than a number');
}
