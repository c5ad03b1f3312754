import type { FaultWindow } from './faults.js';
import type { AcknowledgedKeyed, MadeReservation } from './keyed-writes.js';
import type { Acknowledged, Answered } from './load.js';
import { WRITE_BASE } from './load.js';
import { type RssSample, START_QUANTITY } from './stack.js';

/** The most an instance's RSS may grow after its first minute (or from its first half to its second). */
export const RSS_GROWTH_LIMIT = 0.2;
/** A process that lived less than this is not judged on memory: its figures would be its start. */
const RSS_MIN_LIFE_MS = 30_000;

export interface Change {
  readonly id: string;
  readonly quantityBefore: number;
  readonly quantityAfter: number;
  /** `set`, `adjust` or `reservation_commit`; absent: a set. */
  readonly kind?: string;
  readonly reason?: string | null;
}

const isSet = (change: Change): boolean => change.kind === undefined || change.kind === 'set';

/** Every change of every acknowledged write is in its pet's history exactly once. */
export function checkAcknowledged(acknowledged: readonly Acknowledged[], histories: Map<number, Change[]>): string[] {
  const failures: string[] = [];
  for (const { n, petId } of acknowledged) {
    const found = (histories.get(petId) ?? []).filter((c) => isSet(c) && c.quantityAfter === WRITE_BASE + n).length;
    if (found !== 1) failures.push(`acknowledged write ${n} of pet ${petId} is in its history ${found} times`);
  }
  // Writes never acknowledged may have landed (an answer lost with its instance), but never twice.
  for (const [petId, history] of histories) {
    const seen = new Set<number>();
    for (const change of history.filter(isSet)) {
      if (seen.has(change.quantityAfter)) failures.push(`pet ${petId}: quantity ${change.quantityAfter} written twice`);
      seen.add(change.quantityAfter);
    }
  }
  return failures;
}

/**
 * Every acknowledged adjustment and batch has one change in each of its pets' histories, found by its
 * reason, which names it alone; and no reason of the load is in a pet's history twice.
 */
export function checkKeyed(keyed: readonly AcknowledgedKeyed[], histories: Map<number, Change[]>): string[] {
  const failures: string[] = [];
  for (const { kind, reason, petIds } of keyed) {
    for (const petId of petIds) {
      const found = (histories.get(petId) ?? []).filter((c) => c.reason === reason).length;
      if (found !== 1) failures.push(`acknowledged ${kind} ${reason} of pet ${petId} is in its history ${found} times`);
    }
  }
  for (const [petId, history] of histories) {
    const seen = new Set<string>();
    for (const { reason } of history) {
      if (reason === undefined || reason === null) continue;
      if (seen.has(reason)) failures.push(`pet ${petId}: ${reason} written twice`);
      seen.add(reason);
    }
  }
  return failures;
}

/**
 * Every reservation whose commit was acknowledged is committed, and each pet's history has one
 * reservation commit for each of its reservations that is committed (`states`: as read at the end).
 */
export function checkCommits(
  reservations: readonly MadeReservation[],
  states: Map<string, string>,
  histories: Map<number, Change[]>,
): string[] {
  const failures: string[] = [];
  for (const { id, petId, committed } of reservations) {
    if (committed && states.get(id) !== 'committed') {
      failures.push(`reservation ${id} of pet ${petId}: commit acknowledged, state ${states.get(id)}`);
    }
  }
  for (const [petId, history] of histories) {
    const recorded = history.filter((c) => c.kind === 'reservation_commit').length;
    const committed = reservations.filter((r) => r.petId === petId && states.get(r.id) === 'committed').length;
    if (recorded !== committed) {
      failures.push(`pet ${petId}: ${committed} reservations committed, ${recorded} commits in its history`);
    }
  }
  return failures;
}

/**
 * Each pet's history (newest first, as served) is one unbroken chain from the seeded quantity, and its
 * newest entry's quantityAfter is the quantity the pet has now.
 */
export function checkReplay(histories: Map<number, Change[]>, finals: Map<number, number>): string[] {
  const failures: string[] = [];
  for (const [petId, history] of histories) {
    const oldestFirst = [...history].reverse();
    let quantity = START_QUANTITY;
    for (const change of oldestFirst) {
      if (change.quantityBefore !== quantity) {
        failures.push(
          `pet ${petId}: change ${change.id} starts at ${change.quantityBefore}, the chain was at ${quantity}`,
        );
      }
      quantity = change.quantityAfter;
    }
    if (finals.get(petId) !== quantity) {
      failures.push(`pet ${petId}: quantity ${finals.get(petId)}, its history replayed gives ${quantity}`);
    }
  }
  return failures;
}

const overlaps = (a: Answered, w: FaultWindow): boolean => a.startMs <= w.endMs && a.endMs >= w.startMs;

/** Answers that are 5xx, or no answer at all, while no fault window was open. */
export function serverErrorsOutsideWindows(answers: readonly Answered[], windows: readonly FaultWindow[]): Answered[] {
  return answers.filter((a) => (a.status === 0 || a.status >= 500) && !windows.some((w) => overlaps(a, w)));
}

export interface RssFigure {
  readonly instance: number;
  readonly pid: number;
  readonly lifeMs: number;
  /** How `baselineKib` was taken: at the end of the first minute, or the peak of the first half. */
  readonly rule: 'after first minute' | 'second half vs first half' | 'too short to judge';
  readonly baselineKib: number;
  readonly peakKib: number;
  readonly growth: number;
}

const peak = (samples: readonly RssSample[]): number => Math.max(0, ...samples.map((s) => s.kib));

/**
 * Per process (a restarted instance is a new one): a process that lived 2 minutes or more is judged on
 * its peak after its first minute against its RSS at the end of that minute; a shorter one on its second
 * half's peak against its first half's.
 */
export function rssFigures(samples: readonly RssSample[]): RssFigure[] {
  const pids = [...new Set(samples.map((s) => s.pid))];
  return pids.map((pid) => {
    const own = samples.filter((s) => s.pid === pid);
    const first = (own[0] as RssSample).atMs;
    const lifeMs = (own.at(-1) as RssSample).atMs - first;
    const instance = (own[0] as RssSample).instance;
    let rule: RssFigure['rule'];
    let before: RssSample[];
    let after: RssSample[];
    if (lifeMs >= 120_000) {
      rule = 'after first minute';
      before = own.filter((s) => s.atMs - first <= 60_000).slice(-1);
      after = own.filter((s) => s.atMs - first > 60_000);
    } else {
      rule = lifeMs < RSS_MIN_LIFE_MS ? 'too short to judge' : 'second half vs first half';
      before = own.filter((s) => s.atMs - first <= lifeMs / 2);
      after = own.filter((s) => s.atMs - first > lifeMs / 2);
    }
    const baselineKib = peak(before);
    const peakKib = peak(after);
    return {
      instance,
      pid,
      lifeMs,
      rule,
      baselineKib,
      peakKib,
      growth: baselineKib === 0 ? 0 : peakKib / baselineKib - 1,
    };
  });
}

export function checkRss(figures: readonly RssFigure[]): string[] {
  return figures
    .filter((f) => f.rule !== 'too short to judge' && f.growth >= RSS_GROWTH_LIMIT)
    .map(
      (f) =>
        `instance ${f.instance + 1} (pid ${f.pid}): RSS grew ${(f.growth * 100).toFixed(1)} % (${f.baselineKib} to ${f.peakKib} KiB, ${f.rule})`,
    );
}
