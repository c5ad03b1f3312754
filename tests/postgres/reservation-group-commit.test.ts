import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { ReservationCommand, ReservationWriteResult } from '../../src/domain/reservation-outcome.js';
import { aCommand, adjustBy, aPet, ManualClock } from '../../src/testing/index.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);
const MINUTE = 60_000;

const reserve = (pet: bigint, q: number, actor = 'key_b', perKey = 1_000): ReservationCommand => ({
  reservation: {
    kind: 'reserve',
    petId: petId(pet),
    quantity: quantity(q),
    ttlMs: 15 * MINUTE,
    limits: { perKey, ttlMs: 60 * MINUTE },
  },
  actor,
  atMs: AT,
});

const settle = (kind: 'commit' | 'release', reservationId: string): ReservationCommand => ({
  reservation: { kind, reservationId },
  actor: 'key_b',
  atMs: AT,
});

const idOf = (result: ReservationWriteResult): string => {
  if (!result.ok) throw new Error(`the reserve was refused: ${result.error.code}`);
  return result.value.reservation.id;
};

/** A session of its own on the database, as another instance of the service has. */
async function otherSession(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** The changes stored, in id order: id, pet, kind, quantity after, and the transaction that wrote each. */
async function changes(client: pg.Client) {
  const { rows } = await client.query<{ id: string; pet: string; kind: string; after: number; txid: string }>(
    'SELECT id::text, pet_id::text AS pet, kind, after_quantity AS after, txid::text FROM stock_changes ORDER BY id',
  );
  return rows;
}

describe.skipIf(!hasPostgresServer)('reservation writes over PostgreSQL, committed in groups with stock writes', () => {
  const postgres = usePostgresServer();

  it("never lets one key's reserves racing through two instances pass the key's limit", async () => {
    const storage = await postgres.storage({ clock: new ManualClock(AT) });
    const second = await openPostgresStorage({ url: storage.url, clock: new ManualClock(AT) });
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(100) }), aPet(2, { quantity: quantity(100) })]);
      // Each instance's reserves of one turn go in one group; the two groups race for the key, each
      // on a pet of its own, so that no row lock puts one after the other.
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          i % 2 === 0
            ? storage.inventory.writeReservation(reserve(1n, 1, 'key_b', 5))
            : second.inventory.writeReservation(reserve(2n, 1, 'key_b', 5)),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(5);
      expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.error.code)).toEqual(
        Array(19).fill('hold_limit_exceeded'),
      );
      const [one, two] = [await storage.inventory.get(petId(1n)), await storage.inventory.get(petId(2n))];
      expect((one?.item.reserved ?? 0) + (two?.item.reserved ?? 0)).toBe(5);
    } finally {
      await second.close();
      await storage.close();
    }
  });

  it('decides a reserve and the stock writes of its pet sent together in their order, in one transaction', async () => {
    const storage = await postgres.storage({ clock: new ManualClock(AT) });
    const other = await otherSession(storage.url);
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const [adjusted, refused, held, below] = await Promise.all([
        storage.inventory.write(aCommand([adjustBy(1n, -3)], { atMs: AT })),
        storage.inventory.writeReservation(reserve(1n, 3)),
        storage.inventory.writeReservation(reserve(1n, 2)),
        storage.inventory.write(aCommand([adjustBy(1n, -1)], { atMs: AT })),
      ]);
      expect(adjusted).toMatchObject({ ok: true, value: { entries: [{ version: 2 }] } });
      expect(refused).toMatchObject({ ok: false, error: { code: 'insufficient_stock', refusal: { available: 2 } } });
      expect(held).toMatchObject({ ok: true, value: { reservation: { quantity: 2, state: 'held' } } });
      // The adjustment comes after the hold: 1 left on hand could not cover the 2 held.
      expect(below).toMatchObject({ ok: false, error: { code: 'insufficient_stock' } });
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 2, reserved: 2 }, version: 3 });
      const { rows } = await other.query<{ same: boolean }>(
        'SELECT (SELECT xmin FROM reservations) = (SELECT xmin FROM stock_changes) AS same',
      );
      expect(rows).toEqual([{ same: true }]);
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it("records one change for a commit in a group, with the core's id and kind, in the group's order", async () => {
    const storage = await postgres.storage({ clock: new ManualClock(AT) });
    const other = await otherSession(storage.url);
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(10) })]);
      const id = idOf(await storage.inventory.writeReservation(reserve(1n, 4)));
      const [before, committed, again, after] = await Promise.all([
        storage.inventory.write(aCommand([adjustBy(1n, 1)], { atMs: AT })),
        storage.inventory.writeReservation(settle('commit', id)),
        storage.inventory.writeReservation(settle('commit', id)),
        storage.inventory.write(aCommand([adjustBy(1n, 1)], { atMs: AT })),
      ]);
      expect([before.ok, after.ok]).toEqual([true, true]);
      expect(committed).toMatchObject({ ok: true, value: { reservation: { state: 'committed' }, replayed: false } });
      expect(again).toMatchObject({ ok: true, value: { reservation: { state: 'committed' } } });
      const stored = await changes(other);
      expect(stored.map((change) => [change.kind, change.after])).toEqual([
        ['adjust', 11],
        ['reservation_commit', 7],
        ['adjust', 8],
      ]);
      expect(new Set(stored.map((change) => change.txid)).size).toBe(1);
      const history = (await storage.changes.history(petId(1n), { limit: 10 })) ?? [];
      expect(history.map((change) => [String(change.id), change.kind])).toEqual(
        [...stored].reverse().map((change) => [change.id, change.kind]),
      );
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 8, reserved: 0 }, version: 5 });
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('writes each write of a group alone when the group statement fails, so only the failing one fails', async () => {
    const storage = await postgres.storage({ clock: new ManualClock(AT) });
    const other = await otherSession(storage.url);
    try {
      await storage.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
      // A rule of the database the core does not know: the write that breaks it fails the group's statement.
      await other.query("ALTER TABLE stock_changes ADD CONSTRAINT no_poison CHECK (reason IS DISTINCT FROM 'poison')");
      const id = idOf(await storage.inventory.writeReservation(reserve(2n, 3)));
      const sent = [
        storage.inventory.write(aCommand([adjustBy(1n, -1, 'poison')], { atMs: AT })),
        storage.inventory.writeReservation(reserve(1n, 2)),
        storage.inventory.writeReservation(settle('commit', id)),
        storage.inventory.write(aCommand([adjustBy(2n, 5)], { atMs: AT })),
      ].map((written) => (written as Promise<unknown>).catch((error: unknown) => error));
      const [poisoned, held, committed, adjusted] = await Promise.all(sent);
      expect(poisoned).toMatchObject({ message: expect.stringContaining('no_poison') });
      expect(held).toMatchObject({ ok: true, value: { reservation: { quantity: 2, state: 'held' } } });
      expect(committed).toMatchObject({ ok: true, value: { reservation: { state: 'committed' } } });
      expect(adjusted).toMatchObject({ ok: true });
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 10, reserved: 2 }, version: 2 });
      expect(await storage.inventory.get(petId(2n))).toMatchObject({ item: { quantity: 12, reserved: 0 }, version: 4 });
      const stored = await changes(other);
      // Written alone, each in a transaction of its own, in no set order.
      expect(stored.map((change) => change.kind).sort()).toEqual(['adjust', 'reservation_commit']);
      expect(new Set(stored.map((change) => change.txid)).size).toBe(2);
    } finally {
      await other.end();
      await storage.close();
    }
  });
});
