import type { BanState } from '../../domain/ban.js';
import type { SubjectState } from '../../domain/rate-limit.js';
import type { WindowCounter } from '../../domain/sliding-window.js';

/** One subject of a limiter snapshot: its name, and its state as text only this file reads and writes. */
export interface LimiterSubjectRecord {
  readonly subject: string;
  readonly state: string;
}

/**
 * The written form of a subject's state. Times and bucket indexes are absolute (Unix milliseconds, and
 * milliseconds divided by the bucket length), so a state read back later needs no shifting: what has
 * expired meanwhile expires on the next decision. `null` stands for minus infinity ("never").
 */
interface WrittenState {
  readonly v: 1;
  /** Minute and day windows: [bucket, count] pairs oldest first, and the newest bucket written. */
  readonly m: readonly (readonly [number, number])[];
  readonly mn: number | null;
  readonly d: readonly (readonly [number, number])[];
  readonly dn: number | null;
  /** The ban: strike times, banned until, last ban at, level. */
  readonly s: readonly number[];
  readonly u: number;
  readonly l: number | null;
  readonly lv: number;
}

const finiteOrNull = (n: number): number | null => (Number.isFinite(n) ? n : null);

/** Writes a subject's state as text. */
export function writeSubjectState(state: SubjectState): string {
  const written: WrittenState = {
    v: 1,
    m: [...state.minute.buckets],
    mn: finiteOrNull(state.minute.newest),
    d: [...state.day.buckets],
    dn: finiteOrNull(state.day.newest),
    s: state.ban.strikes,
    u: state.ban.bannedUntilMs,
    l: finiteOrNull(state.ban.lastBanAtMs),
    lv: state.ban.level,
  };
  return JSON.stringify(written);
}

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);
const isIntegerOrNull = (value: unknown): value is number | null => value === null || isInteger(value);

function counterOf(buckets: unknown, newest: unknown): WindowCounter | undefined {
  if (!Array.isArray(buckets) || !isIntegerOrNull(newest)) return undefined;
  const counter: WindowCounter = { buckets: new Map(), total: 0, newest: newest ?? Number.NEGATIVE_INFINITY };
  let previous = Number.NEGATIVE_INFINITY;
  for (const pair of buckets) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [bucket, count] = pair as unknown[];
    // The window's expiry walks buckets in insertion order and stops at the first young one: they must
    // come back oldest first, and counted.
    if (!isInteger(bucket) || !isInteger(count) || count < 1 || bucket <= previous) return undefined;
    previous = bucket;
    counter.buckets.set(bucket, count);
    counter.total += count;
  }
  return counter;
}

function banOf(w: Partial<Record<keyof WrittenState, unknown>>): BanState | undefined {
  const { s: strikes, u: bannedUntilMs, l: lastBanAtMs, lv: level } = w;
  if (!Array.isArray(strikes) || !strikes.every(isInteger)) return undefined;
  if (!isInteger(bannedUntilMs) || !isIntegerOrNull(lastBanAtMs) || !isInteger(level) || level < -1) return undefined;
  return { strikes: [...strikes], bannedUntilMs, lastBanAtMs: lastBanAtMs ?? Number.NEGATIVE_INFINITY, level };
}

/**
 * Reads back a state written by {@link writeSubjectState}; `undefined` for text it cannot trust (another
 * format, or damage), so a bad record costs that subject its history and nothing more.
 */
export function readSubjectState(text: string): SubjectState | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const w = parsed as Partial<Record<keyof WrittenState, unknown>>;
  if (w.v !== 1) return undefined;
  const minute = counterOf(w.m, w.mn);
  const day = counterOf(w.d, w.dn);
  const ban = banOf(w);
  return minute === undefined || day === undefined || ban === undefined ? undefined : { minute, day, ban };
}
