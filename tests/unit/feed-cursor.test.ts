import { describe, expect, it } from 'vitest';
import { FEED_START, feedCursor, isBefore, parseFeedCursor } from '../../src/domain/feed-cursor.js';

const INT64_MAX = 2n ** 63n - 1n;

describe('a change-feed cursor', () => {
  it('is the transaction and the change id in decimal, joined by a dot, and reads back as given', () => {
    const position = { txn: 42n, id: 7n };
    expect(feedCursor(position)).toBe('42.7');
    expect(parseFeedCursor('42.7')).toEqual(position);
    expect(parseFeedCursor(feedCursor(FEED_START))).toEqual(FEED_START);
    expect(parseFeedCursor(`${INT64_MAX}.${INT64_MAX}`)).toEqual({ txn: INT64_MAX, id: INT64_MAX });
  });

  it.each([
    '',
    '42',
    '42.',
    '.7',
    '42.7.1',
    '042.7',
    '42.07',
    '-1.7',
    '42.-7',
    '4a.7',
    ' 42.7',
    '42.7 ',
    '42,7',
    `${INT64_MAX + 1n}.0`,
    `0.${INT64_MAX + 1n}`,
    '99999999999999999999.0',
  ])('is not %j: only what this service gives is read', (text) => {
    expect(parseFeedCursor(text)).toBeUndefined();
  });
});

describe('the order of the feed', () => {
  it('is by transaction first, then by change id', () => {
    expect(isBefore({ txn: 1n, id: 9n }, { txn: 2n, id: 1n })).toBe(true);
    expect(isBefore({ txn: 2n, id: 1n }, { txn: 1n, id: 9n })).toBe(false);
    expect(isBefore({ txn: 1n, id: 1n }, { txn: 1n, id: 2n })).toBe(true);
    expect(isBefore({ txn: 1n, id: 2n }, { txn: 1n, id: 1n })).toBe(false);
  });

  it('puts no position before itself, and the start before every change', () => {
    expect(isBefore({ txn: 3n, id: 3n }, { txn: 3n, id: 3n })).toBe(false);
    expect(isBefore(FEED_START, { txn: 0n, id: 1n })).toBe(true);
  });
});
