import assert from 'node:assert/strict';
import type { InventoryItem } from '../domain/inventory-item.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import type { StockChange } from '../domain/stock-change.js';
import type { IdempotencyClaim, StockCommand } from '../domain/stock-command.js';
import type { StockWriteResult } from '../domain/stock-outcome.js';
import { assertMatches } from './assert-match.js';
import { describeHoldExpiryContract } from './hold-expiry.contract.js';
import { describeInventoryColumnsContract } from './inventory-columns.contract.js';
import { aPet, INT64_MAX, INT64_MIN } from './mothers.js';
import { describeReservationsContract } from './reservations.contract.js';
import { describeStockCommandsContract } from './stock-commands.contract.js';
import { drain, freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

interface WriteOverrides extends Partial<Omit<StockCommand, 'orders'>> {
  readonly ifVersion?: readonly number[];
}

/** A command setting the stock of `id` to `q`, by key_a at AT unless overridden. */
const aWrite = (id: bigint, q: number, { ifVersion, ...overrides }: WriteOverrides = {}): StockCommand => ({
  orders: [{ kind: 'set', petId: petId(id), quantity: quantity(q), ...(ifVersion === undefined ? {} : { ifVersion }) }],
  actor: 'key_a',
  atMs: AT,
  ...overrides,
});

/** The version a successful write of one pet left, 0 for a refused one. */
const versionOf = (r: StockWriteResult): number => (r.ok ? (r.value.entries[0]?.version ?? 0) : 0);

const aClaim = (
  key: string,
  fingerprint = 'PATCH /v1/inventory/1 {"quantity":7}',
  scope = 'key_a',
  expiresAtMs = AT + 86_400_000,
): IdempotencyClaim => ({
  scope,
  key,
  fingerprint,
  expiresAtMs,
});

/** The entry a successful write left; throws on a refused one, so the test names what it expected. */
async function afterOf(result: Promise<StockWriteResult>): Promise<InventoryItem> {
  const r = await result;
  if (!r.ok) throw new Error(`the write was refused: ${r.error.code}`);
  const written = r.value.entries[0] as { change: StockChange; reserved: InventoryItem['reserved'] };
  return { ...written.change.after, reserved: written.reserved };
}

/**
 * The InventoryRepository (and StockChangeLog) contract, run over every storage adapter: the list, the
 * stamp, writes with versions and idempotency claims, adjustments and batches, reservations, history.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeInventoryRepositoryContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`InventoryRepository contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner);

    describe('list', () => {
      it('lists nothing when no pet is tracked', async () => {
        const { items } = await drain(store().inventory.list());
        assert.deepEqual(items, []);
      });

      it('lists every entry once, ordered by petId ascending, int64 extremes included', async () => {
        const ids = [42n, INT64_MAX, -7n, 0n, INT64_MIN, 9007199254740993n, 1n];
        const added = await store().pets.addAll(ids.map((id) => aPet(id)));
        assert.deepEqual(added, { ok: true, value: ids.length });
        const { items } = await drain(store().inventory.list());
        assert.deepEqual(
          items.map((i) => i.petId),
          [...ids].sort((a, b) => (a < b ? -1 : 1)),
        );
      });

      it('gives each entry its quantity and status', async () => {
        await store().pets.addAll([
          aPet(1, { quantity: quantity(0), status: 'sold' }),
          aPet(2, { quantity: quantity(2147483647), status: 'pending' }),
        ]);
        const { items } = await drain(store().inventory.list());
        assert.deepEqual(items, [
          { petId: 1n, quantity: 0, status: 'sold', reserved: 0 },
          { petId: 2n, quantity: 2147483647, status: 'pending', reserved: 0 },
        ]);
      });

      it('streams a long list in bounded chunks', async () => {
        await store().pets.addAll(Array.from({ length: 2_500 }, (_, i) => aPet(i + 1)));
        const { items, chunkSizes } = await drain(store().inventory.list());
        assert.equal(items.length, 2_500);
        assert.ok(chunkSizes.length > 1, `one chunk of ${chunkSizes[0]}`);
        assert.ok(Math.max(...chunkSizes) <= 1_000, `chunks of ${chunkSizes.join(', ')}`);
        assert.deepEqual(
          items.map((i) => Number(i.petId)),
          Array.from({ length: 2_500 }, (_, i) => i + 1),
        );
      });

      it('pages with after and limit', async () => {
        await store().pets.addAll([5, 1, 9, 3, 7].map((id) => aPet(id)));
        const page = await drain(store().inventory.list({ after: petId(3n), limit: 2 }));
        assert.deepEqual(
          page.items.map((i) => i.petId),
          [5n, 7n],
        );
        const rest = await drain(store().inventory.list({ after: petId(7n) }));
        assert.deepEqual(
          rest.items.map((i) => i.petId),
          [9n],
        );
      });
    });

    describe('get', () => {
      it('answers an entry with version 1 when its pet is added', async () => {
        await store().pets.addAll([aPet(INT64_MAX, { quantity: quantity(3), status: 'pending' })]);
        assert.deepEqual(await store().inventory.get(petId(INT64_MAX)), {
          item: { petId: INT64_MAX, quantity: 3, status: 'pending', reserved: 0 },
          version: 1,
        });
      });

      it('answers undefined for an unknown pet', async () => {
        assert.equal(await store().inventory.get(petId(404n)), undefined);
      });
    });

    describe('stamp', () => {
      it('stays the same while nothing changes: reads, refused writes and a failed import leave it', async () => {
        await store().pets.addAll([aPet(1)]);
        const before = await store().inventory.stamp();
        await drain(store().inventory.list());
        await store().inventory.write(aWrite(404n, 1));
        await store().inventory.write(aWrite(1n, 2, { ifVersion: [7] }));
        assertMatches(await store().pets.addAll([aPet(1)]), { ok: false });
        assert.equal(await store().inventory.stamp(), before);
      });

      it('changes after every write', async () => {
        await store().pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const before = await store().inventory.stamp();
        await store().inventory.write(aWrite(1n, 4));
        const after = await store().inventory.stamp();
        assert.notEqual(after, before);
        await store().inventory.write(aWrite(1n, 5));
        assert.notEqual(await store().inventory.stamp(), after);
      });

      it('changes after pets are added', async () => {
        const empty = await store().inventory.stamp();
        await store().pets.addAll([aPet(1)]);
        const one = await store().inventory.stamp();
        assert.notEqual(one, empty);
        await store().pets.addAll([aPet(2), aPet(3)]);
        assert.notEqual(await store().inventory.stamp(), one);
      });
    });

    describe('write', () => {
      it('sets the stock, moves the status by the domain rule, and answers the change and the next version', async () => {
        await store().pets.addAll([aPet(10, { quantity: quantity(3), status: 'available' })]);
        const result = await store().inventory.write(aWrite(10n, 0, { actor: 'key_a' }));
        // The change's id is the store's to choose; what matters of it is its order, checked in history.
        const id = result.ok ? result.value.entries[0]?.change.id : undefined;
        assert.equal(typeof id, 'bigint');
        assert.deepEqual(result, {
          ok: true,
          value: {
            entries: [
              {
                change: {
                  id,
                  kind: 'set',
                  before: { petId: 10n, quantity: 3, status: 'available' },
                  after: { petId: 10n, quantity: 0, status: 'sold' },
                  actor: 'key_a',
                  atMs: AT,
                  reason: null,
                },
                version: 2,
                reserved: 0,
              },
            ],
            replayed: false,
          },
        });
        const { items } = await drain(store().inventory.list());
        assert.deepEqual(items, [{ petId: 10n, quantity: 0, status: 'sold', reserved: 0 }]);
        assert.equal((await store().pets.get(petId(10n)))?.status, 'sold');
        assertMatches(await store().inventory.get(petId(10n)), { version: 2 });
      });

      it('keeps a pending pet pending and makes a sold pet available again', async () => {
        await store().pets.addAll([aPet(1, { status: 'pending' }), aPet(2, { quantity: quantity(0), status: 'sold' })]);
        assertMatches(await afterOf(store().inventory.write(aWrite(1n, 8))), { status: 'pending' });
        assertMatches(await afterOf(store().inventory.write(aWrite(2n, 1))), { status: 'available' });
      });

      it('answers pet_not_found for an unknown pet and records nothing', async () => {
        assert.deepEqual(await store().inventory.write(aWrite(404n, 1)), {
          ok: false,
          error: {
            code: 'pet_not_found',
            message: 'no pet has id 404',
            refusals: [{ index: 0, code: 'pet_not_found', petId: 404n }],
            replayed: false,
          },
        });
        assert.equal(await store().changes.history(petId(404n), { limit: 10 }), undefined);
      });

      it('keeps int64 extreme ids exact through a write', async () => {
        await store().pets.addAll([aPet(INT64_MAX), aPet(INT64_MIN)]);
        assert.deepEqual(await afterOf(store().inventory.write(aWrite(INT64_MAX, 7))), {
          petId: INT64_MAX,
          quantity: 7,
          status: 'available',
          reserved: 0,
        });
        assertMatches(await afterOf(store().inventory.write(aWrite(INT64_MIN, 8))), { petId: INT64_MIN });
        const history = await store().changes.history(petId(INT64_MAX), { limit: 10 });
        assert.deepEqual(
          history?.map((h) => h.after.petId),
          [INT64_MAX],
        );
      });

      it('loses no write when many run at once: every one is recorded and the version counts them', async () => {
        await store().pets.addAll([aPet(1, { quantity: quantity(0), status: 'sold' })]);
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => store().inventory.write(aWrite(1n, i))),
        );
        assert.ok(results.every((r) => r.ok));
        const versions = results.map(versionOf).sort((a, b) => a - b);
        assert.deepEqual(
          versions,
          Array.from({ length: 100 }, (_, i) => i + 2),
        );
        assertMatches(await store().inventory.get(petId(1n)), { version: 101 });
        assert.equal((await store().changes.history(petId(1n), { limit: 1_000 }))?.length, 100);
      });
    });

    describe('write with ifVersion', () => {
      it('writes when the current version is listed', async () => {
        await store().pets.addAll([aPet(1)]);
        const result = await store().inventory.write(aWrite(1n, 9, { ifVersion: [5, 1] }));
        assert.equal(versionOf(result), 2);
      });

      it('refuses a stale version with the current one, and writes nothing', async () => {
        await store().pets.addAll([aPet(1, { quantity: quantity(3) })]);
        await store().inventory.write(aWrite(1n, 4));
        assertMatches(await store().inventory.write(aWrite(1n, 9, { ifVersion: [1] })), {
          ok: false,
          error: {
            code: 'precondition_failed',
            refusals: [{ index: 0, code: 'precondition_failed', petId: 1n, currentVersion: 2 }],
            replayed: false,
          },
        });
        assert.deepEqual(await store().inventory.get(petId(1n)), {
          item: { petId: 1n, quantity: 4, status: 'available', reserved: 0 },
          version: 2,
        });
        assert.equal((await store().changes.history(petId(1n), { limit: 10 }))?.length, 1);
      });

      it('answers pet_not_found before any version check', async () => {
        assertMatches(await store().inventory.write(aWrite(404n, 1, { ifVersion: [1] })), {
          ok: false,
          error: { code: 'pet_not_found' },
        });
      });

      it('lets exactly one of 100 concurrent writes naming the same version win', async () => {
        await store().pets.addAll([aPet(1)]);
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => store().inventory.write(aWrite(1n, i, { ifVersion: [1] }))),
        );
        assert.equal(results.filter((r) => r.ok).length, 1);
        assert.equal(results.filter((r) => !r.ok && r.error.code === 'precondition_failed').length, 99);
        assert.equal((await store().changes.history(petId(1n), { limit: 1_000 }))?.length, 1);
      });
    });

    describe('write with an idempotency claim', () => {
      it('replays the first outcome to a retry and writes nothing more', async () => {
        await store().pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const first = await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        const retry = await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1'), atMs: AT + 1_000 }));
        assertMatches(first, { ok: true, value: { replayed: false } });
        assert.equal(versionOf(first), 2);
        assert.deepEqual(retry, first.ok ? { ok: true, value: { ...first.value, replayed: true } } : undefined);
        assert.equal((await store().changes.history(petId(1n), { limit: 10 }))?.length, 1);
        assertMatches(await store().inventory.get(petId(1n)), { version: 2 });
      });

      it('replays the outcome even after the stock moved on', async () => {
        await store().pets.addAll([aPet(1)]);
        const first = await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        await store().inventory.write(aWrite(1n, 0));
        const retry = await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        assertMatches(retry, { ok: true, value: { replayed: true } });
        assert.equal(versionOf(retry), 2);
        assert.deepEqual(retry.ok && retry.value.entries, first.ok && first.value.entries);
      });

      it('replays a stored pet_not_found and version_mismatch too', async () => {
        await store().pets.addAll([aPet(1)]);
        await store().inventory.write(aWrite(404n, 1, { idempotency: aClaim('missing') }));
        assertMatches(await store().inventory.write(aWrite(404n, 1, { idempotency: aClaim('missing') })), {
          ok: false,
          error: { code: 'pet_not_found', replayed: true },
        });
        await store().inventory.write(aWrite(1n, 1, { ifVersion: [9], idempotency: aClaim('stale') }));
        await store().inventory.write(aWrite(1n, 2));
        assertMatches(await store().inventory.write(aWrite(1n, 1, { ifVersion: [9], idempotency: aClaim('stale') })), {
          ok: false,
          error: { code: 'precondition_failed', refusals: [{ currentVersion: 1 }], replayed: true },
        });
      });

      it('refuses the same key on another request, and writes nothing', async () => {
        await store().pets.addAll([aPet(1)]);
        await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'first request') }));
        assertMatches(await store().inventory.write(aWrite(1n, 8, { idempotency: aClaim('k1', 'other request') })), {
          ok: false,
          error: { code: 'idempotency_key_reused' },
        });
        assertMatches(await store().inventory.get(petId(1n)), { item: { quantity: 7 }, version: 2 });
      });

      it('keeps the claims of two scopes apart', async () => {
        await store().pets.addAll([aPet(1)]);
        await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'f', 'key_a') }));
        const other = await store().inventory.write(aWrite(1n, 8, { idempotency: aClaim('k1', 'f', 'key_b') }));
        assertMatches(other, { ok: true, value: { replayed: false } });
        assert.equal(versionOf(other), 3);
      });

      it('treats an expired claim as none: the key writes afresh', async () => {
        await store().pets.addAll([aPet(1)]);
        await store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'f', 'key_a', AT + 10) }));
        const later = await store().inventory.write(
          aWrite(1n, 8, { atMs: AT + 10, idempotency: aClaim('k1', 'g', 'key_a', AT + 20) }),
        );
        assertMatches(later, { ok: true, value: { replayed: false } });
        assert.equal(versionOf(later), 3);
      });

      it('writes once under concurrent retries: one change, the rest replays (or in use)', async () => {
        await store().pets.addAll([aPet(1)]);
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store().inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }))),
        );
        const firsts = results.filter((r) => r.ok && !r.value.replayed);
        const others = results.filter(
          (r) => (r.ok && r.value.replayed) || (!r.ok && r.error.code === 'idempotency_key_in_use'),
        );
        assert.equal(firsts.length, 1);
        assert.equal(others.length, 49);
        assert.equal((await store().changes.history(petId(1n), { limit: 100 }))?.length, 1);
      });

      it('forgets expired outcomes in bounded batches, and only those', async () => {
        await store().pets.addAll([aPet(1)]);
        for (let i = 0; i < 5; i += 1) {
          await store().inventory.write(aWrite(1n, i, { idempotency: aClaim(`old${i}`, 'f', 'key_a', AT + 100) }));
        }
        await store().inventory.write(aWrite(1n, 9, { idempotency: aClaim('young', 'f', 'key_a', AT + 10_000) }));
        assert.equal(await store().inventory.forgetExpiredOutcomes(AT + 100, 3), 3);
        assert.equal(await store().inventory.forgetExpiredOutcomes(AT + 100, 3), 2);
        assert.equal(await store().inventory.forgetExpiredOutcomes(AT + 100, 3), 0);
        const young = await store().inventory.write(
          aWrite(1n, 9, { idempotency: aClaim('young', 'f', 'key_a', AT + 10_000) }),
        );
        assertMatches(young, { ok: true, value: { replayed: true } });
      });
    });

    describeStockCommandsContract(store, runner);
    describeReservationsContract(store, runner);
    describeHoldExpiryContract(store, runner);
    describeInventoryColumnsContract(store, runner);

    describe('history', () => {
      it('answers every change newest first, with who made it and when', async () => {
        await store().pets.addAll([aPet(1, { quantity: quantity(1) }), aPet(2)]);
        await store().inventory.write(aWrite(1n, 4, { actor: 'key_a', atMs: AT }));
        await store().inventory.write(aWrite(2n, 9, { actor: 'key_b', atMs: AT + 1 }));
        await store().inventory.write(aWrite(1n, 6, { actor: 'key_c', atMs: AT + 2 }));
        const history = (await store().changes.history(petId(1n), { limit: 10 })) ?? [];
        assert.deepEqual(
          history.map((h) => [h.before.quantity, h.after.quantity, h.actor, h.atMs]),
          [
            [4, 6, 'key_c', AT + 2],
            [1, 4, 'key_a', AT],
          ],
        );
        assert.ok((history[0] as StockChange).id > (history[1] as StockChange).id);
      });

      it('keeps each change’s kind and reason, null when none was given', async () => {
        await store().pets.addAll([aPet(1)]);
        const reason = 'stocktake: 2 found behind the shelf 🐈';
        await store().inventory.write({
          orders: [{ kind: 'set', petId: petId(1n), quantity: quantity(4), reason }],
          actor: 'key_a',
          atMs: AT,
        });
        await store().inventory.write(aWrite(1n, 5));
        const history = (await store().changes.history(petId(1n), { limit: 10 })) ?? [];
        assert.deepEqual(
          history.map((h) => [h.kind, h.reason]),
          [
            ['set', null],
            ['set', reason],
          ],
        );
      });

      it('pages with limit and before', async () => {
        await store().pets.addAll([aPet(1)]);
        for (let q = 1; q <= 5; q += 1) await store().inventory.write(aWrite(1n, q));
        const first = (await store().changes.history(petId(1n), { limit: 2 })) ?? [];
        assert.deepEqual(
          first.map((c) => c.after.quantity),
          [5, 4],
        );
        const second =
          (await store().changes.history(petId(1n), { limit: 2, before: (first[1] as StockChange).id })) ?? [];
        assert.deepEqual(
          second.map((c) => c.after.quantity),
          [3, 2],
        );
        const last =
          (await store().changes.history(petId(1n), { limit: 2, before: (second[1] as StockChange).id })) ?? [];
        assert.deepEqual(
          last.map((c) => c.after.quantity),
          [1],
        );
      });

      it('answers an empty page for a pet without changes, and undefined for an unknown pet', async () => {
        await store().pets.addAll([aPet(1)]);
        assert.deepEqual(await store().changes.history(petId(1n), { limit: 10 }), []);
        assert.equal(await store().changes.history(petId(2n), { limit: 10 }), undefined);
      });
    });
  });
}
