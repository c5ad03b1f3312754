import { describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import {
  changeKindOf,
  isReason,
  isStockChangeKind,
  REASON_MAX,
  STOCK_CHANGE_KINDS,
} from '../../src/domain/stock-change.js';
import {
  isStockRefusal,
  KEY_IN_USE,
  KEY_REUSED,
  refusalMessage,
  resultOf,
  STOCK_REFUSAL_CODES,
  type StockRefusal,
} from '../../src/domain/stock-outcome.js';

const PET = petId(7n);

describe('what a person reads about a refused stock order', () => {
  it.each<[string, StockRefusal]>([
    ['no pet has id 7', { index: 0, code: 'pet_not_found', petId: PET }],
    [
      'the stock of pet 7 is at version 4, not the one If-Match names; read it again',
      { index: 0, code: 'precondition_failed', petId: PET, currentVersion: 4 },
    ],
    [
      'pet 7 has 3 in stock: a delta of -5 would take it below 0',
      { index: 0, code: 'insufficient_stock', petId: PET, quantity: 3, delta: -5 },
    ],
    [
      'pet 7 has 3 in stock: a delta of -5 would take it below 0',
      { index: 0, code: 'insufficient_stock', petId: PET, quantity: 3, delta: -5, reserved: 0 },
    ],
    [
      'pet 7 has 5 in stock, 2 of it reserved: a delta of -4 would take more than the 3 available',
      { index: 0, code: 'insufficient_stock', petId: PET, quantity: 5, delta: -4, reserved: 2 },
    ],
    [
      'pet 7 has 2 reserved: its stock cannot be set to 1, below that',
      { index: 0, code: 'quantity_below_reserved', petId: PET, quantity: 1, reserved: 2 },
    ],
    [
      'pet 7 has 5 in stock: a delta of 2147483647 would take it above 2147483647',
      { index: 0, code: 'quantity_limit_exceeded', petId: PET, quantity: 5, delta: 2_147_483_647 },
    ],
  ])('reads: %s', (message, refusal) => {
    expect(refusalMessage(refusal)).toBe(message);
  });
});

describe('the answer of a stock outcome', () => {
  it('of a refusal carries the first refusal’s code and message, and every refusal', () => {
    const refusals: StockRefusal[] = [
      { index: 0, code: 'precondition_failed', petId: PET, currentVersion: 4 },
      { index: 1, code: 'pet_not_found', petId: petId(8n) },
    ];
    expect(resultOf({ kind: 'refused', refusals }, true)).toEqual({
      ok: false,
      error: {
        code: 'precondition_failed',
        message: refusalMessage(refusals[0] as StockRefusal),
        refusals,
        replayed: true,
      },
    });
  });

  it('of a write carries its entries, and whether it is a replay', () => {
    expect(resultOf({ kind: 'written', entries: [] }, false)).toEqual({
      ok: true,
      value: { entries: [], replayed: false },
    });
  });

  it('of a refusal without one is a bug', () => {
    expect(() => resultOf({ kind: 'refused', refusals: [] }, false)).toThrow(
      'a refused outcome names at least one refusal',
    );
  });

  it('of a refused idempotency key says what to do', () => {
    expect(KEY_REUSED).toEqual({
      code: 'idempotency_key_reused',
      message: 'this Idempotency-Key was already used on another request; use a new key for a new request',
    });
    expect(KEY_IN_USE).toEqual({
      code: 'idempotency_key_in_use',
      message: 'a request with this Idempotency-Key is still being processed; retry once it has been answered',
    });
  });
});

describe('a stored refusal read back', () => {
  it.each<StockRefusal>([
    { index: 0, code: 'pet_not_found', petId: PET },
    { index: 2, code: 'precondition_failed', petId: PET, currentVersion: 4 },
    { index: 0, code: 'insufficient_stock', petId: PET, quantity: 3, delta: -5 },
    { index: 0, code: 'quantity_below_reserved', petId: PET, quantity: 1, reserved: 2 },
    { index: 0, code: 'quantity_limit_exceeded', petId: PET, quantity: 5, delta: 9 },
  ])('$code at index $index is a refusal with every number its code carries', (refusal) => {
    expect(isStockRefusal(refusal)).toBe(true);
  });

  it.each([
    { index: 0, code: 'pet_gone', petId: PET },
    { index: 0, code: 'toString', petId: PET },
    { code: 'pet_not_found', petId: PET },
    { index: 0.5, code: 'pet_not_found', petId: PET },
    { index: 0, code: 'pet_not_found', petId: 7 },
    { index: 0, code: 'precondition_failed', petId: PET },
    { index: 0, code: 'insufficient_stock', petId: PET, quantity: 3 },
    { index: 0, code: 'insufficient_stock', petId: PET, delta: -5 },
    { index: 0, code: 'quantity_below_reserved', petId: PET, quantity: 1, reserved: '2' },
    { index: 0, code: 'quantity_limit_exceeded', petId: PET, quantity: 5 },
  ])('case %# is not a refusal as the core makes it', (value) => {
    expect(isStockRefusal(value)).toBe(false);
  });

  it('has one of five codes', () => {
    expect([...STOCK_REFUSAL_CODES].sort()).toEqual([
      'insufficient_stock',
      'pet_not_found',
      'precondition_failed',
      'quantity_below_reserved',
      'quantity_limit_exceeded',
    ]);
  });
});

describe('a stock change', () => {
  it.each(STOCK_CHANGE_KINDS)('may be of kind %s, read back as it was stored', (kind) => {
    expect(isStockChangeKind(kind)).toBe(true);
    expect(changeKindOf(kind)).toBe(kind);
  });

  it('of another kind is a corrupt record', () => {
    expect(isStockChangeKind('commit')).toBe(false);
    expect(() => changeKindOf('commit')).toThrow('commit is not a kind of stock change');
  });

  it(`has a reason of 1 to ${REASON_MAX} characters, each counted once however it is encoded`, () => {
    expect(isReason('x')).toBe(true);
    expect(isReason('x'.repeat(REASON_MAX))).toBe(true);
    expect(isReason('🐈'.repeat(REASON_MAX))).toBe(true);
    expect(isReason('')).toBe(false);
    expect(isReason('x'.repeat(REASON_MAX + 1))).toBe(false);
    expect(isReason('🐈'.repeat(REASON_MAX + 1))).toBe(false);
  });

  it('has a reason without control characters', () => {
    expect(isReason('sold\nat the fair')).toBe(false);
    expect(isReason('sold \u202Eat the fair')).toBe(false);
  });
});
