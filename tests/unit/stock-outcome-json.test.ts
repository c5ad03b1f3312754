import { describe, expect, it } from 'vitest';
import { decodeOutcome, encodeOutcome } from '../../src/adapters/sql/stock-outcome-json.js';
import { stockLevel } from '../../src/domain/inventory-item.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { StockOutcome } from '../../src/domain/stock-outcome.js';
import { INT64_MAX } from '../../src/testing/index.js';

const PET = petId(7n);

describe('stored outcomes of keyed writes', () => {
  it('read back exactly what was written, int64 ids and reasons included', () => {
    const written: StockOutcome = {
      kind: 'written',
      entries: [
        {
          change: {
            id: INT64_MAX,
            kind: 'adjust',
            before: stockLevel(INT64_MAX, 3, 'available'),
            after: stockLevel(INT64_MAX, 0, 'sold'),
            actor: 'key_a',
            atMs: 1_000,
            reason: 'sold at the fair',
          },
          version: 4,
          reserved: quantity(0),
        },
      ],
    };
    const refused: StockOutcome = {
      kind: 'refused',
      refusals: [
        { index: 0, code: 'pet_not_found', petId: petId(INT64_MAX) },
        { index: 2, code: 'precondition_failed', petId: PET, currentVersion: 9 },
      ],
    };
    expect(decodeOutcome(encodeOutcome(written), PET)).toEqual(written);
    expect(decodeOutcome(encodeOutcome(refused), PET)).toEqual(refused);
  });

  it('read the single-pet outcomes of 1.1, naming the request’s own pet in a refusal', () => {
    const change = {
      id: '12',
      petId: '7',
      before: [5, 'available'],
      after: [0, 'sold'],
      actor: 'key_a',
      atMs: 1_000,
    };
    expect(decodeOutcome(JSON.stringify({ kind: 'changed', change, version: 3 }), PET)).toEqual({
      kind: 'written',
      entries: [
        {
          change: {
            id: 12n,
            kind: 'set',
            before: { petId: 7n, quantity: 5, status: 'available' },
            after: { petId: 7n, quantity: 0, status: 'sold' },
            actor: 'key_a',
            atMs: 1_000,
            reason: null,
          },
          version: 3,
          reserved: 0,
        },
      ],
    });
    expect(decodeOutcome('{"kind":"pet_not_found"}', PET)).toEqual({
      kind: 'refused',
      refusals: [{ index: 0, code: 'pet_not_found', petId: PET }],
    });
    expect(decodeOutcome('{"kind":"version_mismatch","currentVersion":4}', PET)).toEqual({
      kind: 'refused',
      refusals: [{ index: 0, code: 'precondition_failed', petId: PET, currentVersion: 4 }],
    });
  });

  it('refuses a corrupt record rather than replaying it', () => {
    expect(() => decodeOutcome('{"kind":"other"}', PET)).toThrow(/unknown kind/);
  });
});
