import { setTimeout as delay } from 'node:timers/promises';
import type { SoakStack } from './stack.js';

/** How long after a fault's recovery its answers may still be 5xx: nginx's fail_timeout (5 s) and a pool's reconnect. */
export const GRACE_MS = 5_000;
/** How long Redis stays frozen. */
const PAUSE_MS = 5_000;

export type FaultKind = 'kill -9 of instance 2' | 'PostgreSQL restart' | 'Redis paused';

/** One fault injected: from its start to GRACE_MS after its recovery, 5xx answers are allowed. */
export interface FaultWindow {
  readonly kind: FaultKind;
  readonly startMs: number;
  readonly recoveredMs: number;
  readonly endMs: number;
}

const KINDS: readonly FaultKind[] = ['kill -9 of instance 2', 'PostgreSQL restart', 'Redis paused'];

/**
 * When faults start: the first at 15 s, then one every `spacingMs`, turning through the three kinds,
 * and none in the last 25 s, so that the run ends on a recovered system.
 */
export function faultSchedule(durationMs: number): { atMs: number; kind: FaultKind }[] {
  const spacingMs = durationMs < 120_000 ? 25_000 : 40_000;
  const schedule: { atMs: number; kind: FaultKind }[] = [];
  for (let atMs = 15_000, i = 0; atMs <= durationMs - 25_000; atMs += spacingMs, i += 1) {
    schedule.push({ atMs, kind: KINDS[i % KINDS.length] as FaultKind });
  }
  return schedule;
}

/**
 * Injects one fault and resolves once the system has recovered from it. Only the second instance is
 * killed, so that the first one lives through the whole run and its RSS says whether memory grows.
 */
async function inject(stack: SoakStack, kind: FaultKind): Promise<void> {
  switch (kind) {
    case 'kill -9 of instance 2':
      await stack.killInstance(1);
      await stack.startInstance(1);
      return;
    case 'PostgreSQL restart':
      // Immediate shutdown, as a crash: the server recovers from its WAL on the next start.
      await stack.postgres.kill();
      await stack.postgres.start();
      return;
    case 'Redis paused':
      stack.redis.pause();
      try {
        await delay(PAUSE_MS);
      } finally {
        stack.redis.resume();
      }
  }
}

/** Runs the schedule against the stack; `now` is ms since the soak began. */
export async function runFaults(
  stack: SoakStack,
  schedule: readonly { atMs: number; kind: FaultKind }[],
  now: () => number,
): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  for (const { atMs, kind } of schedule) {
    const wait = atMs - now();
    if (wait > 0) await delay(wait);
    const startMs = now();
    await inject(stack, kind);
    const recoveredMs = now();
    windows.push({ kind, startMs, recoveredMs, endMs: recoveredMs + GRACE_MS });
  }
  return windows;
}
