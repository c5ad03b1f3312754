import assert from 'node:assert/strict';
import { createInventoryCore } from '../application/inventory-core.js';
import type { KeyGenerator, KeyHasher } from '../application/ports/key-crypto.js';
import type { RateLimiter } from '../application/ports/rate-limiter.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import type { HoldLimits, Reservation } from '../domain/reservation.js';
import type { ReservationOrder, ReservationWriteResult } from '../domain/reservation-outcome.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The limiter of the core the suite builds: no use case it runs asks it, so it admits nothing. */
const noLimiter: RateLimiter = {
  admit: async () => ({ outcome: 'unavailable', reason: 'the holds contract rate-limits nothing' }),
  peek: async () => ({ outcome: 'unavailable', reason: 'the holds contract rate-limits nothing' }),
};

/**
 * Keys numbered in order (the suite needs them distinct, not secret) and their SHA-256 through Web
 * Crypto, so that the suite builds a core over the store alone, without an adapter of this package.
 */
const countingKeys = (): KeyGenerator & KeyHasher => {
  let keys = 0;
  let ids = 0;
  return {
    newKey: () => {
      keys += 1;
      return `psk_${String(keys).padStart(40, '0')}`;
    },
    newKeyId: () => {
      ids += 1;
      return `key_${String(ids).padStart(12, '0')}`;
    },
    hash: async (key) => {
      const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
      return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
    },
  };
};

/**
 * The contract of the holds of InventoryRepository: a key's limit on how many it holds and for how
 * long, counted inside the write (two reserves at once never both pass it); the key each hold records
 * (`listHolds`, `nextHolder`); the release of a revoked key's holds, and of an ended key's, through the
 * core's use cases over the fixture's `inventory` and `keys`, a reserve of a key revoked before it
 * included; and a write that marks the lapsed holds alone. A store implements this by passing the count of the key's holds still held at the command's
 * time to `decideReservationWrite` (`keyHolds`), read inside the same write, and by keeping each hold's
 * key (the command's `actor`).
 *
 * @example
 * ```ts
 * import { afterEach, beforeEach, describe, it } from 'node:test';
 * import { describeReservationHoldsContract } from 'petstore-inventory/testing';
 *
 * describeReservationHoldsContract('mine', makeMine, { describe, it, beforeEach, afterEach });
 * ```
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test (its `inventory`, `pets`, `keys` and `clock` are used)
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeReservationHoldsContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`InventoryRepository holds contract: ${adapter}`, () => {
    const current = freshStorePerTest(make, runner);

    const limits: HoldLimits = { perKey: 3, ttlMs: HOUR };
    const addPets = (...ids: number[]) =>
      current().pets.addAll(
        ids.map((id) => ({ id: petId(BigInt(id)), name: `pet ${id}`, quantity: quantity(10), status: 'available' })),
      );
    const write = (order: ReservationOrder, actor = 'key_a') =>
      current().inventory.writeReservation({ reservation: order, actor, atMs: current().clock.nowMs() });
    const reserve = (pet: number, actor = 'key_a', ttlMs = 10 * MINUTE, q = 1) =>
      write({ kind: 'reserve', petId: petId(BigInt(pet)), quantity: quantity(q), ttlMs, limits }, actor);
    const held = (result: ReservationWriteResult): Reservation => {
      if (!result.ok) throw new Error(`the reservation was refused: ${result.error.code}`);
      return result.value.reservation;
    };
    const codeOf = (result: ReservationWriteResult) => (result.ok ? 'ok' : result.error.code);
    const entry = async (pet: number) => current().inventory.get(petId(BigInt(pet)));
    const holdsOf = async (query: { petId?: number; keyId?: string }, limit = 100) =>
      current().inventory.listHolds({
        nowMs: current().clock.nowMs(),
        limit,
        ...(query.petId === undefined ? {} : { petId: petId(BigInt(query.petId)) }),
        ...(query.keyId === undefined ? {} : { keyId: query.keyId }),
      });

    describe('a key holds at most its limit', () => {
      it('refuses the reserve past the limit with hold_limit_exceeded, writing nothing', async () => {
        await addPets(1, 2);
        for (const pet of [1, 2, 1]) held(await reserve(pet));
        const before = await entry(1);
        const refused = await reserve(2);
        assert.equal(codeOf(refused), 'hold_limit_exceeded');
        assert.ok(!refused.ok && 'refusal' in refused.error);
        assert.deepEqual(!refused.ok && 'refusal' in refused.error && refused.error.refusal, {
          code: 'hold_limit_exceeded',
          petId: 2n,
          keyId: 'key_a',
          limit: 3,
        });
        assert.deepEqual(await entry(1), before);
        assert.equal((await entry(2))?.item.reserved, 1);
        assert.equal((await holdsOf({ keyId: 'key_a' })).length, 3);
      });

      it("counts the key's own holds still held: another key reserves, and a release or a lapse frees a place", async () => {
        await addPets(1);
        const first = held(await reserve(1, 'key_a', 5 * MINUTE));
        held(await reserve(1));
        held(await reserve(1));
        assert.equal(codeOf(await reserve(1)), 'hold_limit_exceeded');
        assert.equal(codeOf(await reserve(1, 'key_b')), 'ok');
        held(await write({ kind: 'release', reservationId: first.id }, 'key_b'));
        const again = held(await reserve(1));
        assert.equal(codeOf(await reserve(1)), 'hold_limit_exceeded');
        // A commit takes a hold out of the count too.
        held(await write({ kind: 'commit', reservationId: again.id }));
        const lapsing = held(await reserve(1, 'key_a', MINUTE));
        assert.equal(codeOf(await reserve(1)), 'hold_limit_exceeded');
        current().clock.advance(lapsing.expiresAtMs - current().clock.nowMs());
        assert.equal(codeOf(await reserve(1)), 'ok');
      });

      it('lets one of two reserves of a key at its last place through, sent at once', async () => {
        await addPets(1, 2, 3);
        held(await reserve(1));
        held(await reserve(1));
        const results = await Promise.all([reserve(2), reserve(3), reserve(2), reserve(3)]);
        assert.deepEqual(results.map(codeOf).sort(), [
          'hold_limit_exceeded',
          'hold_limit_exceeded',
          'hold_limit_exceeded',
          'ok',
        ]);
        assert.equal((await holdsOf({ keyId: 'key_a' })).length, 3);
      });
    });

    describe('a hold lasts at most the limit', () => {
      it('refuses a longer one with hold_ttl_exceeded, writing nothing, and takes the limit itself', async () => {
        await addPets(1);
        const before = await entry(1);
        const refused = await reserve(1, 'key_a', HOUR + 1_000);
        assert.equal(codeOf(refused), 'hold_ttl_exceeded');
        assert.deepEqual(!refused.ok && 'refusal' in refused.error && refused.error.refusal, {
          code: 'hold_ttl_exceeded',
          petId: 1n,
          ttlSeconds: 3_601,
          maxSeconds: 3_600,
        });
        assert.deepEqual(await entry(1), before);
        const longest = held(await reserve(1, 'key_a', HOUR));
        assert.equal(longest.expiresAtMs - longest.createdAtMs, HOUR);
      });
    });

    describe('each hold records its key', () => {
      it('lists the holds still held of a key, of a pet, or all, soonest to lapse first, by pages', async () => {
        await addPets(1, 2);
        const a1 = held(await reserve(1, 'key_a', 30 * MINUTE));
        const b1 = held(await reserve(1, 'key_b', 20 * MINUTE));
        const a2 = held(await reserve(2, 'key_a', 10 * MINUTE));
        const lapsing = held(await reserve(2, 'key_b', MINUTE));
        const gone = held(await reserve(2, 'key_b', 40 * MINUTE));
        held(await write({ kind: 'release', reservationId: gone.id }));
        current().clock.advance(MINUTE);
        const ids = (holds: readonly Reservation[]) => holds.map((hold) => hold.id);
        assert.deepEqual(ids(await holdsOf({})), [a2.id, b1.id, a1.id]);
        assert.deepEqual(ids(await holdsOf({ keyId: 'key_a' })), [a2.id, a1.id]);
        assert.deepEqual(ids(await holdsOf({ petId: 1 })), [b1.id, a1.id]);
        assert.deepEqual(ids(await holdsOf({ petId: 2, keyId: 'key_b' })), []);
        assert.deepEqual(ids(await holdsOf({ petId: 1, keyId: 'key_b' })), [b1.id]);
        const [first] = await holdsOf({ keyId: 'key_a' });
        assert.deepEqual(first, { ...a2, keyId: 'key_a' });
        const page = await current().inventory.listHolds({
          nowMs: current().clock.nowMs(),
          limit: 1,
          after: { expiresAtMs: a2.expiresAtMs, id: a2.id },
        });
        assert.deepEqual(ids(page), [b1.id]);
        assert.ok(lapsing.expiresAtMs <= current().clock.nowMs());
      });

      it('walks the keys that hold any, in order, a key at a time', async () => {
        await addPets(1);
        held(await reserve(1, 'key_b'));
        held(await reserve(1, 'key_a'));
        held(await reserve(1, 'key_b'));
        const released = held(await reserve(1, 'key_c'));
        held(await write({ kind: 'release', reservationId: released.id }));
        assert.equal(await current().inventory.nextHolder(undefined), 'key_a');
        assert.equal(await current().inventory.nextHolder('key_a'), 'key_b');
        assert.equal(await current().inventory.nextHolder('key_b'), undefined);
      });
    });

    describe('a key no longer in use gives its holds back', () => {
      const coreOf = () => {
        const keys = countingKeys();
        return createInventoryCore(
          { ...current(), limiter: noLimiter, keyGenerator: keys, keyHasher: keys },
          { holdLimits: limits },
        );
      };

      it('releases every hold of a revoked key, and none of another key', async () => {
        await addPets(1, 2);
        const core = coreOf();
        const revoked = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        const kept = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        for (const pet of [1, 2, 2]) held(await reserve(pet, revoked, 10 * MINUTE, 2));
        const other = held(await reserve(1, kept));
        assert.ok((await core.revokeApiKey.execute({ idOrKey: revoked })).ok);
        assert.deepEqual(await holdsOf({ keyId: revoked }), []);
        assert.equal((await entry(1))?.item.reserved, 1);
        assert.equal((await entry(2))?.item.reserved, 0);
        assert.equal((await current().inventory.getReservation(other.id))?.state, 'held');
      });

      it('keeps no hold a revoked key makes after its revocation, as an instance whose key cache is stale would let it', async () => {
        await addPets(1);
        const core = coreOf();
        const revoked = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        const kept = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        assert.ok((await core.revokeApiKey.execute({ idOrKey: revoked })).ok);
        // The request was authenticated before the revocation was seen: it reaches the use case.
        const reserve = (actor: string) =>
          core.reserveStock.execute({ petId: petId(1n), quantity: quantity(2), ttlSeconds: 600, actor });
        const late = await reserve(revoked);
        assert.equal(late.ok ? 'ok' : late.error.code, 'unauthorized');
        assert.deepEqual(await holdsOf({ keyId: revoked }), []);
        assert.equal((await entry(1))?.item.reserved, 0);
        // A key in use, and an actor the key store does not know, keep theirs.
        for (const actor of [kept, 'embedder_actor']) assert.ok((await reserve(actor)).ok, actor);
        assert.equal((await entry(1))?.item.reserved, 4);
      });

      it("releases the old key's holds once a roll's grace ended, and the holds of a key in use never", async () => {
        await addPets(1);
        const core = coreOf();
        const old = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        const inUse = (await core.issueApiKey.execute({ plan: 'pro' })).record.id;
        const oldHold = held(await reserve(1, old));
        held(await reserve(1, inUse));
        held(await reserve(1, 'embedder_actor'));
        assert.ok((await core.rollApiKey.execute({ id: old, graceMs: MINUTE, actor: 'ops' })).ok);
        assert.equal(await core.releaseEndedKeysHolds.execute(), 0);
        current().clock.advance(MINUTE);
        assert.equal(await core.releaseEndedKeysHolds.execute(), 1);
        assert.equal((await current().inventory.getReservation(oldHold.id))?.state, 'released');
        assert.equal((await entry(1))?.item.reserved, 2);
      });
    });

    describe('a write reads the lapsed holds alone', () => {
      it('marks the lapsed holds expired and keeps every hold still held, which a commit then takes', async () => {
        await addPets(1);
        const many: Reservation[] = [];
        for (const key of ['key_a', 'key_b', 'key_c']) {
          for (let i = 0; i < 3; i += 1) many.push(held(await reserve(1, key, (i + 1) * 10 * MINUTE)));
        }
        current().clock.advance(10 * MINUTE);
        const version = (await entry(1))?.version ?? 0;
        const written = await current().inventory.write({
          orders: [{ kind: 'adjust', petId: petId(1n), delta: 1 }],
          actor: 'key_d',
          atMs: current().clock.nowMs(),
        });
        assert.ok(written.ok);
        assert.deepEqual(await entry(1), {
          item: { petId: 1n, quantity: 11, status: 'available', reserved: 6 },
          version: version + 1,
        });
        const states = await Promise.all(
          many.map(async (hold) => (await current().inventory.getReservation(hold.id))?.state),
        );
        assert.deepEqual(states, ['expired', 'held', 'held', 'expired', 'held', 'held', 'expired', 'held', 'held']);
        assert.equal(codeOf(await write({ kind: 'commit', reservationId: (many[8] as Reservation).id })), 'ok');
        assert.equal((await entry(1))?.item.reserved, 5);
      });
    });
  });
}
