import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryInventoryRepository } from '../../src/adapters/memory/memory-inventory-repository.js';
import { MemoryPetCatalog } from '../../src/adapters/memory/memory-pet-catalog.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import { MemoryWebhookStore } from '../../src/adapters/memory/memory-webhook-store.js';
import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';
import type { KeyGenerator, KeyHasher } from '../../src/application/ports/key-crypto.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { Authenticate } from '../../src/application/use-cases/authenticate.js';
import { EXPIRE_BATCH, ExpireReservations } from '../../src/application/use-cases/expire-reservations.js';
import { FORGET_BATCH, ForgetExpiredOutcomes } from '../../src/application/use-cases/forget-expired-outcomes.js';
import {
  FORGET_DELIVERIES_BATCH,
  ForgetSettledDeliveries,
  SETTLED_DELIVERY_RETENTION_MS,
} from '../../src/application/use-cases/forget-settled-deliveries.js';
import { GetInventoryItem } from '../../src/application/use-cases/get-inventory-item.js';
import { GetPet } from '../../src/application/use-cases/get-pet.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { ListInventory } from '../../src/application/use-cases/list-inventory.js';
import { ListStockChanges } from '../../src/application/use-cases/list-stock-changes.js';
import { RevokeApiKey } from '../../src/application/use-cases/revoke-api-key.js';
import { UpdateStock, type UpdateStockInput } from '../../src/application/use-cases/update-stock.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, drain, ManualClock } from '../../src/testing/index.js';
import { delegateInventory } from '../support/delegate-inventory.js';

/** Deterministic keys, so that the tests can name them; the real generator is tested with its adapter. */
class CountingKeys implements KeyGenerator, KeyHasher {
  private n = 0;
  newKey(): string {
    this.n += 1;
    return `psk_${String(this.n).padStart(40, '0')}`;
  }
  newKeyId(): string {
    return `key_${this.n}`;
  }
  /** FNV-1a: a real digest, short and dependency-free, so a stored hash cannot contain the key. */
  hash(key: string): string {
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
    return h.toString(16);
  }
}

describe('use cases over the in-memory adapters', () => {
  let clock: ManualClock;
  let store: MemoryStore;
  let inventory: MemoryInventoryRepository;
  let keys: MemoryApiKeyStore;
  let crypto: CountingKeys;
  beforeEach(() => {
    clock = new ManualClock();
    store = new MemoryStore();
    inventory = new MemoryInventoryRepository(store, clock);
    keys = new MemoryApiKeyStore(store);
    crypto = new CountingKeys();
  });

  const update = (input: Partial<UpdateStockInput> = {}, repository: InventoryRepository = inventory) =>
    new UpdateStock(new StockCommandRunner(repository, clock, { idempotencyTtlMs: 60_000 })).execute({
      petId: petId(1n),
      quantity: quantity(0),
      actor: 'key_1',
      ...input,
    });

  describe('UpdateStock', () => {
    it('sets the stock, moves the status, answers the new version and records who did it and when', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1, { quantity: quantity(2), status: 'pending' })]);
      const result = await update();
      expect(result).toEqual({
        ok: true,
        value: {
          entry: { item: { petId: 1n, quantity: 0, status: 'sold', reserved: 0 }, version: 2 },
          replayed: false,
        },
      });
      expect(await inventory.history(petId(1n), { limit: 10 })).toEqual([
        {
          id: 1n,
          kind: 'set',
          before: { petId: 1n, quantity: 2, status: 'pending' },
          after: { petId: 1n, quantity: 0, status: 'sold' },
          actor: 'key_1',
          atMs: clock.ms,
          reason: null,
        },
      ]);
    });

    it('answers pet_not_found for an unknown pet', async () => {
      const result = await update({ petId: petId(5n), quantity: quantity(1), actor: 'k' });
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'pet_not_found',
          message: 'no pet has id 5',
          refusal: { index: 0, code: 'pet_not_found', petId: 5n },
          refusals: [{ index: 0, code: 'pet_not_found', petId: 5n }],
          replayed: false,
        },
      });
    });

    it('answers precondition_failed with the current version when If-Match names another', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      const result = await update({ ifVersion: [3] });
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'precondition_failed', refusals: [{ currentVersion: 1 }] },
      });
    });

    it('keeps the outcome of a keyed write for the configured time, scoped to the actor', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      const idempotency = { key: 'retry-1', fingerprint: 'f' };
      await update({ idempotency });
      expect(await update({ idempotency })).toMatchObject({ ok: true, value: { replayed: true } });
      expect(await update({ idempotency, actor: 'key_2' })).toMatchObject({ ok: true, value: { replayed: false } });
      clock.advance(60_000);
      expect(await update({ idempotency })).toMatchObject({ ok: true, value: { replayed: false } });
      expect(await update({ idempotency: { key: 'retry-1', fingerprint: 'g' } })).toMatchObject({
        ok: false,
        error: { code: 'idempotency_key_reused' },
      });
    });

    it('answers idempotency_key_in_use while the first write of a key is still under way', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow = delegateInventory(inventory, {
        write: async (command) => {
          await held;
          return inventory.write(command);
        },
      });
      const useCase = new UpdateStock(new StockCommandRunner(slow, clock));
      const input = {
        petId: petId(1n),
        quantity: quantity(4),
        actor: 'key_1',
        idempotency: { key: 'k', fingerprint: 'f' },
      };
      const first = useCase.execute(input);
      expect(await useCase.execute(input)).toMatchObject({ ok: false, error: { code: 'idempotency_key_in_use' } });
      release();
      expect(await first).toMatchObject({ ok: true, value: { replayed: false } });
      expect(await useCase.execute(input)).toMatchObject({ ok: true, value: { replayed: true } });
    });
  });

  describe('GetInventoryItem', () => {
    it('answers the entry with its version, or pet_not_found', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      const get = new GetInventoryItem(inventory);
      expect(await get.execute({ petId: petId(1n) })).toEqual({
        ok: true,
        value: { item: { petId: 1n, quantity: 5, status: 'available', reserved: 0 }, version: 1 },
      });
      expect(await get.execute({ petId: petId(2n) })).toMatchObject({ ok: false, error: { code: 'pet_not_found' } });
    });
  });

  describe('ListStockChanges', () => {
    it('answers a page of changes newest first, or pet_not_found', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      for (const q of [1, 2, 3]) await update({ quantity: quantity(q) });
      const list = new ListStockChanges(inventory);
      const page = await list.execute({ petId: petId(1n), limit: 2 });
      expect(page.ok && page.value.map((c) => c.after.quantity)).toEqual([3, 2]);
      expect(await list.execute({ petId: petId(9n), limit: 2 })).toMatchObject({
        ok: false,
        error: { code: 'pet_not_found' },
      });
    });
  });

  describe('ForgetExpiredOutcomes', () => {
    it('forgets every expired outcome, batch after batch, and keeps the others', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      for (let i = 0; i < FORGET_BATCH + 3; i += 1) {
        await update({ quantity: quantity(i), idempotency: { key: `k${i}`, fingerprint: 'f' } });
      }
      clock.advance(30_000);
      await update({ idempotency: { key: 'young', fingerprint: 'f' } });
      clock.advance(30_000);
      expect(await new ForgetExpiredOutcomes(inventory, clock).execute()).toBe(FORGET_BATCH + 3);
      expect(store.claims.size).toBe(1);
    });
  });

  describe('ExpireReservations', () => {
    const reserveOne = (pet: bigint, ttlMs: number) =>
      inventory.writeReservation({
        reservation: { kind: 'reserve', petId: petId(pet), quantity: quantity(1), ttlMs },
        actor: 'key_a',
        atMs: clock.ms,
      });

    it('marks the lapsed holds of every pet, a batch of pets after another, and keeps the holds still held', async () => {
      const pets = EXPIRE_BATCH + 3;
      await new MemoryPetCatalog(store).addAll(Array.from({ length: pets }, (_, i) => aPet(i + 1)));
      for (let i = 1; i <= pets; i += 1) await reserveOne(BigInt(i), 60_000);
      await reserveOne(1n, 120_000);
      clock.advance(60_000);
      expect(await new ExpireReservations(inventory, clock).execute()).toBe(pets);
      expect(await inventory.petsWithLapsedHolds(clock.ms, pets)).toEqual([]);
      expect((await inventory.get(petId(1n)))?.item.reserved).toBe(1);
    });

    it('stops when a batch of pets marks nothing, rather than looking again for ever', async () => {
      await new MemoryPetCatalog(store).addAll(Array.from({ length: EXPIRE_BATCH }, (_, i) => aPet(i + 1)));
      for (let i = 1; i <= EXPIRE_BATCH; i += 1) await reserveOne(BigInt(i), 60_000);
      clock.advance(60_000);
      let looks = 0;
      const stuck = delegateInventory(inventory, {
        petsWithLapsedHolds: (nowMs, max) => {
          looks += 1;
          return inventory.petsWithLapsedHolds(nowMs, max);
        },
        markLapse: async () => 0,
      });
      expect(await new ExpireReservations(stuck, clock).execute()).toBe(0);
      expect(looks).toBe(1);
    });
  });

  describe('ForgetSettledDeliveries', () => {
    it('forgets the settled deliveries past the retention, batch after batch, and keeps the newer ones', async () => {
      const webhooks = new MemoryWebhookStore(store);
      const pets = FORGET_DELIVERIES_BATCH + 3;
      await new MemoryPetCatalog(store).addAll(Array.from({ length: pets }, (_, i) => aPet(i + 1)));
      await webhooks.addEndpoint({
        id: 'whk_a',
        url: 'https://hooks.example/a',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        events: ['inventory.updated'],
        lowStockThreshold: null,
        createdAtMs: clock.ms,
      });
      const settleAll = async () => {
        await webhooks.route(10_000);
        const leased = await webhooks.lease(clock.ms, 10_000, 15_000);
        const settlement = { atMs: clock.ms, status: 204, error: null, delivered: true, nextAttemptMs: null };
        for (const d of leased) await webhooks.settle(d, { ...settlement, disableEndpoint: false });
        return leased.length;
      };
      for (let i = 1; i <= pets; i += 1) await update({ petId: petId(BigInt(i)), quantity: quantity(5) });
      expect(await settleAll()).toBe(pets);
      clock.advance(SETTLED_DELIVERY_RETENTION_MS);
      await update({ petId: petId(1n), quantity: quantity(6) });
      expect(await settleAll()).toBe(1);
      const forget = new ForgetSettledDeliveries(webhooks, clock);
      // Exactly the retention old: kept.
      expect(await forget.execute()).toBe(0);
      clock.advance(1);
      expect(await forget.execute()).toBe(pets);
      expect((await webhooks.attempts('whk_a', 10_000))?.length).toBe(1);
    });
  });

  describe('ListInventory', () => {
    it('lists every pet ordered by id', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(3), aPet(-2), aPet(1)]);
      const { items } = await drain(new ListInventory(inventory).execute());
      expect(items.map((i) => i.petId)).toEqual([-2n, 1n, 3n]);
    });
  });

  describe('GetPet', () => {
    it('answers the pet, or pet_not_found', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1)]);
      const getPet = new GetPet(new MemoryPetCatalog(store));
      expect((await getPet.execute({ petId: petId(1n) })).ok).toBe(true);
      expect(await getPet.execute({ petId: petId(2n) })).toMatchObject({ ok: false, error: { code: 'pet_not_found' } });
    });
  });

  describe('keys: issue, authenticate, revoke', () => {
    it('authenticates an issued key as its principal, and stores only its hash', async () => {
      const { key, record } = await new IssueApiKey(keys, crypto, crypto, clock).execute({
        plan: 'pro',
        label: 'shop',
      });
      expect(record).toMatchObject({ plan: 'pro', policy: { perMinute: 300, perDay: 10_000 }, name: 'shop' });
      expect(JSON.stringify([...store.keys.values()])).not.toContain(key.slice(4));
      const result = await new Authenticate(keys, crypto, clock).execute({ apiKey: key });
      expect(result).toEqual({
        ok: true,
        value: {
          keyId: record.id,
          plan: 'pro',
          policy: record.policy,
          name: 'shop',
          scopes: ['inventory:read', 'inventory:write'],
          limitSubject: `key:${record.id}`,
          expiresAtMs: null,
        },
      });
    });

    it('gives an enterprise key its own limits and refuses limits on another plan', async () => {
      const issue = new IssueApiKey(keys, crypto, crypto, clock);
      const { record } = await issue.execute({ plan: 'enterprise', limits: { perMinute: 9, perDay: 99 } });
      expect(record.policy).toEqual({ perMinute: 9, perDay: 99 });
      await expect(issue.execute({ plan: 'free', limits: { perMinute: 9, perDay: 99 } })).rejects.toThrow(RangeError);
      await expect(issue.execute({ plan: 'enterprise' })).rejects.toThrow(RangeError);
    });

    it.each(['', 'psk_short', 'Bearer x', `psk_${'0'.repeat(39)}!`, `psk_${'9'.repeat(40)}`])(
      'refuses the unknown or malformed key %j',
      async (apiKey) => {
        expect(await new Authenticate(keys, crypto, clock).execute({ apiKey })).toMatchObject({
          ok: false,
          error: { code: 'unauthorized' },
        });
      },
    );

    it('refuses a key once it is revoked, by id or by the key itself', async () => {
      const issue = new IssueApiKey(keys, crypto, crypto, clock);
      const revoke = new RevokeApiKey(keys, crypto, clock);
      const authenticate = new Authenticate(keys, crypto, clock);
      const a = await issue.execute({ plan: 'free' });
      const b = await issue.execute({ plan: 'free' });
      expect((await revoke.execute({ idOrKey: a.record.id })).ok).toBe(true);
      expect((await revoke.execute({ idOrKey: b.key })).ok).toBe(true);
      expect((await authenticate.execute({ apiKey: a.key })).ok).toBe(false);
      expect((await authenticate.execute({ apiKey: b.key })).ok).toBe(false);
      expect(await revoke.execute({ idOrKey: 'key_none' })).toMatchObject({
        ok: false,
        error: { code: 'key_not_found' },
      });
    });

    it('answers at once when the hasher and the store answer at once, and waits for any thenable otherwise', async () => {
      const { key, record } = await new IssueApiKey(keys, crypto, crypto, clock).execute({ plan: 'free' });
      const found = await keys.findByHash(crypto.hash(key));
      // A store that remembers the key (the server's cache) answers without a promise.
      const atOnce = { ...keys, findByHash: () => found } as unknown as MemoryApiKeyStore;
      const now = new Authenticate(atOnce, crypto, clock).answer(key);
      expect(now).not.toBeInstanceOf(Promise);
      expect(now).toMatchObject({ ok: true, value: { keyId: record.id } });
      // A thenable that is not a native promise (another library's) is waited for, never taken as the record.
      // biome-ignore lint/suspicious/noThenProperty: a thenable of another library, on purpose
      const thenable = { then: (resolve: (r: typeof found) => void) => resolve(found) };
      const later = { ...keys, findByHash: () => thenable } as unknown as MemoryApiKeyStore;
      const answer = new Authenticate(later, crypto, clock).answer(key);
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toMatchObject({ ok: true, value: { keyId: record.id } });
      // So is a hasher's thenable digest.
      // biome-ignore lint/suspicious/noThenProperty: a thenable digest, on purpose
      const slowHasher = { hash: (k: string) => ({ then: (resolve: (d: string) => void) => resolve(crypto.hash(k)) }) };
      const hashedLater = new Authenticate(atOnce, slowHasher as unknown as CountingKeys, clock).answer(key);
      expect(await hashedLater).toMatchObject({ ok: true, value: { keyId: record.id } });
    });
  });
});
