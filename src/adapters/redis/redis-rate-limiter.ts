import type { Redis, Result } from 'ioredis';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import { type BanPolicy, banPolicy, DEFAULT_BAN_POLICY, newBanState } from '../../domain/ban.js';
import type { RateLimitPolicy } from '../../domain/plan.js';
import {
  admitRequest,
  decision,
  type RateLimitDecision,
  retryAtMs,
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
      nowMs: string,
      minuteLimit: string,
      dayLimit: string,
      banPolicy: string,
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
  /** The ban policy as the script reads it, written once: it is the same for every call. */
  private readonly banPolicyArg: string;
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
    this.banPolicyArg = [strikes, strikeWindowMs, escalationWindowMs, ...durationsMs].join(' ');
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
      String(policy.perMinute),
      String(policy.perDay),
      this.banPolicyArg,
    );
    const figures = integers(reply);
    const [code, nowMs] = figures;
    if (code === BANNED) {
      const state = bannedState(figures);
      this.bans.remember(subject, state, nowMs - this.localNow());
      // While banned, the domain only expires buckets and reports: the same answer the cache gives later.
      return admitRequest(state, policy, this.banPolicy, nowMs);
    }
    if (!isDecided(figures)) throw new Error('the rate-limit script answered a list of the wrong length');
    const windows = [
      report(MINUTE_WINDOW, policy.perMinute, figures[2], figures[3]),
      report(DAY_WINDOW, policy.perDay, figures[4], figures[5]),
    ];
    if (code === ADMITTED) return decision('admitted', windows, nowMs, 0);
    if (code !== RATE_LIMITED) throw new Error(`the rate-limit script answered an unknown code ${code}`);
    return decision('rate_limited', windows, nowMs, retryAtMs(windows, nowMs) - nowMs);
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

const report = (spec: WindowSpec, limit: number, remaining: number, resetAtMs: number): WindowReport => ({
  name: spec.name,
  windowSeconds: spec.windowMs / 1000,
  limit,
  remaining,
  resetAtMs,
});

/** A reply of the script: a code, the server's time, then what the code tells. */
type Figures = readonly [code: number, nowMs: number, ...rest: number[]];

/** {code, now, minute remaining, minute reset ms, day remaining, day reset ms}: an admission or refusal. */
type Decided = readonly [number, number, number, number, number, number];

const isDecided = (figures: Figures): figures is Decided => figures.length === 6;

/**
 * A banned subject's state from the script's reply {code, now, until, n, then n minute buckets, then the
 * day buckets}, each bucket as bucket, count, oldest first.
 */
function bannedState(figures: Figures): SubjectState {
  const [, , untilMs, minuteBuckets] = figures;
  if (untilMs === undefined || minuteBuckets === undefined) throw new Error('the rate-limit script answered no ban');
  const minuteEnd = 4 + 2 * minuteBuckets;
  if (minuteEnd > figures.length || (figures.length - minuteEnd) % 2 !== 0) {
    throw new Error('the rate-limit script answered a malformed bucket list');
  }
  return {
    minute: counter(figures, 4, minuteEnd),
    day: counter(figures, minuteEnd, figures.length),
    ban: { ...newBanState(), bannedUntilMs: untilMs },
  };
}

/** A window counter from the bucket, count pairs of `figures` from `start` to `end` (checked in range). */
function counter(figures: Figures, start: number, end: number): WindowCounter {
  const out = newWindowCounter();
  for (let i = start; i < end; i += 2) {
    const bucket = figures[i] as number;
    const count = figures[i + 1] as number;
    out.buckets.set(bucket, count);
    out.total += count;
    out.newest = bucket;
  }
  return out;
}

/** The script's reply, checked as it is read: a malformed one is a bug or a foreign script, and throws. */
function integers(reply: unknown): Figures {
  if (!Array.isArray(reply) || reply.length < 2) throw new Error('the rate-limit script answered no list of figures');
  for (const figure of reply) {
    if (typeof figure !== 'number') throw new Error('the rate-limit script answered something other than a number');
  }
  return reply as unknown as Figures;
}
