import { describe, expect, it } from 'vitest';
import { DecidedEffects, groupWrite, type PetState } from '../../src/adapters/postgres/group-effects.js';
import { petId } from '../../src/domain/pet-id.js';
import type { StockChange } from '../../src/domain/stock-change.js';

/** Each effect's columns as the statement names them, with the parameter each is sent in. */
function parametersByColumn(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [, effect, arrays, names] of text.matchAll(/(\w+) AS \([\s\S]*?unnest\(([^)]*)\) AS e\(([^)]*)\)/g)) {
    const numbers = [...(arrays ?? '').matchAll(/\$(\d+)::/g)].map(([, n]) => Number(n));
    for (const [index, name] of (names ?? '').split(', ').entries())
      found.set(`${effect}.${name}`, numbers[index] ?? 0);
  }
  return found;
}

describe('the PostgreSQL group write', () => {
  const change: StockChange = {
    id: 41n,
    before: { petId: petId(7n), quantity: 3, status: 'available' },
    after: { petId: petId(7n), quantity: 0, status: 'sold' },
    actor: 'key-1',
    atMs: 1_700_000_000_000,
    kind: 'set',
    reason: 'stock count',
  } as StockChange;

  it('sends each value of an effect in the parameter its column is named with, one array a column', () => {
    const effects = new DecidedEffects();
    effects.record(change);
    effects.claim({ scope: 'key-1', key: 'k', fingerprint: 'f', expiresAtMs: 5 }, 'outcome');
    const pet: PetState = {
      quantity: 0,
      status: 'sold',
      lockedVersion: 3n,
      version: 4,
      held: 0,
      holds: [],
      written: true,
    };
    const { statement, values } = groupWrite(effects.rows([[petId(7n), pet]]));
    const parameters = parametersByColumn(statement.text);
    const sent = (column: string) => values[(parameters.get(column) ?? 0) - 1];
    expect(sent('recorded.id')).toEqual([41n]);
    expect(sent('recorded.pet_id')).toEqual([7n]);
    expect(sent('recorded.before_status')).toEqual(['available']);
    expect(sent('recorded.after_quantity')).toEqual([0]);
    expect(sent('recorded.reason')).toEqual(['stock count']);
    expect(sent('claimed.outcome')).toEqual(['outcome']);
    expect(sent('updated.id')).toEqual([7n]);
    expect(sent('updated.locked_version')).toEqual([3n]);
    // Every parameter but the last (the stamp's stripe) is a column's array.
    expect(parameters.size).toBe(values.length - 1);
    expect(statement.text).toContain(`$${values.length}::smallint`);
    expect(values[values.length - 1]).toBe(7);
  });

  it('leaves out the effects a group has no rows of, answering 0 for each in its place', () => {
    const effects = new DecidedEffects();
    effects.record(change);
    const { statement, values } = groupWrite(effects.rows([]));
    expect([...parametersByColumn(statement.text).keys()].every((column) => column.startsWith('recorded.'))).toBe(true);
    expect(values).toHaveLength(10);
    expect(statement.text).not.toMatch(/reservations|idempotency_records|inventory_stamps|UPDATE pets/);
    expect(statement.text).toMatch(/SELECT 0, 0, 0, \(SELECT count\(\*\) FROM recorded\)::int, 0$/);
    // The same kind of group is sent the same prepared statement.
    expect(groupWrite(effects.rows([])).statement).toBe(statement);
  });
});
