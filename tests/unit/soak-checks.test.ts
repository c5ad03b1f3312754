import { describe, expect, it } from 'vitest';
import {
  type Change,
  checkAcknowledged,
  checkCommits,
  checkKeyed,
  checkReplay,
  checkRss,
  rssFigures,
  serverErrorsOutsideWindows,
} from '../../bench/soak/checks.js';
import { faultSchedule } from '../../bench/soak/faults.js';
import { nextLink } from '../../bench/soak/history.js';
import { WRITE_BASE } from '../../bench/soak/load.js';
import type { RssSample } from '../../bench/soak/stack.js';

const change = (id: number, quantityBefore: number, quantityAfter: number): Change => ({
  id: String(id),
  quantityBefore,
  quantityAfter,
});
/** Pet 1's history, newest first: 5 -> 1000 (write 0) -> 1002 (write 2). */
const history = (): Map<number, Change[]> =>
  new Map([[1, [change(2, WRITE_BASE, WRITE_BASE + 2), change(1, 5, WRITE_BASE)]]]);

describe('the soak checks acknowledged writes against the history', () => {
  it('passes when each acknowledged write is there once', () => {
    expect(
      checkAcknowledged(
        [
          { n: 0, petId: 1 },
          { n: 2, petId: 1 },
        ],
        history(),
      ),
    ).toEqual([]);
  });

  it('reports an acknowledged write that is missing', () => {
    expect(checkAcknowledged([{ n: 7, petId: 1 }], history())).toEqual([
      'acknowledged write 7 of pet 1 is in its history 0 times',
    ]);
  });

  it('reports a write that is there twice', () => {
    const twice = new Map([[1, [change(2, WRITE_BASE, WRITE_BASE), change(1, 5, WRITE_BASE)]]]);
    expect(checkAcknowledged([{ n: 0, petId: 1 }], twice)).toEqual([
      'acknowledged write 0 of pet 1 is in its history 2 times',
      `pet 1: quantity ${WRITE_BASE} written twice`,
    ]);
  });
});

describe('the soak replays each history', () => {
  it('passes when the chain is unbroken and ends at the quantity served', () => {
    expect(checkReplay(history(), new Map([[1, WRITE_BASE + 2]]))).toEqual([]);
  });

  it('reports a break in the chain and a final quantity the history does not give', () => {
    const broken = new Map([[1, [change(2, 9, 10), change(1, 5, WRITE_BASE)]]]);
    expect(checkReplay(broken, new Map([[1, 11]]))).toEqual([
      `pet 1: change 2 starts at 9, the chain was at ${WRITE_BASE}`,
      'pet 1: quantity 11, its history replayed gives 10',
    ]);
  });
});

describe('the soak allows 5xx only inside fault windows', () => {
  const window = { kind: 'Redis paused' as const, startMs: 10_000, recoveredMs: 15_000, endMs: 20_000 };

  it('keeps a 502 or a missing answer outside every window, and lets one overlapping a window pass', () => {
    const answers = [
      { kind: 'patch' as const, startMs: 9_000, endMs: 10_500, status: 502 },
      { kind: 'item' as const, startMs: 21_000, endMs: 21_100, status: 502 },
      { kind: 'list' as const, startMs: 22_000, endMs: 22_100, status: 0 },
      { kind: 'list' as const, startMs: 23_000, endMs: 23_100, status: 200 },
    ];
    expect(serverErrorsOutsideWindows(answers, [window]).map((a) => a.startMs)).toEqual([21_000, 22_000]);
  });
});

describe('the soak judges RSS per process', () => {
  const samples = (pid: number, lifeS: number, kib: (s: number) => number): RssSample[] =>
    Array.from({ length: lifeS + 1 }, (_, s) => ({ instance: 0, pid, atMs: s * 1000, kib: kib(s) }));

  it('compares a long life after its first minute with the end of that minute', () => {
    const [figure] = rssFigures(samples(1, 180, (s) => (s <= 60 ? 100_000 : 125_000)));
    expect(figure).toMatchObject({ rule: 'after first minute', baselineKib: 100_000, peakKib: 125_000 });
    expect(checkRss(rssFigures(samples(1, 180, (s) => (s <= 60 ? 100_000 : 125_000))))).toHaveLength(1);
    expect(checkRss(rssFigures(samples(1, 180, (s) => (s <= 60 ? 100_000 : 110_000))))).toEqual([]);
  });

  it('compares a short life second half with first half, and leaves one under 30 s unjudged', () => {
    const [short] = rssFigures(samples(2, 90, (s) => (s <= 45 ? 100_000 : 130_000)));
    expect(short).toMatchObject({ rule: 'second half vs first half', baselineKib: 100_000, peakKib: 130_000 });
    expect(checkRss(rssFigures(samples(3, 20, (s) => (s <= 10 ? 10 : 1_000))))).toEqual([]);
  });
});

describe('the soak schedule and paging', () => {
  it('injects each of the three faults once in 90 s, none in the last 25 s', () => {
    expect(faultSchedule(90_000)).toEqual([
      { atMs: 15_000, kind: 'kill -9 of instance 2' },
      { atMs: 40_000, kind: 'PostgreSQL restart' },
      { atMs: 65_000, kind: 'Redis paused' },
    ]);
  });

  it('follows rel="next" and nothing else', () => {
    expect(nextLink('</v1/inventory/1/changes?before=5&limit=100>; rel="next"')).toBe(
      '/v1/inventory/1/changes?before=5&limit=100',
    );
    expect(nextLink('</a>; rel="deprecation"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});

const keyedChange = (id: number, before: number, kind: string, reason: string | null): Change => ({
  id: String(id),
  quantityBefore: before,
  quantityAfter: kind === 'reservation_commit' ? before - 1 : before + 1,
  kind,
  reason,
});

describe('the soak checks acknowledged adjustments, batches and reservation commits against the history', () => {
  const histories = (): Map<number, Change[]> =>
    new Map([
      [
        1,
        [
          keyedChange(3, 7, 'reservation_commit', null),
          keyedChange(2, 6, 'adjust', 'soak-batch-2'),
          keyedChange(1, 5, 'adjust', 'soak-adjustment-1'),
        ],
      ],
      [2, [keyedChange(4, 5, 'adjust', 'soak-batch-2')]],
    ]);

  it('passes when each is there once, and a quantity seen again after an adjustment is no set written twice', () => {
    expect(
      checkKeyed(
        [
          { kind: 'adjustment', reason: 'soak-adjustment-1', petIds: [1] },
          { kind: 'batch', reason: 'soak-batch-2', petIds: [1, 2] },
        ],
        histories(),
      ),
    ).toEqual([]);
    expect(checkAcknowledged([], histories())).toEqual([]);
    expect(
      checkCommits([{ id: 'r1', petId: 1, committed: true }], new Map([['r1', 'committed']]), histories()),
    ).toEqual([]);
  });

  it('reports an acknowledged one missing from a pet, and one written twice', () => {
    const twice = histories();
    twice.get(2)?.unshift(keyedChange(5, 6, 'adjust', 'soak-batch-2'));
    expect(checkKeyed([{ kind: 'batch', reason: 'soak-batch-9', petIds: [2] }], twice)).toEqual([
      'acknowledged batch soak-batch-9 of pet 2 is in its history 0 times',
      'pet 2: soak-batch-2 written twice',
    ]);
  });

  it('reports a commit acknowledged but not committed, and a commit the history lacks or has twice', () => {
    expect(
      checkCommits(
        [
          { id: 'r1', petId: 1, committed: true },
          { id: 'r2', petId: 1, committed: false },
        ],
        new Map([
          ['r1', 'held'],
          ['r2', 'committed'],
        ]),
        histories(),
      ),
    ).toEqual(['reservation r1 of pet 1: commit acknowledged, state held']);
    expect(checkCommits([], new Map(), histories())).toEqual([
      'pet 1: 0 reservations committed, 1 commits in its history',
    ]);
  });
});
