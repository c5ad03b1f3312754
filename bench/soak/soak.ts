import { setTimeout as delay } from 'node:timers/promises';
import {
  type Change,
  checkAcknowledged,
  checkCommits,
  checkKeyed,
  checkReplay,
  checkRss,
  type RssFigure,
  rssFigures,
  serverErrorsOutsideWindows,
} from './checks.js';
import { type FaultWindow, faultSchedule, runFaults } from './faults.js';
import { readHistory, readQuantity, readReservationState } from './history.js';
import { type Answered, runLoad } from './load.js';
import { type RssSample, startSoakStack } from './stack.js';

export interface SoakOptions {
  readonly durationMs: number;
  /** Concurrent clients; 4 keeps a 2-core machine's load modest. */
  readonly clients?: number;
  /** The most requests a second, all clients together. */
  readonly ratePerSecond?: number;
  readonly pets?: number;
}

export interface SoakReport {
  readonly durationMs: number;
  readonly answers: readonly Answered[];
  readonly acknowledged: number;
  /** Adjustments, batches and reservation commits acknowledged. */
  readonly acknowledgedKeyed: { readonly adjustments: number; readonly batches: number; readonly commits: number };
  readonly windows: readonly FaultWindow[];
  readonly rss: readonly RssFigure[];
  readonly changesChecked: number;
  /** Empty when every check passed. */
  readonly failures: readonly string[];
}

const RSS_EVERY_MS = 1_000;

/**
 * Runs the soak: the stack on 127.0.0.1, a bounded mixed load, faults on a schedule, then the checks.
 * Resolves with the report; a failed check is in `failures`, never thrown.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const stack = await startSoakStack(options.pets ?? 20);
  try {
    const startedAt = performance.now();
    const now = (): number => performance.now() - startedAt;
    // Set when a fault cannot be injected or recovered from: the load stops too, and the error is thrown.
    let halted = false;
    const over = (): boolean => halted || now() >= options.durationMs;
    const samples: RssSample[] = [];
    const sampling = (async () => {
      while (!over()) {
        samples.push(...(await stack.sampleRss(now())));
        await delay(RSS_EVERY_MS);
      }
    })();
    const [load, windows] = await Promise.all([
      runLoad({
        url: stack.url,
        key: stack.key,
        petIds: stack.petIds,
        clients: options.clients ?? 4,
        ratePerSecond: options.ratePerSecond ?? 100,
        startedAt,
        until: over,
      }),
      runFaults(stack, faultSchedule(options.durationMs), now).catch((error: unknown) => {
        halted = true;
        throw error;
      }),
    ]);
    await sampling;

    const histories = new Map<number, Change[]>();
    const finals = new Map<number, number>();
    for (const petId of stack.petIds) {
      histories.set(petId, await readHistory(stack.url, stack.key, petId));
      finals.set(petId, await readQuantity(stack.url, stack.key, petId));
    }
    const states = new Map<string, string>();
    for (const { id } of load.reservations) states.set(id, await readReservationState(stack.url, stack.key, id));
    const rss = rssFigures(samples);
    const outside = serverErrorsOutsideWindows(load.answers, windows);
    const failures = [
      ...checkAcknowledged(load.acknowledged, histories),
      ...checkKeyed(load.keyed, histories),
      ...checkCommits(load.reservations, states, histories),
      ...checkReplay(histories, finals),
      ...outside.map(
        (a) =>
          `${a.kind} answered ${a.status || 'nothing'} at ${(a.startMs / 1000).toFixed(1)}-${(a.endMs / 1000).toFixed(1)} s, outside every fault window`,
      ),
      ...checkRss(rss),
    ];
    if (windows.length === 0) failures.push('no fault was injected: the run is too short for the schedule');
    return {
      durationMs: options.durationMs,
      answers: load.answers,
      acknowledged: load.acknowledged.length,
      acknowledgedKeyed: {
        adjustments: load.keyed.filter((k) => k.kind === 'adjustment').length,
        batches: load.keyed.filter((k) => k.kind === 'batch').length,
        commits: load.reservations.filter((r) => r.committed).length,
      },
      windows,
      rss,
      changesChecked: [...histories.values()].reduce((sum, h) => sum + h.length, 0),
      failures,
    };
  } finally {
    await stack.stop();
  }
}
