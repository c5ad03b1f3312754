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
import type { RateLimitStanding } from '../../domain/rate-limit-standing.js';
import {
  DAY_WINDOW,
  MINUTE_WINDOW,
  newWindowCounter,
  type WindowCounter,
  type WindowSpec,
} from '../../domain/sliding-window.js';
import { BanCache } from './ban-cache.js';
import { clusterSlot } from './cluster-slot.js';
import { PEEK_SCRIPT, standingOfReply } from './redis-peek.js';
import { defineScript, type ScriptCall, type ScriptClient } from './script-client.js';
import { SLIDING_WINDOW_SCRIPT } from './sliding-window-script.js';

/**
 * The Redis key of `subject` under `prefix`: one hash holds all of a subject's state (its fields are
 * told in sliding-window-script.ts), so a decision touches one key.
 */
export const rateLimitKey = (subject: string, prefix = ''): string => `${prefix}rl:${subject}`;

/** Where a RedisRateLimiter keeps its keys, which bans it imposes, and whose clock it decides on. */
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

/** A decision waiting for its batch. */
interface Pending {
  readonly subject: string;
  /** The subject's key (rateLimitKey). */
  readonly key: string;
  readonly policy: RateLimitPolicy;
  /** Its time for the script, in Unix ms; '' for the server's clock. */
  readonly nowArg: string;
  resolve(decision: RateLimitDecision): void;
  reject(error: unknown): void;
}

/**
 * The most decisions one script call makes. Redis runs nothing else while a script runs, so a batch is
 * kept short enough not to hold other clients back (about 100 common decisions take well under a ms).
 */
const MAX_BATCH = 100;

/**
 * The sliding-window limiter over Redis, shared by every service process that uses the same server or
 * Redis Cluster. One Lua script decides each request atomically, on the server's clock. Limits and the
 * ban policy travel with every call, so plan changes and enterprise limits need no migration.
 *
 * Decisions asked for together go to Redis together, in one call of the script that makes them one after
 * the other (as the group commit does for SQLite writes): what a call costs apart from its decisions (the
 * round trip, the command, the script's start, the server's clock) is paid once for all of them. While no
 * call is out, the decisions asked for before the current task ends go together, so a lone decision waits
 * for nothing; while one is out, they wait for the end of the event loop's turn, which under load gathers
 * the decisions of many requests.
 *
 * On a Redis Cluster (a `Cluster` client) a script call may only hold keys of one hash slot, and a
 * subject's state is one key: the decisions gathered are split by slot, in the order asked within each,
 * and each slot's go in calls of their own, to the master that serves it.
 */
export class RedisRateLimiter implements RateLimiter, LocalAnswers {
  private readonly keyPrefix: string;
  private readonly banPolicy: BanPolicy;
  private readonly bans: BanCache;
  /** The ban policy as the script reads it, written once: it is the same for every call. */
  private readonly banPolicyArg: string;
  private readonly clockDecides: boolean;
  private pending: Pending[] = [];
  /** Calls sent and not answered yet. */
  private calls = 0;
  /** The sliding-window script: the number of decisions, their keys, then its arguments. */
  private readonly slidingWindow: ScriptCall;
  /** The read-only script of redis-peek.ts: one subject's key, then the time or ''. */
  private readonly peekScript: ScriptCall;

  /**
   * `clock` ages the bans held in process (against the server's time learned with each ban), and is the
   * time of every decision when `timeFrom` is 'clock'.
   */
  constructor(
    private readonly client: ScriptClient,
    private readonly clock: Clock,
    options: RedisRateLimiterOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? '';
    this.banPolicy = banPolicy(options.banPolicy ?? DEFAULT_BAN_POLICY);
    this.bans = new BanCache(options.banCacheSize ?? 10_000);
    this.clockDecides = options.timeFrom === 'clock';
    const { strikes, strikeWindowMs, escalationWindowMs, durationsMs } = this.banPolicy;
    this.banPolicyArg = [strikes, strikeWindowMs, escalationWindowMs, ...durationsMs].join(' ');
    // In their Buffer form: the sliding window's reply is packed binary. Without numberOfKeys, the number of
    // keys (here, of decisions) comes first in each call.
    this.slidingWindow = defineScript(client, 'petstoreSlidingWindow', { lua: SLIDING_WINDOW_SCRIPT });
    this.peekScript = defineScript(client, 'petstorePeek', { lua: PEEK_SCRIPT, numberOfKeys: 1 });
  }

  /** Where a subject stands, read by a script that writes nothing (see redis-peek.ts): one round trip. */
  async peek(subject: string, policy: RateLimitPolicy): Promise<RateLimitStanding> {
    const nowArg = this.clockDecides ? String(this.clock.nowMs()) : '';
    return standingOfReply(await this.peekScript(rateLimitKey(subject, this.keyPrefix), nowArg), policy);
  }

  admit(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const known = this.answerLocally(subject, policy);
    if (known !== undefined) return Promise.resolve(known);
    const nowArg = this.clockDecides ? String(this.clock.nowMs()) : '';
    return new Promise((resolve, reject) => {
      this.pending.push({ subject, key: rateLimitKey(subject, this.keyPrefix), policy, nowArg, resolve, reject });
      if (this.pending.length > 1) return;
      if (this.calls === 0) queueMicrotask(() => this.flush());
      else setImmediate(() => this.flush());
    });
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

  /** Sends the decisions asked for since the last flush, in order, MAX_BATCH a call (on a cluster, a slot's). */
  private flush(): void {
    const pending = this.pending;
    this.pending = [];
    for (const group of this.client.isCluster ? bySlot(pending) : [pending]) {
      for (let from = 0; from < group.length; from += MAX_BATCH) this.send(group.slice(from, from + MAX_BATCH));
    }
  }

  private send(batch: readonly Pending[]): void {
    const keys = batch.map((d) => d.key);
    const args = [this.banPolicyArg];
    for (const d of batch) args.push(d.nowArg, String(d.policy.perMinute), String(d.policy.perDay));
    this.calls += 1;
    // The count drops before any decision settles, so the decisions their callers ask for next go
    // together at the end of this task.
    this.slidingWindow(batch.length, ...keys, ...args).then(
      (reply) => {
        this.calls -= 1;
        this.settle(batch, reply);
      },
      (error: unknown) => {
        this.calls -= 1;
        for (const d of batch) d.reject(error);
      },
    );
  }

  /** Reads every decision of the reply before settling any: a malformed reply fails the whole batch. */
  private settle(batch: readonly Pending[], reply: unknown): void {
    const decisions: RateLimitDecision[] = [];
    try {
      if (!Buffer.isBuffer(reply) || reply.length % 8 !== 0)
        throw new Error('the rate-limit script answered no packed figures');
      let at = 0;
      for (const d of batch) {
        const read = this.decisionOf(d, reply, at);
        decisions.push(read.decision);
        at = read.next;
      }
      if (at !== reply.length / 8) throw new Error('the rate-limit script answered more than it was asked');
    } catch (error) {
      for (const d of batch) d.reject(error);
      return;
    }
    batch.forEach((d, i) => {
      d.resolve(decisions[i] as RateLimitDecision);
    });
  }

  /** The decision of `d` from the reply's figures from `at` on, and where the next one starts. */
  private decisionOf(d: Pending, reply: Buffer, at: number): { decision: RateLimitDecision; next: number } {
    const figures = reply.length / 8 - at;
    if (figures < 2) throw new Error('the rate-limit script answered fewer decisions than it was asked');
    const { policy } = d;
    const code = figure(reply, at);
    const nowMs = figure(reply, at + 1);
    if (code === ADMITTED) {
      if (figures < 11) throw new Error('the rate-limit script answered a short admission');
      const windows = [
        countedWindow(MINUTE_WINDOW, policy.perMinute, reply, at + 2),
        countedWindow(DAY_WINDOW, policy.perDay, reply, at + 6),
      ];
      return { decision: decision('admitted', windows, nowMs, 0), next: at + 11 };
    }
    if (code === RATE_LIMITED) {
      if (figures < 6) throw new Error('the rate-limit script answered a short refusal');
      const windows = [
        report(MINUTE_WINDOW, policy.perMinute, figure(reply, at + 2), figure(reply, at + 3)),
        report(DAY_WINDOW, policy.perDay, figure(reply, at + 4), figure(reply, at + 5)),
      ];
      return { decision: decision('rate_limited', windows, nowMs, retryAtMs(windows, nowMs) - nowMs), next: at + 6 };
    }
    if (code !== BANNED) throw new Error(`the rate-limit script answered an unknown code ${code}`);
    const { state, next } = bannedState(reply, at, figures);
    this.bans.remember(d.subject, state, nowMs - this.clock.nowMs());
    // While banned, the domain only expires buckets and reports: the same answer the cache gives later.
    return { decision: admitRequest(state, policy, this.banPolicy, nowMs), next };
  }
}

/** The decisions grouped by their key's hash slot, each group in the order asked. */
function bySlot(pending: readonly Pending[]): Iterable<Pending[]> {
  const groups = new Map<number, Pending[]>();
  for (const d of pending) {
    const slot = clusterSlot(d.key);
    const group = groups.get(slot);
    if (group === undefined) groups.set(slot, [d]);
    else group.push(d);
  }
  return groups.values();
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

/** The `index`th figure of the script's reply (little-endian doubles, see sliding-window-script.ts). */
const figure = (reply: Buffer, index: number): number => reply.readDoubleLE(8 * index);

/**
 * A banned subject's state from the figures of its answer from `at` on, `figures` of them left in the
 * reply: {code, now, until, n minute buckets, m day buckets, then the n and then the m buckets, each as
 * bucket, count, oldest first}; and where the next answer starts.
 */
function bannedState(reply: Buffer, at: number, figures: number): { state: SubjectState; next: number } {
  if (figures < 5) throw new Error('the rate-limit script answered a ban without its buckets');
  const minuteEnd = at + 5 + 2 * figure(reply, at + 3);
  const next = minuteEnd + 2 * figure(reply, at + 4);
  if (next > at + figures) throw new Error('the rate-limit script answered a malformed bucket list');
  const state = {
    minute: counter(reply, at + 5, minuteEnd),
    day: counter(reply, minuteEnd, next),
    ban: { ...newBanState(), bannedUntilMs: figure(reply, at + 2) },
  };
  return { state, next };
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
