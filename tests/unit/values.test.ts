import { describe, expect, it } from 'vitest';
import { inventoryItem, statusAfterStockChange, stockLevel, withStock } from '../../src/domain/inventory-item.js';
import { PET_ID_MAX, PET_ID_MIN, parsePetId, petId } from '../../src/domain/pet-id.js';
import { isPetStatus } from '../../src/domain/pet-status.js';
import { ownLimitsOf, PLAN_POLICIES, policyForPlan, rateLimitPolicy } from '../../src/domain/plan.js';
import { isQuantity, QUANTITY_MAX, quantity } from '../../src/domain/quantity.js';

describe('PetId: a signed 64-bit integer, exact over its whole range', () => {
  it.each([
    ['0', 0n],
    ['42', 42n],
    ['-1', -1n],
    ['9223372036854775807', PET_ID_MAX],
    ['-9223372036854775808', PET_ID_MIN],
    ['9007199254740993', 9007199254740993n],
  ])('parses %s exactly', (text, expected) => {
    expect(parsePetId(text)).toBe(expected);
  });

  it.each([
    'abc',
    '1.5',
    '1e3',
    '99999999999999999999',
    '9223372036854775808',
    '-9223372036854775809',
    '',
    ' 1',
    '1 ',
    '+1',
    '-0',
    '007',
    '0x10',
    '١٢',
  ])('refuses %j', (text) => {
    expect(parsePetId(text)).toBeUndefined();
  });

  it('refuses to make an id outside int64 or from an unsafe number', () => {
    expect(() => petId(PET_ID_MAX + 1n)).toThrow(RangeError);
    expect(() => petId(2 ** 53)).toThrow(RangeError);
    expect(petId(7)).toBe(7n);
  });
});

describe('Quantity: an integer from 0 to 2,147,483,647', () => {
  it.each([0, 1, QUANTITY_MAX])('accepts %d', (n) => {
    expect(isQuantity(n)).toBe(true);
    expect(quantity(n)).toBe(n);
  });

  it.each([-1, 1.5, QUANTITY_MAX + 1, Number.NaN, Number.POSITIVE_INFINITY, 1e20, '1', null, true])(
    'refuses %j',
    (v) => {
      expect(isQuantity(v)).toBe(false);
    },
  );

  it('throws when made from a bad count', () => {
    expect(() => quantity(-1)).toThrow(RangeError);
  });
});

describe('PetStatus', () => {
  it('is one of available, pending, sold', () => {
    expect(['available', 'pending', 'sold'].every(isPetStatus)).toBe(true);
    expect(isPetStatus('lost')).toBe(false);
  });
});

describe('the status rule of a stock update', () => {
  it.each([
    ['available', 0, 'sold'],
    ['pending', 0, 'sold'],
    ['sold', 0, 'sold'],
    ['sold', 1, 'available'],
    ['available', 5, 'available'],
    ['pending', 5, 'pending'],
  ] as const)('moves %s with quantity %d to %s', (from, q, to) => {
    expect(statusAfterStockChange(from, quantity(q))).toBe(to);
  });

  it('keeps the pet id and sets the quantity', () => {
    const level = stockLevel(9n, 3, 'pending');
    expect(withStock(level, quantity(0))).toEqual({ petId: 9n, quantity: 0, status: 'sold' });
  });

  it('re-checks invariants when an item is made', () => {
    expect(() => inventoryItem(1n, -1, 'available', 0)).toThrow(RangeError);
    expect(() => inventoryItem(1n, 1, 'lost' as 'sold', 0)).toThrow(RangeError);
    expect(() => inventoryItem(1n, 1, 'available', 2)).toThrow(RangeError);
  });
});

describe('plans and their rate-limit policies', () => {
  it('holds the published limits', () => {
    expect(PLAN_POLICIES).toEqual({
      free: { perMinute: 60, perDay: 1_000 },
      pro: { perMinute: 300, perDay: 10_000 },
      business: { perMinute: 1_000, perDay: 100_000 },
    });
  });

  it('gives enterprise keys their own limits, and requires them', () => {
    expect(policyForPlan('enterprise', { perMinute: 5_000, perDay: 2_000_000 })).toEqual({
      perMinute: 5_000,
      perDay: 2_000_000,
    });
    expect(() => policyForPlan('enterprise')).toThrow(RangeError);
  });

  it('refuses custom limits on a fixed plan, so a key cannot raise its plan’s', () => {
    expect(() => policyForPlan('free', { perMinute: 1e6, perDay: 1e6 })).toThrow('the free plan has fixed limits');
    expect(policyForPlan('free')).toEqual(PLAN_POLICIES.free);
  });

  it('says which limits a key holds as its own: an enterprise key’s, none for a fixed plan', () => {
    expect(ownLimitsOf('enterprise', { perMinute: 5, perDay: 50 })).toEqual({ perMinute: 5, perDay: 50 });
    expect(ownLimitsOf('pro', PLAN_POLICIES.pro)).toBeUndefined();
    expect(() => ownLimitsOf('pro', PLAN_POLICIES.free)).toThrow('must carry that plan');
  });

  it.each([
    [0, 10],
    [10, 0],
    [1.5, 10],
    [10, 2e9],
  ])('refuses limits %d/min and %d/day', (m, d) => {
    expect(() => rateLimitPolicy(m, d)).toThrow(RangeError);
  });
});
