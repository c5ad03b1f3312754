import assert from 'node:assert/strict';
import type { PetId } from '../domain/pet-id.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import type { Reservation } from '../domain/reservation.js';
import { decideReservationWrite } from '../domain/reservation-decision.js';
import type { ReservationOrder, ReservationWriteResult } from '../domain/reservation-outcome.js';
import type { InventoryEntry } from '../domain/stock-write.js';
import { aPet } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const MINUTE = 60_000;

/**
 * A store applies what the core decided and computes nothing of its own: after each reservation write,
 * its answer is the answer of `decideReservationWrite` over what the store showed before it, and the
 * pet's entry (stock, status, what is held, version) and the change it recorded are the decision's. A
 * store that worked out the held count itself would pass only while its arithmetic and the core's agree.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }`
 */
export function describeDecisionAppliedContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`a store applies the core's reservation decision: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (fresh) =>
      fresh.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(0) })]),
    );
    const stateOf = (id: PetId) => store().inventory.get(id);

    /** Writes `order` as key_a at the store's clock, and checks the store did what the core decides of it. */
    async function writeAsDecided(order: ReservationOrder): Promise<ReservationWriteResult> {
      const { inventory, changes, clock } = store();
      const command = { reservation: order, actor: 'key_a', atMs: clock.nowMs() };
      const reservation: Reservation | undefined =
        order.kind === 'reserve' ? undefined : await inventory.getReservation(order.reservationId);
      const pet = order.kind === 'reserve' ? order.petId : reservation?.petId;
      const before: InventoryEntry | undefined = pet === undefined ? undefined : await stateOf(pet);
      const keyHolds =
        order.kind === 'reserve'
          ? (await inventory.listHolds({ keyId: command.actor, nowMs: command.atMs, limit: 1_000 })).length
          : 0;
      const historyBefore = pet === undefined ? [] : ((await changes.history(pet, { limit: 1 })) ?? []);

      const result = await inventory.writeReservation(command);

      const historyAfter = pet === undefined ? [] : ((await changes.history(pet, { limit: 1 })) ?? []);
      const recorded = historyAfter[0]?.id === historyBefore[0]?.id ? undefined : historyAfter[0];
      const decision = decideReservationWrite({
        command,
        entry: before,
        keyHolds,
        reservation,
        claim: undefined,
        // The ids the store drew: the core takes them as given.
        newId: result.ok ? result.value.reservation.id : 'res_00000000000000000000000000000000',
        changeId: recorded?.id ?? 0n,
      });
      assert.deepEqual(result, decision.result, 'the store answers what the core decided');
      assert.deepEqual(recorded, decision.change, 'the store records the change the core decided, and no other');
      if (pet !== undefined) {
        const expected =
          decision.entry === undefined
            ? before
            : {
                item: {
                  petId: decision.entry.level.petId,
                  quantity: decision.entry.level.quantity,
                  status: decision.entry.level.status,
                  reserved: decision.entry.reserved,
                },
                version: decision.entry.version,
              };
        assert.deepEqual(await stateOf(pet), expected, "the pet's entry is the one the core decided");
      }
      return result;
    }
    const held = (result: ReservationWriteResult): Reservation => {
      if (!result.ok) throw new Error(`the reservation was refused: ${result.error.code}`);
      return result.value.reservation;
    };
    const reserve = (id: bigint, q: number, ttlMs = 10 * MINUTE): ReservationOrder => ({
      kind: 'reserve',
      petId: petId(id),
      quantity: quantity(q),
      ttlMs,
    });

    it('stores the held count, stock and version each reserve, commit and release decided', async () => {
      const first = held(await writeAsDecided(reserve(1n, 3)));
      const second = held(await writeAsDecided(reserve(1n, 4)));
      await writeAsDecided({ kind: 'commit', reservationId: first.id });
      await writeAsDecided({ kind: 'release', reservationId: second.id });
      // Repeats answer the reservation as it stands and write nothing.
      await writeAsDecided({ kind: 'commit', reservationId: first.id });
      await writeAsDecided({ kind: 'release', reservationId: second.id });
      assert.deepEqual((await stateOf(petId(1n)))?.item, { petId: 1n, quantity: 7, status: 'available', reserved: 0 });
    });

    it('answers each refusal the core decided and writes nothing for it', async () => {
      const hold = held(await writeAsDecided(reserve(1n, 6)));
      await writeAsDecided(reserve(1n, 5));
      await writeAsDecided(reserve(2n, 1));
      await writeAsDecided(reserve(404n, 1));
      await writeAsDecided({ kind: 'release', reservationId: 'res_ffffffffffffffffffffffffffffffff' });
      await writeAsDecided({ kind: 'commit', reservationId: hold.id });
      await writeAsDecided({ kind: 'release', reservationId: hold.id });
    });

    it('applies the decision over holds that lapsed unmarked, as their expiry already showed them', async () => {
      const early = held(await writeAsDecided(reserve(1n, 2, MINUTE)));
      const late = held(await writeAsDecided(reserve(1n, 3, 10 * MINUTE)));
      store().clock.advance(MINUTE);
      await writeAsDecided(reserve(1n, 7));
      await writeAsDecided({ kind: 'commit', reservationId: early.id });
      await writeAsDecided({ kind: 'release', reservationId: early.id });
      store().clock.advance(10 * MINUTE);
      await writeAsDecided({ kind: 'commit', reservationId: late.id });
    });
  });
}
