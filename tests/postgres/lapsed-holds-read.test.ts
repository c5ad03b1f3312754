import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { GROUP_READ_ROWS } from '../../src/adapters/postgres/group-statements.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aCommand, adjustBy, aPet, ManualClock } from '../../src/testing/index.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);
const MINUTE = 60_000;
const LIVE = 1_000;
const LAPSED = 2;
/** Lapsed holds of another pet: a write of pet 1 must not read them either. */
const OTHERS_LAPSED = 300;

interface PlanNode {
  readonly 'Relation Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly 'Rows Removed by Index Recheck'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** The rows of `reservations` a plan took from the table, kept or filtered away, over all its loops. */
function reservationRowsOf(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'reservations'
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return (node.Plans ?? []).reduce((sum, child) => sum + reservationRowsOf(child), own);
}

/** Stores `count` holds of `pet` made at AT for `ttlMs`, as reserves store them. */
async function hold(client: pg.Client, pet: number, count: number, ttlMs: number, tag: string): Promise<void> {
  await client.query(
    `INSERT INTO reservations (id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor)
     SELECT 'res_${tag}_' || n, $1, 1, 'held', $2::bigint, $2::bigint + $3, 'key_' || (n % 10) FROM generate_series(1, $4) AS n`,
    [pet, AT, ttlMs, count],
  );
  await client.query('UPDATE pets SET held = held + $2 WHERE id = $1', [pet, count]);
}

describe.skipIf(!hasPostgresServer)('a write over PostgreSQL reads the lapsed holds of its pets alone', () => {
  const postgres = usePostgresServer();

  it(`reads ${LAPSED} holds of a pet with ${LIVE} still held and ${LAPSED} lapsed, none of another pet's ${OTHERS_LAPSED} lapsed`, async () => {
    const storage = await postgres.storage({ clock: new ManualClock(AT + MINUTE) });
    const other = new pg.Client({ connectionString: storage.url });
    await other.connect();
    try {
      await storage.pets.addAll([
        aPet(1, { quantity: quantity(LIVE + LAPSED) }),
        aPet(2),
        aPet(3, { quantity: quantity(OTHERS_LAPSED) }),
      ]);
      await hold(other, 1, LAPSED, MINUTE, 'lapsing');
      await hold(other, 1, LIVE, 60 * MINUTE, 'live');
      await hold(other, 3, OTHERS_LAPSED, MINUTE, 'other');
      await other.query('ANALYZE reservations');
      // The read a group of writes sends for its pets, at the time of a write a minute on.
      const readOf = async (pet: number): Promise<number> => {
        const { rows } = await other.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${GROUP_READ_ROWS.text}`,
          [`{${pet}}`, '{}', AT + MINUTE],
        );
        return reservationRowsOf((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
      };
      expect({ holdingPet: await readOf(1), otherPet: await readOf(2) }).toEqual({ holdingPet: LAPSED, otherPet: 0 });
      // The write itself marks what it read, and leaves the holds still held as they were.
      const written = await storage.inventory.write(aCommand([adjustBy(1n, 1)], { atMs: AT + MINUTE }));
      expect(written).toMatchObject({ ok: true, value: { entries: [{ reserved: LIVE, version: 1 + LAPSED + 1 }] } });
      expect(await readOf(1)).toBe(0);
      expect((await storage.inventory.get(petId(1n)))?.item.reserved).toBe(LIVE);
    } finally {
      await other.end();
      await storage.close();
    }
  });
});
