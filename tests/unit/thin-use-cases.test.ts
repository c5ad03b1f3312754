import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { AddPets } from '../../src/application/use-cases/add-pets.js';
import { AdmitRequest } from '../../src/application/use-cases/admit-request.js';
import { EnableWebhook } from '../../src/application/use-cases/enable-webhook.js';
import { ExportPets } from '../../src/application/use-cases/export-pets.js';
import { GetRateLimit } from '../../src/application/use-cases/get-rate-limit.js';
import { ImportOrders } from '../../src/application/use-cases/import-orders.js';
import { ListApiKeys } from '../../src/application/use-cases/list-api-keys.js';
import { ListInventory } from '../../src/application/use-cases/list-inventory.js';
import { ListOrders } from '../../src/application/use-cases/list-orders.js';
import { ListWebhookDeliveries } from '../../src/application/use-cases/list-webhook-deliveries.js';
import { ListWebhooks } from '../../src/application/use-cases/list-webhooks.js';
import { RemoveWebhook } from '../../src/application/use-cases/remove-webhook.js';
import { UpdateStockBatch } from '../../src/application/use-cases/update-stock-batch.js';
import { createWebhookAdmin } from '../../src/application/webhook-core.js';
import { petId } from '../../src/domain/pet-id.js';
import { rateLimitPolicy } from '../../src/domain/plan.js';
import { quantity } from '../../src/domain/quantity.js';
import { adjustBy, aKeyRecord, anOrder, aPet, drain, ManualClock, setTo, streamOf } from '../../src/testing/index.js';

// The use cases that hand one call to one port: each test shows the call reaches the port and its
// answer comes back, over the in-memory store.
describe('the use cases that pass a call to their port, over the in-memory store', () => {
  let clock: ManualClock;
  let storage: ReturnType<typeof createMemoryStorage>;
  beforeEach(() => {
    clock = new ManualClock();
    storage = createMemoryStorage(clock);
  });
  const endpoint = {
    id: 'whk_0000000000000001',
    url: 'https://hooks.example.com/stock',
    secret: `whsec_${'A'.repeat(32)}`,
    events: ['inventory.updated'] as const,
    lowStockThreshold: null,
    createdAtMs: 0,
  };

  describe('AddPets', () => {
    it('adds an array of pets, all of them, and answers how many', async () => {
      expect(await new AddPets(storage.pets).execute([aPet(1), aPet(2)])).toEqual({ ok: true, value: 2 });
      expect((await storage.inventory.get(petId(2n)))?.item.quantity).toBe(5);
    });

    it('adds a stream of batches, and answers how many', async () => {
      expect(await new AddPets(storage.pets).execute(streamOf([aPet(1)], [aPet(2), aPet(3)]))).toEqual({
        ok: true,
        value: 3,
      });
    });

    it('throws a RangeError naming the pet that opens available without stock, adding none of the array', async () => {
      const pets = [aPet(1), aPet(2, { quantity: quantity(0) })];
      await expect(new AddPets(storage.pets).execute(pets)).rejects.toThrow(
        new RangeError('pet 2: status available contradicts quantity 0: a pet without stock is sold'),
      );
      expect(await storage.inventory.get(petId(1n))).toBeUndefined();
    });

    it('throws a RangeError for a pet of a streamed batch that opens sold with stock, adding none', async () => {
      const batches = streamOf([aPet(1)], [aPet(2, { status: 'sold' })]);
      await expect(new AddPets(storage.pets).execute(batches)).rejects.toThrow(
        new RangeError('pet 2: status sold contradicts quantity 5: a pet with stock is not sold'),
      );
      expect(await storage.inventory.get(petId(1n))).toBeUndefined();
    });

    it('adds a pet that opens sold without stock', async () => {
      const sold = aPet(1, { status: 'sold', quantity: quantity(0) });
      expect(await new AddPets(storage.pets).execute([sold])).toEqual({ ok: true, value: 1 });
    });
  });

  it('ExportPets hands out every pet with its stock', async () => {
    await storage.pets.addAll([aPet(1), aPet(2)]);
    const ids: bigint[] = [];
    for await (const chunk of new ExportPets(storage.pets).execute()) ids.push(...chunk.map((pet) => pet.id));
    expect(ids).toEqual([1n, 2n]);
  });

  describe('ImportOrders', () => {
    beforeEach(async () => {
      await storage.pets.addAll([aPet(1)]);
    });

    it('adds an array of orders, listed by id after', async () => {
      const orders = [anOrder(2, petId(1n)), anOrder(1, petId(1n))];
      expect(await new ImportOrders(storage.orders).execute(orders)).toEqual({ ok: true, value: 2 });
      expect((await new ListOrders(storage.orders).execute()).map((order) => order.id)).toEqual([1n, 2n]);
    });

    it('adds a stream of batches of orders', async () => {
      const batches = streamOf([anOrder(1, petId(1n))], [anOrder(2, petId(1n))]);
      expect(await new ImportOrders(storage.orders).execute(batches)).toEqual({ ok: true, value: 2 });
      expect(await new ListOrders(storage.orders).execute()).toHaveLength(2);
    });
  });

  it('ListApiKeys answers every stored key', async () => {
    await storage.keys.add({ ...aKeyRecord('key_1'), hash: 'h' }, 'admin');
    expect(await new ListApiKeys(storage.keys).execute()).toEqual([aKeyRecord('key_1')]);
  });

  describe('ListInventory', () => {
    beforeEach(async () => {
      await storage.pets.addAll([aPet(1), aPet(2, { quantity: quantity(7) })]);
    });

    it('streams every stock level by petId', async () => {
      const { items } = await drain(new ListInventory(storage.inventory).execute());
      expect(items.map((item) => [item.petId, item.quantity])).toEqual([
        [1n, 5],
        [2n, 7],
      ]);
    });

    it('answers a page with each pet’s name', async () => {
      const page = await new ListInventory(storage.inventory).page({ limit: 1 });
      expect(page.map((entry) => entry.name)).toEqual(['pet 1']);
    });

    it('answers a stamp that changes when the stock does', async () => {
      const list = new ListInventory(storage.inventory);
      const before = await list.stamp();
      expect(before).toEqual(await storage.inventory.stamp());
      await new UpdateStockBatch(new StockCommandRunner(storage.inventory, clock)).execute({
        orders: [setTo(1n, 3)],
        actor: 'key_a',
      });
      expect(await list.stamp()).not.toEqual(before);
    });
  });

  it('UpdateStockBatch writes all of its orders, or none when one is refused', async () => {
    await storage.pets.addAll([aPet(1), aPet(2)]);
    const batch = new UpdateStockBatch(new StockCommandRunner(storage.inventory, clock));
    expect(await batch.execute({ orders: [adjustBy(1n, -1), setTo(2n, 9)], actor: 'key_a' })).toMatchObject({
      ok: true,
    });
    const refused = await batch.execute({ orders: [setTo(1n, 0), adjustBy(2n, -10)], actor: 'key_a' });
    expect(refused).toMatchObject({ ok: false });
    expect((await storage.inventory.get(petId(1n)))?.item.quantity).toBe(4);
    expect((await storage.inventory.get(petId(2n)))?.item.quantity).toBe(9);
  });

  describe('the webhook endpoints', () => {
    beforeEach(async () => {
      await storage.webhooks.addEndpoint(endpoint);
    });

    it('ListWebhooks answers every endpoint, without its secret', async () => {
      const listed = await new ListWebhooks(storage.webhooks).execute();
      expect(listed.map((hook) => hook.id)).toEqual([endpoint.id]);
      expect(listed[0]).not.toHaveProperty('secret');
    });

    it('EnableWebhook answers the enabled endpoint, and undefined for an unknown id', async () => {
      expect(await new EnableWebhook(storage.webhooks).execute(endpoint.id)).toMatchObject({
        id: endpoint.id,
        enabled: true,
        failingSinceMs: null,
      });
      expect(await new EnableWebhook(storage.webhooks).execute('whk_0000000000000002')).toBeUndefined();
    });

    it('ListWebhookDeliveries answers no attempts for a new endpoint, and undefined for an unknown id', async () => {
      const deliveries = new ListWebhookDeliveries(storage.webhooks);
      expect(await deliveries.execute({ id: endpoint.id, limit: 10 })).toEqual([]);
      expect(await deliveries.execute({ id: 'whk_0000000000000002', limit: 10 })).toBeUndefined();
    });

    it('createWebhookAdmin gives the admin commands over one store: add, list, enable, deliveries, remove', async () => {
      const admin = createWebhookAdmin({
        webhooks: storage.webhooks,
        secrets: { newEndpointId: () => 'whk_0000000000000002', newSecret: () => endpoint.secret },
        checkUrl: async () => undefined,
        clock,
      });
      const added = await admin.addWebhook.execute({
        url: endpoint.url,
        events: ['inventory.updated'],
        lowStockThreshold: 1,
      });
      expect(added).toMatchObject({ ok: true, value: { endpoint: { id: 'whk_0000000000000002' } } });
      expect((await admin.listWebhooks.execute()).map((hook) => hook.id)).toEqual([
        endpoint.id,
        'whk_0000000000000002',
      ]);
      expect(await admin.enableWebhook.execute(endpoint.id)).toMatchObject({ id: endpoint.id, enabled: true });
      expect(await admin.listWebhookDeliveries.execute({ id: endpoint.id, limit: 1 })).toEqual([]);
      expect(await admin.removeWebhook.execute(endpoint.id)).toBe(true);
      expect((await storage.webhooks.endpoints()).map((hook) => hook.id)).toEqual(['whk_0000000000000002']);
    });

    it('RemoveWebhook removes the endpoint and answers true, then false', async () => {
      const remove = new RemoveWebhook(storage.webhooks);
      expect(await remove.execute(endpoint.id)).toBe(true);
      expect(await storage.webhooks.endpoints()).toEqual([]);
      expect(await remove.execute(endpoint.id)).toBe(false);
    });
  });

  describe('the rate limit', () => {
    const policy = rateLimitPolicy(2, 100);

    it('AdmitRequest counts each admitted request, and refuses past the per-minute limit', async () => {
      const admit = new AdmitRequest(new MemoryRateLimiter(clock));
      expect(await admit.execute({ subject: 'key:key_1', policy })).toMatchObject({
        outcome: 'admitted',
        remaining: 1,
      });
      await admit.execute({ subject: 'key:key_1', policy });
      expect(await admit.execute({ subject: 'key:key_1', policy })).toMatchObject({ outcome: 'rate_limited' });
    });

    it('GetRateLimit answers the standing of a subject, counting nothing', async () => {
      const limiter = new MemoryRateLimiter(clock);
      await new AdmitRequest(limiter).execute({ subject: 'key:key_1', policy });
      const standing = new GetRateLimit(limiter);
      const peek = await standing.execute({ subject: 'key:key_1', policy });
      expect(peek).toMatchObject({ bannedUntilMs: null, windows: [{ used: 1 }, { used: 1 }] });
      expect(await standing.execute({ subject: 'key:key_1', policy })).toEqual(peek);
    });
  });
});
