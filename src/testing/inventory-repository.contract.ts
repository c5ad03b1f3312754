import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InventoryItem } from '../domain/inventory-item.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';
import type { StockChange } from '../domain/stock-change.js';
import type { IdempotencyClaim, StockCommand } from '../domain/stock-command.js';
import type { StockWriteResult } from '../domain/stock-outcome.js';
import { aPet, INT64_MAX, INT64_MIN } from './mothers.js';
import { describeReservationsContract } from './reservations.contract.js';
import { describeStockCommandsContract } from './stock-commands.contract.js';
import { drain, type MakeStorage, type StorageFixture } from './storage-fixture.js';

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

/** The InventoryRepository (and StockChangeLog) contract, run over every storage adapter. */
export function describeInventoryRepositoryContract(adapter: string, make: MakeStorage): void {
  describe(`InventoryRepository contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('list', () => {
      it('lists nothing when no pet is tracked', async () => {
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([]);
      });

      it('lists every entry once, ordered by petId ascending, int64 extremes included', async () => {
        const ids = [42n, INT64_MAX, -7n, 0n, INT64_MIN, 9007199254740993n, 1n];
        const added = await store.pets.addAll(ids.map((id) => aPet(id)));
        expect(added).toEqual({ ok: true, value: ids.length });
        const { items } = await drain(store.inventory.list());
        expect(items.map((i) => i.petId)).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
      });

      it('gives each entry its quantity and status', async () => {
        await store.pets.addAll([
          aPet(1, { quantity: quantity(0), status: 'sold' }),
          aPet(2, { quantity: quantity(2147483647), status: 'pending' }),
        ]);
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([
          { petId: 1n, quantity: 0, status: 'sold', reserved: 0 },
          { petId: 2n, quantity: 2147483647, status: 'pending', reserved: 0 },
        ]);
      });

      it('streams a long list in bounded chunks', async () => {
        await store.pets.addAll(Array.from({ length: 2_500 }, (_, i) => aPet(i + 1)));
        const { items, chunkSizes } = await drain(store.inventory.list());
        expect(items).toHaveLength(2_500);
        expect(chunkSizes.length).toBeGreaterThan(1);
        expect(Math.max(...chunkSizes)).toBeLessThanOrEqual(1_000);
        expect(items.map((i) => Number(i.petId))).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
      });

      it('pages with after and limit', async () => {
        await store.pets.addAll([5, 1, 9, 3, 7].map((id) => aPet(id)));
        const page = await drain(store.inventory.list({ after: petId(3n), limit: 2 }));
        expect(page.items.map((i) => i.petId)).toEqual([5n, 7n]);
        const rest = await drain(store.inventory.list({ after: petId(7n) }));
        expect(rest.items.map((i) => i.petId)).toEqual([9n]);
      });
    });

    describe('get', () => {
      it('answers an entry with version 1 when its pet is added', async () => {
        await store.pets.addAll([aPet(INT64_MAX, { quantity: quantity(3), status: 'pending' })]);
        expect(await store.inventory.get(petId(INT64_MAX))).toEqual({
          item: { petId: INT64_MAX, quantity: 3, status: 'pending', reserved: 0 },
          version: 1,
        });
      });

      it('answers undefined for an unknown pet', async () => {
        expect(await store.inventory.get(petId(404n))).toBeUndefined();
      });
    });

    describe('stamp', () => {
      it('stays the same while nothing changes: reads, refused writes and a failed import leave it', async () => {
        await store.pets.addAll([aPet(1)]);
        const before = await store.inventory.stamp();
        await drain(store.inventory.list());
        await store.inventory.write(aWrite(404n, 1));
        await store.inventory.write(aWrite(1n, 2, { ifVersion: [7] }));
        expect(await store.pets.addAll([aPet(1)])).toMatchObject({ ok: false });
        expect(await store.inventory.stamp()).toBe(before);
      });

      it('changes after every write', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const before = await store.inventory.stamp();
        await store.inventory.write(aWrite(1n, 4));
        const after = await store.inventory.stamp();
        expect(after).not.toBe(before);
        await store.inventory.write(aWrite(1n, 5));
        expect(await store.inventory.stamp()).not.toBe(after);
      });

      it('changes after pets are added', async () => {
        const empty = await store.inventory.stamp();
        await store.pets.addAll([aPet(1)]);
        const one = await store.inventory.stamp();
        expect(one).not.toBe(empty);
        await store.pets.addAll([aPet(2), aPet(3)]);
        expect(await store.inventory.stamp()).not.toBe(one);
      });
    });

    describe('write', () => {
      it('sets the stock, moves the status by the domain rule, and answers the change and the next version', async () => {
        await store.pets.addAll([aPet(10, { quantity: quantity(3), status: 'available' })]);
        const result = await store.inventory.write(aWrite(10n, 0, { actor: 'key_a' }));
        expect(result).toEqual({
          ok: true,
          value: {
            entries: [
              {
                change: {
                  id: expect.any(BigInt),
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
        const { items } = await drain(store.inventory.list());
        expect(items).toEqual([{ petId: 10n, quantity: 0, status: 'sold', reserved: 0 }]);
        expect((await store.pets.get(petId(10n)))?.status).toBe('sold');
        expect(await store.inventory.get(petId(10n))).toMatchObject({ version: 2 });
      });

      it('keeps a pending pet pending and makes a sold pet available again', async () => {
        await store.pets.addAll([aPet(1, { status: 'pending' }), aPet(2, { quantity: quantity(0), status: 'sold' })]);
        expect(await afterOf(store.inventory.write(aWrite(1n, 8)))).toMatchObject({ status: 'pending' });
        expect(await afterOf(store.inventory.write(aWrite(2n, 1)))).toMatchObject({ status: 'available' });
      });

      it('answers pet_not_found for an unknown pet and records nothing', async () => {
        expect(await store.inventory.write(aWrite(404n, 1))).toEqual({
          ok: false,
          error: {
            code: 'pet_not_found',
            message: 'no pet has id 404',
            refusals: [{ index: 0, code: 'pet_not_found', petId: 404n }],
            replayed: false,
          },
        });
        expect(await store.changes.history(petId(404n), { limit: 10 })).toBeUndefined();
      });

      it('keeps int64 extreme ids exact through a write', async () => {
        await store.pets.addAll([aPet(INT64_MAX), aPet(INT64_MIN)]);
        expect(await afterOf(store.inventory.write(aWrite(INT64_MAX, 7)))).toEqual({
          petId: INT64_MAX,
          quantity: 7,
          status: 'available',
          reserved: 0,
        });
        expect(await afterOf(store.inventory.write(aWrite(INT64_MIN, 8)))).toMatchObject({ petId: INT64_MIN });
        const history = await store.changes.history(petId(INT64_MAX), { limit: 10 });
        expect(history?.map((h) => h.after.petId)).toEqual([INT64_MAX]);
      });

      it('loses no write when many run at once: every one is recorded and the version counts them', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(0), status: 'sold' })]);
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.inventory.write(aWrite(1n, i))));
        expect(results.every((r) => r.ok)).toBe(true);
        const versions = results.map(versionOf).sort((a, b) => a - b);
        expect(versions).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
        expect(await store.inventory.get(petId(1n))).toMatchObject({ version: 101 });
        expect(await store.changes.history(petId(1n), { limit: 1_000 })).toHaveLength(100);
      });
    });

    describe('write with ifVersion', () => {
      it('writes when the current version is listed', async () => {
        await store.pets.addAll([aPet(1)]);
        const result = await store.inventory.write(aWrite(1n, 9, { ifVersion: [5, 1] }));
        expect(versionOf(result)).toBe(2);
      });

      it('refuses a stale version with the current one, and writes nothing', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(3) })]);
        await store.inventory.write(aWrite(1n, 4));
        expect(await store.inventory.write(aWrite(1n, 9, { ifVersion: [1] }))).toMatchObject({
          ok: false,
          error: {
            code: 'precondition_failed',
            refusals: [{ index: 0, code: 'precondition_failed', petId: 1n, currentVersion: 2 }],
            replayed: false,
          },
        });
        expect(await store.inventory.get(petId(1n))).toEqual({
          item: { petId: 1n, quantity: 4, status: 'available', reserved: 0 },
          version: 2,
        });
        expect(await store.changes.history(petId(1n), { limit: 10 })).toHaveLength(1);
      });

      it('answers pet_not_found before any version check', async () => {
        expect(await store.inventory.write(aWrite(404n, 1, { ifVersion: [1] }))).toMatchObject({
          ok: false,
          error: { code: 'pet_not_found' },
        });
      });

      it('lets exactly one of 100 concurrent writes naming the same version win', async () => {
        await store.pets.addAll([aPet(1)]);
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => store.inventory.write(aWrite(1n, i, { ifVersion: [1] }))),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.error.code === 'precondition_failed')).toHaveLength(99);
        expect(await store.changes.history(petId(1n), { limit: 1_000 })).toHaveLength(1);
      });
    });

    describe('write with an idempotency claim', () => {
      it('replays the first outcome to a retry and writes nothing more', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(3) })]);
        const first = await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        const retry = await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1'), atMs: AT + 1_000 }));
        expect(first).toMatchObject({ ok: true, value: { replayed: false } });
        expect(versionOf(first)).toBe(2);
        expect(retry).toEqual(first.ok ? { ok: true, value: { ...first.value, replayed: true } } : undefined);
        expect(await store.changes.history(petId(1n), { limit: 10 })).toHaveLength(1);
        expect(await store.inventory.get(petId(1n))).toMatchObject({ version: 2 });
      });

      it('replays the outcome even after the stock moved on', async () => {
        await store.pets.addAll([aPet(1)]);
        const first = await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        await store.inventory.write(aWrite(1n, 0));
        const retry = await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }));
        expect(retry).toMatchObject({ ok: true, value: { replayed: true } });
        expect(versionOf(retry)).toBe(2);
        expect(retry.ok && retry.value.entries).toEqual(first.ok && first.value.entries);
      });

      it('replays a stored pet_not_found and version_mismatch too', async () => {
        await store.pets.addAll([aPet(1)]);
        await store.inventory.write(aWrite(404n, 1, { idempotency: aClaim('missing') }));
        expect(await store.inventory.write(aWrite(404n, 1, { idempotency: aClaim('missing') }))).toMatchObject({
          ok: false,
          error: { code: 'pet_not_found', replayed: true },
        });
        await store.inventory.write(aWrite(1n, 1, { ifVersion: [9], idempotency: aClaim('stale') }));
        await store.inventory.write(aWrite(1n, 2));
        expect(
          await store.inventory.write(aWrite(1n, 1, { ifVersion: [9], idempotency: aClaim('stale') })),
        ).toMatchObject({
          ok: false,
          error: { code: 'precondition_failed', refusals: [{ currentVersion: 1 }], replayed: true },
        });
      });

      it('refuses the same key on another request, and writes nothing', async () => {
        await store.pets.addAll([aPet(1)]);
        await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'first request') }));
        expect(
          await store.inventory.write(aWrite(1n, 8, { idempotency: aClaim('k1', 'other request') })),
        ).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });
        expect(await store.inventory.get(petId(1n))).toMatchObject({ item: { quantity: 7 }, version: 2 });
      });

      it('keeps the claims of two scopes apart', async () => {
        await store.pets.addAll([aPet(1)]);
        await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'f', 'key_a') }));
        const other = await store.inventory.write(aWrite(1n, 8, { idempotency: aClaim('k1', 'f', 'key_b') }));
        expect(other).toMatchObject({ ok: true, value: { replayed: false } });
        expect(versionOf(other)).toBe(3);
      });

      it('treats an expired claim as none: the key writes afresh', async () => {
        await store.pets.addAll([aPet(1)]);
        await store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1', 'f', 'key_a', AT + 10) }));
        const later = await store.inventory.write(
          aWrite(1n, 8, { atMs: AT + 10, idempotency: aClaim('k1', 'g', 'key_a', AT + 20) }),
        );
        expect(later).toMatchObject({ ok: true, value: { replayed: false } });
        expect(versionOf(later)).toBe(3);
      });

      it('writes once under concurrent retries: one change, the rest replays (or in use)', async () => {
        await store.pets.addAll([aPet(1)]);
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.inventory.write(aWrite(1n, 7, { idempotency: aClaim('k1') }))),
        );
        const firsts = results.filter((r) => r.ok && !r.value.replayed);
        const others = results.filter(
          (r) => (r.ok && r.value.replayed) || (!r.ok && r.error.code === 'idempotency_key_in_use'),
        );
        expect(firsts).toHaveLength(1);
        expect(others).toHaveLength(49);
        expect(await store.changes.history(petId(1n), { limit: 100 })).toHaveLength(1);
      });

      it('forgets expired outcomes in bounded batches, and only those', async () => {
        await store.pets.addAll([aPet(1)]);
        for (let i = 0; i < 5; i += 1) {
          await store.inventory.write(aWrite(1n, i, { idempotency: aClaim(`old${i}`, 'f', 'key_a', AT + 100) }));
        }
        await store.inventory.write(aWrite(1n, 9, { idempotency: aClaim('young', 'f', 'key_a', AT + 10_000) }));
        expect(await store.inventory.forgetExpiredOutcomes(AT + 100, 3)).toBe(3);
        expect(await store.inventory.forgetExpiredOutcomes(AT + 100, 3)).toBe(2);
        expect(await store.inventory.forgetExpiredOutcomes(AT + 100, 3)).toBe(0);
        const young = await store.inventory.write(
          aWrite(1n, 9, { idempotency: aClaim('young', 'f', 'key_a', AT + 10_000) }),
        );
        expect(young).toMatchObject({ ok: true, value: { replayed: true } });
      });
    });

    describeStockCommandsContract(() => store);
    describeReservationsContract(() => store);

    describe('history', () => {
      it('answers every change newest first, with who made it and when', async () => {
        await store.pets.addAll([aPet(1, { quantity: quantity(1) }), aPet(2)]);
        await store.inventory.write(aWrite(1n, 4, { actor: 'key_a', atMs: AT }));
        await store.inventory.write(aWrite(2n, 9, { actor: 'key_b', atMs: AT + 1 }));
        await store.inventory.write(aWrite(1n, 6, { actor: 'key_c', atMs: AT + 2 }));
        const history = (await store.changes.history(petId(1n), { limit: 10 })) ?? [];
        expect(history.map((h) => [h.before.quantity, h.after.quantity, h.actor, h.atMs])).toEqual([
          [4, 6, 'key_c', AT + 2],
          [1, 4, 'key_a', AT],
        ]);
        expect((history[0] as StockChange).id > (history[1] as StockChange).id).toBe(true);
      });

      it('keeps each change’s kind and reason, null when none was given', async () => {
        await store.pets.addAll([aPet(1)]);
        const reason = 'stocktake: 2 found behind the shelf 🐈';
        await store.inventory.write({
          orders: [{ kind: 'set', petId: petId(1n), quantity: quantity(4), reason }],
          actor: 'key_a',
          atMs: AT,
        });
        await store.inventory.write(aWrite(1n, 5));
        const history = (await store.changes.history(petId(1n), { limit: 10 })) ?? [];
        expect(history.map((h) => [h.kind, h.reason])).toEqual([
          ['set', null],
          ['set', reason],
        ]);
      });

      it('pages with limit and before', async () => {
        await store.pets.addAll([aPet(1)]);
        for (let q = 1; q <= 5; q += 1) await store.inventory.write(aWrite(1n, q));
        const first = (await store.changes.history(petId(1n), { limit: 2 })) ?? [];
        expect(first.map((c) => c.after.quantity)).toEqual([5, 4]);
        const second =
          (await store.changes.history(petId(1n), { limit: 2, before: (first[1] as StockChange).id })) ?? [];
        expect(second.map((c) => c.after.quantity)).toEqual([3, 2]);
        const last =
          (await store.changes.history(petId(1n), { limit: 2, before: (second[1] as StockChange).id })) ?? [];
        expect(last.map((c) => c.after.quantity)).toEqual([1]);
      });

      it('answers an empty page for a pet without changes, and undefined for an unknown pet', async () => {
        await store.pets.addAll([aPet(1)]);
        expect(await store.changes.history(petId(1n), { limit: 10 })).toEqual([]);
        expect(await store.changes.history(petId(2n), { limit: 10 })).toBeUndefined();
      });
    });
  });
}
