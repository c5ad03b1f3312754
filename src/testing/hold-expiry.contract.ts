import assert from 'node:assert/strict';
import { ExpireReservations } from '../application/use-cases/expire-reservations.js';
import { decideLapse } from '../domain/lapse-decision.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import { DEFAULT_HOLD_LIMITS, type Reservation } from '../domain/reservation.js';
import type { ReservationWriteResult } from '../domain/reservation-outcome.js';
import { assertMatches } from './assert-match.js';
import { aCommand, aPet, setTo } from './mothers.js';
import { drain, type StorageFixture } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const MINUTE = 60_000;

/**
 * The InventoryRepository contract's expiry of holds: the instant a hold lapses (the domain's
 * `hasLapsed`), the same in every read and write of the store; the marking of one pet's lapse, which
 * writes what the core's `decideLapse` answers and nothing else; and the purge (ExpireReservations)
 * over the store's `petsWithLapsedHolds` and `markLapse`. Called inside
 * describeInventoryRepositoryContract, with its store.
 *
 * @param store - the store of the running test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }`
 */
export function describeHoldExpiryContract(store: () => StorageFixture, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  const reserve = (id: bigint, q: number, ttlMs: number, perKey = DEFAULT_HOLD_LIMITS.perKey) =>
    store().inventory.writeReservation({
      reservation: {
        kind: 'reserve',
        petId: petId(id),
        quantity: quantity(q),
        ttlMs,
        limits: { ...DEFAULT_HOLD_LIMITS, perKey },
      },
      actor: 'key_a',
      atMs: store().clock.nowMs(),
    });
  const held = (result: ReservationWriteResult): Reservation => {
    if (!result.ok) throw new Error(`the reservation was refused: ${result.error.code}`);
    return result.value.reservation;
  };
  const entry = (id: bigint) => store().inventory.get(petId(id));
  const stateOf = async (hold: Reservation) => (await store().inventory.getReservation(hold.id))?.state;
  const purge = () => new ExpireReservations(store().inventory, store().clock).execute();
  const lapsedPets = async () =>
    [...(await store().inventory.petsWithLapsedHolds(store().clock.nowMs(), 100))].sort((a, b) => (a < b ? -1 : 1));

  describe('the expiry of holds', () => {
    it('takes a hold as lapsed from the very millisecond it expires, in every read and write', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(20) }), aPet(2)]);
      const before = held(await reserve(1n, 1, MINUTE));
      store().clock.advance(1);
      const at = held(await reserve(1n, 2, MINUTE));
      store().clock.advance(1);
      const after = held(await reserve(1n, 4, MINUTE));
      // Now `before` expired a millisecond ago, `at` expires now, `after` a millisecond from now.
      store().clock.advance(MINUTE - 1);
      assert.equal(at.expiresAtMs, store().clock.nowMs());
      assertMatches(await entry(1n), { item: { reserved: 4 }, version: 6 });
      assertMatches((await drain(store().inventory.list())).items, [{ reserved: 4 }, { reserved: 0 }]);
      const listed = await store().inventory.listHolds({ nowMs: store().clock.nowMs(), limit: 10 });
      assert.deepEqual(
        listed.map((hold) => hold.id),
        [after.id],
      );
      // The key holds one still held, so a limit of two admits one more (of another pet), then no other.
      held(await reserve(2n, 1, MINUTE, 2));
      assertMatches(await reserve(2n, 1, MINUTE, 2), { ok: false, error: { code: 'hold_limit_exceeded' } });
      assert.deepEqual(await lapsedPets(), [1n]);
      assert.equal(await purge(), 2);
      assert.deepEqual(
        [await stateOf(before), await stateOf(at), await stateOf(after)],
        ['expired', 'expired', 'held'],
      );
      const written = await store().inventory.write(aCommand([setTo(1n, 5)], { atMs: store().clock.nowMs() }));
      assertMatches(written, { ok: true, value: { entries: [{ reserved: 4 }] } });
    });

    it("marks one pet's lapse as the core decides it: the holds expired, the held count and the version", async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
      const holds = [
        held(await reserve(1n, 1, MINUTE)),
        held(await reserve(1n, 2, 2 * MINUTE)),
        held(await reserve(1n, 3, 10 * MINUTE)),
      ];
      const other = held(await reserve(2n, 1, MINUTE));
      const stored = (await entry(1n)) ?? assert.fail('pet 1 is stored');
      store().clock.advance(2 * MINUTE);
      const nowMs = store().clock.nowMs();
      const decided = decideLapse(holds, { reserved: stored.item.reserved, version: stored.version }, nowMs);
      // Read before anything is marked, the entry at now is already what the core decides for the lapse.
      assertMatches(await entry(1n), { item: { reserved: decided.reserved }, version: decided.version });
      assert.deepEqual(await lapsedPets(), [1n, 2n]);
      assert.equal(await store().inventory.markLapse(petId(1n), nowMs), decided.expired.length);
      assertMatches(await entry(1n), { item: { reserved: decided.reserved }, version: decided.version });
      for (const hold of decided.expired) assert.deepEqual(await store().inventory.getReservation(hold.id), hold);
      assert.deepEqual(await store().inventory.getReservation((holds[2] as Reservation).id), holds[2]);
      assert.equal(await stateOf(other), 'held');
      assert.deepEqual(await lapsedPets(), [2n]);
      assert.equal(await store().inventory.markLapse(petId(1n), nowMs), 0);
      assert.equal(await store().inventory.markLapse(petId(404n), nowMs), 0);
    });

    it('marks lapsed holds expired in the purge, changing nothing a reader sees', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2, { quantity: quantity(5) })]);
      const lapsing = held(await reserve(1n, 2, MINUTE));
      held(await reserve(2n, 1, MINUTE));
      const staying = held(await reserve(1n, 1, 10 * MINUTE));
      store().clock.advance(MINUTE);
      const seen = [await entry(1n), await entry(2n)];
      assert.equal(await purge(), 2);
      assert.deepEqual([await entry(1n), await entry(2n)], seen);
      assert.equal(await stateOf(lapsing), 'expired');
      assert.equal(await stateOf(staying), 'held');
      assert.deepEqual(await lapsedPets(), []);
      assert.equal(await purge(), 0);
    });
  });
}
