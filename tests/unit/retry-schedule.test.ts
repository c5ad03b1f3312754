import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, verdictOf } from '../../src/domain/retry-schedule.js';

const schedule = { firstDelayMs: 1_000, maxDelayMs: 8_000, windowMs: 60_000 };
const T0 = Date.UTC(2026, 0, 1);

describe('the wait before a failed delivery is tried again', () => {
  it('doubles with each failure from the first delay, up to the longest wait', () => {
    expect([1, 2, 3, 4, 5, 6].map((failures) => retryDelayMs(failures, 1, schedule))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });

  it('is never below half its step, whatever is drawn: half is fixed, half is jitter', () => {
    expect(retryDelayMs(3, 0, schedule)).toBe(2_000);
    expect(retryDelayMs(3, 0.5, schedule)).toBe(3_000);
    expect(retryDelayMs(3, 1, schedule)).toBe(4_000);
  });

  it('takes a count below one as the first failure, and stays capped however many failures', () => {
    expect(retryDelayMs(0, 1, schedule)).toBe(1_000);
    expect(retryDelayMs(10_000, 1, schedule)).toBe(8_000);
    expect(retryDelayMs(10_000, 1, DEFAULT_RETRY_SCHEDULE)).toBe(3_600_000);
  });

  it('is whole milliseconds', () => {
    expect(retryDelayMs(1, 0.3333, schedule)).toBe(667);
  });

  it('by default starts at 5 s and tops out at an hour, for a day', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toEqual({ firstDelayMs: 5_000, maxDelayMs: 3_600_000, windowMs: 86_400_000 });
  });
});

describe('the verdict of an attempt', () => {
  const fresh = { createdAtMs: T0, failingSinceMs: null };

  it('delivers on success, with nothing more to try and the endpoint kept', () => {
    expect(verdictOf({ ok: true, atMs: T0, failures: 0, random: 0 }, fresh, schedule)).toEqual({
      delivered: true,
      nextAttemptMs: null,
      disableEndpoint: false,
    });
  });

  it('tries a failure again after its wait', () => {
    expect(verdictOf({ ok: false, atMs: T0 + 10, failures: 2, random: 1 }, fresh, schedule)).toEqual({
      delivered: false,
      nextAttemptMs: T0 + 10 + 2_000,
      disableEndpoint: false,
    });
  });

  it('still tries again when the next attempt falls at the end of the window, and gives up past it', () => {
    const atEnd = { ok: false, atMs: T0 + 59_000, failures: 1, random: 1 };
    expect(verdictOf(atEnd, fresh, schedule).nextAttemptMs).toBe(T0 + 60_000);
    const pastEnd = { ...atEnd, atMs: T0 + 59_001 };
    expect(verdictOf(pastEnd, fresh, schedule)).toEqual({
      delivered: false,
      nextAttemptMs: null,
      disableEndpoint: false,
    });
  });

  it('disables an endpoint that has failed for the whole window, and not a millisecond sooner', () => {
    const failing = { createdAtMs: T0 + 50_000, failingSinceMs: T0 };
    const attempt = { ok: false, failures: 1, random: 0 };
    expect(verdictOf({ ...attempt, atMs: T0 + 59_999 }, failing, schedule).disableEndpoint).toBe(false);
    expect(verdictOf({ ...attempt, atMs: T0 + 60_000 }, failing, schedule).disableEndpoint).toBe(true);
  });

  it('counts a first failure as the start of the endpoint failing', () => {
    const attempt = { ok: false, atMs: T0 + 120_000, failures: 1, random: 0 };
    expect(verdictOf(attempt, { createdAtMs: T0 + 120_000, failingSinceMs: null }, schedule).disableEndpoint).toBe(
      false,
    );
  });
});
