import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryInventoryRepository } from '../../src/adapters/memory/memory-inventory-repository.js';
import { MemoryPetCatalog } from '../../src/adapters/memory/memory-pet-catalog.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import type { KeyGenerator, KeyHasher } from '../../src/application/ports/key-crypto.js';
import { Authenticate } from '../../src/application/use-cases/authenticate.js';
import { GetPet } from '../../src/application/use-cases/get-pet.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { ListInventory } from '../../src/application/use-cases/list-inventory.js';
import { RevokeApiKey } from '../../src/application/use-cases/revoke-api-key.js';
import { UpdateStock } from '../../src/application/use-cases/update-stock.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { drain } from '../contracts/storage-fixture.js';
import { ManualClock } from '../support/manual-clock.js';
import { aPet } from '../support/mothers.js';

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
    inventory = new MemoryInventoryRepository(store);
    keys = new MemoryApiKeyStore(store);
    crypto = new CountingKeys();
  });

  describe('UpdateStock', () => {
    it('sets the stock, moves the status and records who did it and when', async () => {
      await new MemoryPetCatalog(store).addAll([aPet(1, { quantity: quantity(2), status: 'pending' })]);
      const result = await new UpdateStock(inventory, clock).execute({
        petId: petId(1n),
        quantity: quantity(0),
        actor: 'key_1',
      });
      expect(result).toEqual({ ok: true, value: { petId: 1n, quantity: 0, status: 'sold' } });
      expect(await inventory.history(petId(1n))).toEqual([
        {
          before: { petId: 1n, quantity: 2, status: 'pending' },
          after: { petId: 1n, quantity: 0, status: 'sold' },
          actor: 'key_1',
          atMs: clock.ms,
        },
      ]);
    });

    it('answers pet_not_found for an unknown pet', async () => {
      const result = await new UpdateStock(inventory, clock).execute({
        petId: petId(5n),
        quantity: quantity(1),
        actor: 'k',
      });
      expect(result).toEqual({ ok: false, error: { code: 'pet_not_found', message: 'no pet has id 5' } });
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
      expect(record).toMatchObject({ plan: 'pro', policy: { perMinute: 300, perDay: 10_000 }, label: 'shop' });
      expect(JSON.stringify([...store.keys.values()])).not.toContain(key.slice(4));
      const result = await new Authenticate(keys, crypto).execute({ apiKey: key });
      expect(result).toEqual({ ok: true, value: { keyId: record.id, plan: 'pro', policy: record.policy } });
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
        expect(await new Authenticate(keys, crypto).execute({ apiKey })).toMatchObject({
          ok: false,
          error: { code: 'unauthorized' },
        });
      },
    );

    it('refuses a key once it is revoked, by id or by the key itself', async () => {
      const issue = new IssueApiKey(keys, crypto, crypto, clock);
      const revoke = new RevokeApiKey(keys, crypto, clock);
      const authenticate = new Authenticate(keys, crypto);
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
  });
});
