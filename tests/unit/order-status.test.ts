import { describe, expect, it } from 'vitest';
import { isOrderStatus, ORDER_STATUSES } from '../../src/domain/order.js';

describe("a store order's status", () => {
  it.each(ORDER_STATUSES)('may be %s', (status) => {
    expect(isOrderStatus(status)).toBe(true);
  });

  it.each(['', 'Placed', 'shipped', 'cancelled', null, undefined, 1])('may not be %j', (status) => {
    expect(isOrderStatus(status)).toBe(false);
  });

  it('is one of placed, approved and delivered, in that order', () => {
    expect(ORDER_STATUSES).toEqual(['placed', 'approved', 'delivered']);
  });
});
