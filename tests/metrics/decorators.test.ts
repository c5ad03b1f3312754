import { describe, expect, it } from 'vitest';
import { countedRateLimiter, type DecisionLabel } from '../../src/adapters/prometheus/counted-rate-limiter.js';
import { type OperationTimers, timedPort } from '../../src/adapters/prometheus/timed-port.js';
import { PLAN_POLICIES } from '../../src/domain/plan.js';
import type { RateLimitDecision } from '../../src/domain/rate-limit.js';

/** Timers that keep what they were told, by operation and outcome. */
function recordingTimers() {
  const seen: string[] = [];
  const timersOf = (operation: string): OperationTimers => ({
    ok: { observe: (s) => seen.push(`${operation} ok ${s >= 0}`) },
    error: { observe: (s) => seen.push(`${operation} error ${s >= 0}`) },
  });
  return { seen, timersOf };
}

class Store {
  #rows = [1, 2, 3, 4];
  released = false;
  async get(i: number): Promise<number | undefined> {
    return this.#rows[i];
  }
  async fail(): Promise<never> {
    throw new Error('disk gone');
  }
  count(): number {
    return this.#rows.length;
  }
  async *list(): AsyncIterable<readonly number[]> {
    try {
      yield this.#rows.slice(0, 2);
      yield this.#rows.slice(2);
    } finally {
      this.released = true;
    }
  }
}

describe('timedPort', () => {
  it('times promises until they settle, failures apart, and keeps the adapter’s private state reachable', async () => {
    const { seen, timersOf } = recordingTimers();
    const store = timedPort(new Store(), timersOf);
    expect(await store.get(1)).toBe(2);
    await expect(store.fail()).rejects.toThrow('disk gone');
    expect(store.count()).toBe(4);
    expect(seen).toEqual(['get ok true', 'fail error true', 'count ok true']);
  });

  it('times a listing once, when it ends, and passes every chunk through', async () => {
    const { seen, timersOf } = recordingTimers();
    const store = timedPort(new Store(), timersOf);
    const chunks: (readonly number[])[] = [];
    for await (const chunk of store.list()) chunks.push(chunk);
    expect(chunks).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(seen).toEqual(['list ok true']);
  });

  it('lets the store release a listing its consumer left early', async () => {
    const { seen, timersOf } = recordingTimers();
    const inner = new Store();
    const store = timedPort(inner, timersOf);
    for await (const _chunk of store.list()) break;
    expect(inner.released).toBe(true);
    expect(seen).toEqual(['list ok true']);
  });
});

const decision = (outcome: RateLimitDecision['outcome']): RateLimitDecision => ({
  outcome,
  limit: 60,
  remaining: 0,
  resetAtMs: 0,
  retryAfterMs: outcome === 'admitted' ? 0 : 1000,
  windows: [],
});

/** The peek of a limiter whose peeks a test does not expect. */
const notPeeked = (): Promise<never> => Promise.reject(new Error('no peek expected'));

describe('countedRateLimiter', () => {
  it('counts the answers a shared limiter gives from memory, and keeps giving them', async () => {
    const counted: DecisionLabel[] = [];
    const limiter = countedRateLimiter(
      {
        admit: async () => decision('rate_limited'),
        peek: notPeeked,
        answerLocally: (subject) => (subject === 'key:banned' ? decision('key_banned') : undefined),
      },
      (label) => counted.push(label),
    );
    expect(limiter.answerLocally?.('key:banned', PLAN_POLICIES.free)?.outcome).toBe('key_banned');
    expect(limiter.answerLocally?.('key:other', PLAN_POLICIES.free)).toBeUndefined();
    expect((await limiter.admit('key:other', PLAN_POLICIES.free)).outcome).toBe('rate_limited');
    expect(counted).toEqual(['banned', 'limited']);
  });

  it('passes on an answer that the limiter cannot decide, and counts it as no decision', async () => {
    const counted: DecisionLabel[] = [];
    const limiter = countedRateLimiter(
      { admit: async () => ({ outcome: 'unavailable', reason: 'down' }), peek: notPeeked },
      (label) => counted.push(label),
    );
    expect((await limiter.admit('key:a', PLAN_POLICIES.free)).outcome).toBe('unavailable');
    expect(counted).toEqual([]);
  });

  it('has no local answers when the limiter it wraps has none', () => {
    const limiter = countedRateLimiter({ admit: async () => decision('admitted'), peek: notPeeked }, () => {});
    expect('answerLocally' in limiter).toBe(false);
  });
});
