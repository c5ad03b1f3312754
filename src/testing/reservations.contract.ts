import assert from 'node:assert/strict';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import type { Reservation } from '../domain/reservation.js';
import type { ReservationCommand, ReservationOrder, ReservationWriteResult } from '../domain/reservation-outcome.js';
import { assertMatches } from './assert-match.js';
import { aCommand, adjustBy, aPet, setTo } from './mothers.js';
import { drain, type StorageFixture } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const MINUTE = 60_000;

/**
 * The InventoryRepository contract's reservations: reserve against what is available, commit, release,
 * expire at the store's clock, idempotent repeats and the refusals. Called inside
 * describeInventoryRepositoryContract, with its store.
 *
 * @param store - the store of the running test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }`
 */
export function describeReservationsContract(store: () => StorageFixture, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  /** A reservation write at the store's clock, by key_a. */
  const write = (order: ReservationOrder, overrides: Partial<ReservationCommand> = {}) =>
    store().inventory.writeReservation({
      reservation: order,
      actor: 'key_a',
      atMs: store().clock.nowMs(),
      ...overrides,
    });
  const reserve = (id: bigint, q: number, ttlMs = 15 * MINUTE, overrides: Partial<ReservationCommand> = {}) =>
    write({ kind: 'reserve', petId: petId(id), quantity: quantity(q), ttlMs }, overrides);
  const commit = (reservationId: string) => write({ kind: 'commit', reservationId });
  const release = (reservationId: string) => write({ kind: 'release', reservationId });
  const held = (result: ReservationWriteResult): Reservation => {
    if (!result.ok) throw new Error(`the reservation was refused: ${result.error.code}`);
    return result.value.reservation;
  };
  const entry = (id: bigint) => store().inventory.get(petId(id));
  const history = async (id: bigint) => (await store().changes.history(petId(id), { limit: 100 })) ?? [];

  describe('reserve', () => {
    it('holds stock from what is available, leaving what is on hand, and moves the version', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const now = store().clock.nowMs();
      const r = held(await reserve(1n, 3, 10 * MINUTE));
      assert.match(r.id, /^res_[0-9a-f]{32}$/);
      assert.deepEqual(r, {
        id: r.id,
        petId: 1n,
        quantity: 3,
        state: 'held',
        createdAtMs: now,
        expiresAtMs: now + 10 * MINUTE,
      });
      assert.deepEqual(await entry(1n), {
        item: { petId: 1n, quantity: 5, status: 'available', reserved: 3 },
        version: 2,
      });
      assert.deepEqual((await drain(store().inventory.list())).items, [
        { petId: 1n, quantity: 5, status: 'available', reserved: 3 },
      ]);
      assert.deepEqual(await store().inventory.getReservation(r.id), r);
      assert.deepEqual(await history(1n), []);
    });

    it('refuses more than is available with insufficient_stock, and an unknown pet with pet_not_found, holding nothing', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      held(await reserve(1n, 3));
      const stamp = await store().inventory.stamp();
      assertMatches(await reserve(1n, 3), {
        ok: false,
        error: { code: 'insufficient_stock', refusal: { petId: 1n, quantity: 3, available: 2 } },
      });
      assertMatches(await reserve(404n, 1), { ok: false, error: { code: 'pet_not_found' } });
      assertMatches(await entry(1n), { item: { reserved: 3 }, version: 2 });
      assert.equal(await store().inventory.stamp(), stamp);
    });

    it('refuses a stale ifVersion with the current one', async () => {
      await store().pets.addAll([aPet(1)]);
      const order = {
        kind: 'reserve',
        petId: petId(1n),
        quantity: quantity(1),
        ttlMs: MINUTE,
        ifVersion: [7],
      } as const;
      assertMatches(await write(order), {
        ok: false,
        error: { code: 'precondition_failed', refusal: { currentVersion: 1 } },
      });
    });

    it('never holds more than there is: 20 reservations of 1 at once on 5 give exactly 5', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const results = await Promise.all(Array.from({ length: 20 }, () => reserve(1n, 1)));
      assert.equal(results.filter((r) => r.ok).length, 5);
      assert.equal(results.filter((r) => !r.ok && r.error.code === 'insufficient_stock').length, 15);
      assertMatches(await entry(1n), { item: { quantity: 5, reserved: 5 }, version: 6 });
    });
  });

  describe('commit and release', () => {
    it('commits: on hand and reserved drop together, one reservation_commit change; a repeat answers the same', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const r = held(await reserve(1n, 5));
      const committed = held(await commit(r.id));
      assert.deepEqual(committed, { ...r, state: 'committed' });
      assert.deepEqual(await entry(1n), { item: { petId: 1n, quantity: 0, status: 'sold', reserved: 0 }, version: 3 });
      assert.deepEqual(
        (await history(1n)).map((c) => [c.kind, c.before.quantity, c.after.quantity, c.actor]),
        [['reservation_commit', 5, 0, 'key_a']],
      );
      assert.deepEqual(await commit(r.id), { ok: true, value: { reservation: committed, replayed: false } });
      assert.equal((await history(1n)).length, 1);
      assertMatches(await entry(1n), { version: 3 });
      assertMatches(await release(r.id), { ok: false, error: { code: 'reservation_committed' } });
    });

    it('releases: what is reserved is available again; a repeat answers the same; a commit after it is refused', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const r = held(await reserve(1n, 2));
      assert.deepEqual(held(await release(r.id)), { ...r, state: 'released' });
      assert.deepEqual(await entry(1n), {
        item: { petId: 1n, quantity: 5, status: 'available', reserved: 0 },
        version: 3,
      });
      assert.equal(held(await release(r.id)).state, 'released');
      assertMatches(await commit(r.id), { ok: false, error: { code: 'reservation_released' } });
      assert.deepEqual(await history(1n), []);
    });

    it('answers reservation_not_found for an unknown id', async () => {
      assertMatches(await commit('res_00000000000000000000000000000000'), {
        ok: false,
        error: { code: 'reservation_not_found' },
      });
      assertMatches(await release('res_00000000000000000000000000000000'), {
        ok: false,
        error: { code: 'reservation_not_found' },
      });
      assert.equal(await store().inventory.getReservation('res_00000000000000000000000000000000'), undefined);
    });
  });

  describe('expiry, at the store’s clock', () => {
    it('stops counting a hold the moment it expires, untouched: what is reserved, the version and the stamp move', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      held(await reserve(1n, 2, MINUTE));
      held(await reserve(1n, 1, 2 * MINUTE));
      store().clock.advance(MINUTE - 1);
      const before = await store().inventory.stamp();
      assertMatches(await entry(1n), { item: { reserved: 3 }, version: 3 });
      store().clock.advance(1);
      assertMatches(await entry(1n), { item: { reserved: 1 }, version: 4 });
      assertMatches((await drain(store().inventory.list())).items, [{ reserved: 1 }]);
      assert.notEqual(await store().inventory.stamp(), before);
    });

    it('refuses the commit of an expired hold with reservation_expired; its release answers it expired', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const r = held(await reserve(1n, 2, MINUTE));
      store().clock.advance(MINUTE);
      assertMatches(await commit(r.id), { ok: false, error: { code: 'reservation_expired' } });
      assert.equal(held(await release(r.id)).state, 'expired');
      assertMatches(await entry(1n), { item: { quantity: 5, reserved: 0 } });
      assert.deepEqual(await history(1n), []);
    });

    it('lets a write of the pet count only the holds still held, after some lapsed', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      held(await reserve(1n, 4, MINUTE));
      store().clock.advance(MINUTE);
      const result = await store().inventory.write(aCommand([setTo(1n, 1)], { atMs: store().clock.nowMs() }));
      assertMatches(result, { ok: true, value: { entries: [{ reserved: 0, version: 4 }] } });
    });
  });

  describe('what is reserved bounds the stock writes', () => {
    it('refuses a set below what is reserved with quantity_below_reserved, alone or in a batch, writing nothing', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) }), aPet(2)]);
      held(await reserve(1n, 3));
      const at = { atMs: store().clock.nowMs() };
      assertMatches(await store().inventory.write(aCommand([setTo(1n, 2)], at)), {
        ok: false,
        error: { code: 'quantity_below_reserved', refusals: [{ quantity: 2, reserved: 3 }] },
      });
      assertMatches(await store().inventory.write(aCommand([setTo(2n, 9), setTo(1n, 0)], at)), {
        ok: false,
        error: { code: 'quantity_below_reserved', refusals: [{ index: 1 }] },
      });
      assertMatches(await store().inventory.write(aCommand([setTo(1n, 3)], at)), { ok: true });
      assertMatches(await entry(2n), { item: { quantity: 5 }, version: 1 });
    });

    it('lets an adjustment take only what is available, else insufficient_stock', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      held(await reserve(1n, 3));
      const at = { atMs: store().clock.nowMs() };
      assertMatches(await store().inventory.write(aCommand([adjustBy(1n, -3)], at)), {
        ok: false,
        error: { code: 'insufficient_stock', refusals: [{ quantity: 5, delta: -3, reserved: 3 }] },
      });
      assertMatches(await store().inventory.write(aCommand([adjustBy(1n, -2)], at)), {
        ok: true,
        value: { entries: [{ change: { after: { quantity: 3 } }, reserved: 3 }] },
      });
    });
  });

  describe('with an idempotency claim', () => {
    const claim = (key: string, fingerprint = 'POST /v1/inventory/1/reservations {"quantity":2}') => ({
      scope: 'key_a',
      key,
      fingerprint,
      expiresAtMs: store().clock.nowMs() + 86_400_000,
    });

    it('replays a reserve to its retry, the same reservation, holding nothing more', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const first = held(await reserve(1n, 2, MINUTE, { idempotency: claim('r1') }));
      assert.deepEqual(await reserve(1n, 2, MINUTE, { idempotency: claim('r1') }), {
        ok: true,
        value: { reservation: first, replayed: true },
      });
      assertMatches(await entry(1n), { item: { reserved: 2 }, version: 2 });
    });

    it('replays a refusal, and refuses the key on another request, a stock write included', async () => {
      await store().pets.addAll([aPet(1, { quantity: quantity(1) })]);
      await reserve(1n, 2, MINUTE, { idempotency: claim('r2') });
      assertMatches(await reserve(1n, 2, MINUTE, { idempotency: claim('r2') }), {
        ok: false,
        error: { code: 'insufficient_stock', replayed: true },
      });
      assertMatches(await reserve(1n, 1, MINUTE, { idempotency: claim('r2', 'another body') }), {
        ok: false,
        error: { code: 'idempotency_key_reused' },
      });
      const patch = aCommand([setTo(1n, 4)], { atMs: store().clock.nowMs(), idempotency: claim('r2', 'PATCH') });
      assertMatches(await store().inventory.write(patch), {
        ok: false,
        error: { code: 'idempotency_key_reused' },
      });
    });
  });
}
