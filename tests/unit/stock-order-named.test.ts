import { describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { firstPetOf, isStockOrderKind, stockOrderNamed } from '../../src/domain/stock-command.js';
import { aCommand, setTo } from '../../src/testing/index.js';

const pet = { petId: petId(7n), ifVersion: [3], reason: 'recount' };

describe('an order named by its value (a batch’s entry)', () => {
  it('is a set when the entry names a quantity, and an adjustment when it names a delta', () => {
    expect(stockOrderNamed({ quantity: 4 }, pet)).toEqual({ ok: true, value: { kind: 'set', quantity: 4, ...pet } });
    expect(stockOrderNamed({ delta: -2, other: 'ignored' }, pet)).toEqual({
      ok: true,
      value: { kind: 'adjust', delta: -2, ...pet },
    });
  });

  it('is refused when the entry names neither value, or both', () => {
    const refusal = { ok: false, error: 'takes quantity or delta, one of them' };
    expect(stockOrderNamed({}, pet)).toEqual(refusal);
    expect(stockOrderNamed({ quantity: undefined }, pet)).toEqual(refusal);
    expect(stockOrderNamed({ quantity: 4, delta: 1 }, pet)).toEqual(refusal);
  });

  it('is refused when its value is not one its kind takes, saying which', () => {
    expect(stockOrderNamed({ delta: 0 }, pet)).toEqual({ ok: false, error: '0 is not a delta a adjust order takes' });
    expect(stockOrderNamed({ quantity: -1 }, pet)).toEqual({
      ok: false,
      error: '-1 is not a quantity a set order takes',
    });
  });
});

describe('a kind of stock order', () => {
  it('is a string naming one: not an object that turns into one', () => {
    expect(isStockOrderKind('set')).toBe(true);
    expect(isStockOrderKind({ toString: () => 'set' })).toBe(false);
    expect(isStockOrderKind('toString')).toBe(false);
  });
});

describe('the first pet of a stock command', () => {
  it('is its first order’s pet', () => {
    expect(firstPetOf(aCommand([setTo(2n, 1), setTo(1n, 1)]))).toBe(2n);
  });

  it('is a bug to ask of a command without orders', () => {
    expect(() => firstPetOf(aCommand([]))).toThrow(new Error('a stock command names one pet at least'));
  });
});
