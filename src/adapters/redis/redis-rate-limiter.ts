import type { Redis, Result } from 'ioredis';
import type { Clock } from '../../application/ports/clock.js';
import type { LocalAnswers, RateLimiter } from '../../application/ports/rate-limiter.js';
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
import { SLIDING_WINDOW_SCRIPT } from './sliding-window-script.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /**
     * The sliding-window script of sliding-window-script.ts, registered by RedisRateLimiter; called in its
     * Buffer form, as its reply is packed binary.
     */
    petstoreSlidingWindowBuffer(
      key: string,
      nowMs: string,
      minuteLimit: string,
      dayLimit: string,
      banPolicy: string,
    ): Result<Buffer, Context>;
  }
}

/**
 * The Redis key of `subject` under `prefix`: one hash holds all of a subject's state (its fields are
 * told in sliding-window-script.ts), so a script touches one key, in one slot of a Redis Cluster.
 */
export const rateLimitKey = (subject: string, prefix = ''): string => `${prefix}rl:${subject}`;

export interface RedisRateLimiterOptions {
  /** Put before every key (`<prefix>rl:<subject>`), to share a Redis between services or tests. */
  readonly keyPrefix?: string;
  readonly banPolicy?: BanPolicy;
  /** How many bans are held in process at most; default 10,000. */
  readonly banCacheSize?: number;
  /**
   * Whose time a decision is made at: the Redis server's TIME (the default, one clock for every
   * process), or the limiter's Clock, passed to the script (tests, so that a test clock drives Redis).
   */
  readonly timeFrom?: 'server' | 'clock';
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
  private readonly clockDecides: boolean;

  /**
   * `clock` ages the bans held in process (against the server's time learned with each ban), and is the
   * time of every decision when `timeFrom` is 'clock'.
   */
  constructor(
    private readonly client: Redis,
    private readonly clock: Clock,
    options: RedisRateLimiterOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? '';
    this.banPolicy = banPolicy(options.banPolicy ?? DEFAULT_BAN_POLICY);
    this.bans = new BanCache(options.banCacheSize ?? 10_000);
    this.clockDecides = options.timeFrom === 'clock';
    const { strikes, strikeWindowMs, escalationWindowMs, durationsMs } = this.banPolicy;
    this.banPolicyArg = [strikes, strikeWindowMs, escalationWindowMs, ...durationsMs].join(' ');
    // defineCommand sends EVALSHA and falls back to EVAL when the server lacks the script (after a restart).
    client.defineCommand('petstoreSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
  }

  async admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const known = this.answerLocally(subject, policy);
    if (known !== undefined) return known;

    const reply = await this.client.petstoreSlidingWindowBuffer(
      rateLimitKey(subject, this.keyPrefix),
      this.clockDecides ? String(this.clock.nowMs()) : '',
      String(policy.perMinute),
      String(policy.perDay),
      this.banPolicyArg,
    );
    const figures = figuresOf(reply);
    const code = figure(reply, 0);
    const nowMs = figure(reply, 1);
    if (code === BANNED) {
      const state = bannedState(reply, figures);
      this.bans.remember(subject, state, nowMs - this.clock.nowMs());
      // While banned, the domain only expires buckets and reports: the same answer the cache gives later.
      return admitRequest(state, policy, this.banPolicy, nowMs);
    }
    if (code === ADMITTED) {
      if (figures !== 11) throw new Error('the rate-limit script answered an admission of the wrong length');
      const windows = [
        countedWindow(MINUTE_WINDOW, policy.perMinute, reply, 2),
        countedWindow(DAY_WINDOW, policy.perDay, reply, 6),
      ];
      return decision('admitted', windows, nowMs, 0);
    }
    if (code !== RATE_LIMITED) throw new Error(`the rate-limit script answered an unknown code ${code}`);
    if (figures !== 6) throw new Error('the rate-limit script answered a refusal of the wrong length');
    const windows = [
      report(MINUTE_WINDOW, policy.perMinute, figure(reply, 2), figure(reply, 3)),
      report(DAY_WINDOW, policy.perDay, figure(reply, 4), figure(reply, 5)),
    ];
    return decision('rate_limited', windows, nowMs, retryAtMs(windows, nowMs) - nowMs);
  }

  /** The answer for a subject whose ban is held in process, with no round trip; else undefined. */
  answerLocally(subject: string, policy: RateLimitPolicy): RateLimitDecision | undefined {
    const cached = this.bans.find(subject, this.clock.nowMs());
    return cached === undefined ? undefined : admitRequest(cached.state, policy, this.banPolicy, cached.nowMs);
  }

  /** How many bans are answered in process (for tests and metrics). */
  get cachedBans(): number {
    return this.bans.size;
  }
}

const report = (spec: WindowSpec, limit: number, remaining: number, resetAtMs: number): WindowReport => ({
  name: spec.name,
  windowSeconds: spec.windowMs / 1000,
  limit,
  remaining,
  resetAtMs,
});

/**
 * A window's report from the state an admission answers, whose window starts at figure `at`: older,
 * head, newest, the newest's count. The domain's remainingIn and nextRiseMs: room was checked, so at most
 * the limit is counted, and as every kept bucket holds a request, the head's leaving brings a rise.
 */
function countedWindow(spec: WindowSpec, limit: number, reply: Buffer, at: number): WindowReport {
  const counted = figure(reply, at) + figure(reply, at + 3);
  const head = figure(reply, at + 1);
  return report(spec, limit, limit - counted, (head + spec.windowMs / spec.bucketMs + 1) * spec.bucketMs);
}

/**
 * How many figures the script's reply packs (little-endian doubles, see sliding-window-script.ts), with
 * at least a code and the server's time. A malformed reply is a bug or a foreign script, and throws.
 */
function figuresOf(reply: Buffer): number {
  if (reply.length < 16 || reply.length % 8 !== 0) throw new Error('the rate-limit script answered no packed figures');
  return reply.length / 8;
}

/** The `index`th figure of the script's reply. */
const figure = (reply: Buffer, index: number): number => reply.readDoubleLE(8 * index);

/**
 * A banned subject's state from the script's reply {code, now, until, n, then n minute buckets, then the
 * day buckets}, each bucket as bucket, count, oldest first.
 */
function bannedState(reply: Buffer, figures: number): SubjectState {
  if (figures < 4) throw new Error('the rate-limit script answered a ban without its buckets');
  const minuteEnd = 4 + 2 * figure(reply, 3);
  if (minuteEnd > figures || (figures - minuteEnd) % 2 !== 0) {
    throw new Error('the rate-limit script answered a malformed bucket list');
  }
  return {
    minute: counter(reply, 4, minuteEnd),
    day: counter(reply, minuteEnd, figures),
    ban: { ...newBanState(), bannedUntilMs: figure(reply, 2) },
  };
}

/** A window counter from the bucket, count pairs of the reply's figures from `start` to `end`. */
function counter(reply: Buffer, start: number, end: number): WindowCounter {
  const out = newWindowCounter();
  for (let i = start; i < end; i += 2) {
    const bucket = figure(reply, i);
    const count = figure(reply, i + 1);
    out.buckets.set(bucket, count);
    out.total += count;
    out.newest = bucket;
  }
  return out;
}
