/**
 * Where a reader of the change feed stands: after the change `id` of the transaction `txn`. The feed
 * is ordered by (txn, id), the order in which changes become visible: a store whose ids are given in
 * commit order (SQLite, memory) says txn 0 for every change; PostgreSQL, whose sequence values are not
 * committed in their order, says the writing transaction's id (see docs/decisions.md).
 */
export interface FeedPosition {
  readonly txn: bigint;
  readonly id: bigint;
}

/** Before every change: where a reader without a cursor starts. */
export const FEED_START: FeedPosition = { txn: 0n, id: 0n };

const INT64_MAX = 2n ** 63n - 1n;

// Two non-negative decimal int64s, without leading zeros, joined by a dot.
const CURSOR = /^(0|[1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,18})$/;

/** The cursor a client passes back: `<txn>.<id>`, both in decimal. */
export const feedCursor = (position: FeedPosition): string => `${position.txn}.${position.id}`;

/** A cursor as a position; undefined when the text is not one this service gave. */
export function parseFeedCursor(text: string): FeedPosition | undefined {
  const match = CURSOR.exec(text);
  if (match === null) return undefined;
  const txn = BigInt(match[1] as string);
  const id = BigInt(match[2] as string);
  return txn > INT64_MAX || id > INT64_MAX ? undefined : { txn, id };
}

/** Whether `a` comes before `b` in the feed. */
export const isBefore = (a: FeedPosition, b: FeedPosition): boolean =>
  a.txn < b.txn || (a.txn === b.txn && a.id < b.id);
