import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeasedDelivery, NewWebhookEndpoint, Settlement } from '../application/ports/webhook-store.js';
import { quantity } from '../domain/quantity.js';
import { STOCK_EVENT_TYPES } from '../domain/stock-event.js';
import { aPet } from './mothers.js';
import { aCommand, adjustBy, setTo } from './stock-commands.contract.js';
import type { MakeStorage, StorageFixture } from './storage-fixture.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const LEASE = 15_000;

const anEndpoint = (id: string, overrides: Partial<NewWebhookEndpoint> = {}): NewWebhookEndpoint => ({
  id,
  url: `https://hooks.example/${id}`,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  events: STOCK_EVENT_TYPES,
  lowStockThreshold: 5,
  createdAtMs: NOW - 1_000,
  ...overrides,
});

const delivered = (atMs: number): Settlement => ({
  atMs,
  status: 204,
  error: null,
  delivered: true,
  nextAttemptMs: null,
  disableEndpoint: false,
});

const failed = (atMs: number, nextAttemptMs: number | null, disableEndpoint = false): Settlement => ({
  atMs,
  status: 500,
  error: 'answered 500',
  delivered: false,
  nextAttemptMs,
  disableEndpoint,
});

/** The WebhookStore contract (outbox, routing, leases), run over every storage adapter. */
export function describeWebhookStoreContract(adapter: string, make: MakeStorage): void {
  describe(`WebhookStore contract: ${adapter}`, () => {
    let store: StorageFixture;
    beforeEach(async () => {
      store = await make();
      await store.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
    });
    afterEach(async () => {
      await store.close();
    });

    /** Every delivery due now, leased and settled as delivered, round after round: their types, in order. */
    const deliverAll = async (): Promise<LeasedDelivery[]> => {
      const all: LeasedDelivery[] = [];
      for (;;) {
        const leased = await store.webhooks.lease(NOW, 100, LEASE);
        if (leased.length === 0) return all;
        for (const d of leased) await store.webhooks.settle(d, delivered(NOW));
        all.push(...leased);
      }
    };

    it('registers, lists, enables and removes endpoints', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a'));
      await store.webhooks.addEndpoint(anEndpoint('whk_b', { events: ['inventory.updated'], lowStockThreshold: null }));
      const listed = await store.webhooks.endpoints();
      expect(listed.map((e) => [e.id, e.events.length, e.lowStockThreshold, e.enabled])).toEqual([
        ['whk_a', 4, 5, true],
        ['whk_b', 1, null, true],
      ]);
      expect(await store.webhooks.enableEndpoint('whk_b')).toMatchObject({ id: 'whk_b', enabled: true });
      expect(await store.webhooks.enableEndpoint('whk_none')).toBeUndefined();
      expect(await store.webhooks.removeEndpoint('whk_a')).toBe(true);
      expect(await store.webhooks.removeEndpoint('whk_a')).toBe(false);
      expect((await store.webhooks.endpoints()).map((e) => e.id)).toEqual(['whk_b']);
      expect(await store.webhooks.attempts('whk_a', 10)).toBeUndefined();
    });

    it('keeps an outbox entry for each committed change and none for a refused write', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a'));
      await store.inventory.write(aCommand([setTo(1n, 7)]));
      await store.inventory.write(aCommand([adjustBy(2n, -11)]));
      await store.inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      expect(await store.webhooks.stats()).toEqual({ depth: 1, oldestAtMs: expect.any(Number) });
      expect(await store.webhooks.route(100)).toBe(1);
      expect(await store.webhooks.route(100)).toBe(0);
      const sent = await deliverAll();
      expect(sent.map((d) => d.type)).toEqual(['inventory.updated']);
      expect(JSON.parse(sent[0]?.body as string)).toMatchObject({
        type: 'inventory.updated',
        data: { petId: 1, kind: 'set', quantityBefore: 10, quantityAfter: 7, statusAfter: 'available', reason: null },
      });
      expect(await store.webhooks.stats()).toEqual({ depth: 0, oldestAtMs: null });
    });

    it('keeps no outbox entry for a change made while no endpoint is registered', async () => {
      await store.inventory.write(aCommand([setTo(1n, 7)]));
      expect(await store.webhooks.stats()).toEqual({ depth: 0, oldestAtMs: null });
      await store.webhooks.addEndpoint(anEndpoint('whk_a'));
      await store.inventory.write(aCommand([setTo(2n, 8)]));
      expect(await store.webhooks.stats()).toEqual({ depth: 1, oldestAtMs: expect.any(Number) });
      expect(await store.webhooks.route(100)).toBe(1);
      const sent = await deliverAll();
      // The endpoint hears of the change made once it was registered, not of the one before.
      expect(sent.map((d) => JSON.parse(d.body).data.petId)).toEqual([2]);
      expect(await store.webhooks.removeEndpoint('whk_a')).toBe(true);
      await store.inventory.write(aCommand([setTo(1n, 9)]));
      expect(await store.webhooks.stats()).toEqual({ depth: 0, oldestAtMs: null });
    });

    it('raises low_stock, out_of_stock and back_in_stock once per crossing', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a'));
      for (const q of [6, 4, 3, 8, 0, 0, 2, 9]) await store.inventory.write(aCommand([setTo(1n, q)]));
      await store.webhooks.route(100);
      const crossings = (await deliverAll())
        .filter((d) => d.type !== 'inventory.updated')
        .map((d) => [d.type, JSON.parse(d.body).data.quantityAfter]);
      expect(crossings).toEqual([
        ['inventory.low_stock', 4],
        ['inventory.low_stock', 0],
        ['inventory.out_of_stock', 0],
        ['inventory.back_in_stock', 2],
      ]);
    });

    it('leases one delivery of a pet at a time, in the order of its changes, each to one lease', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      for (const q of [1, 2, 3]) await store.inventory.write(aCommand([setTo(1n, q)]));
      await store.inventory.write(aCommand([setTo(2n, 5)]));
      await store.webhooks.route(100);
      const first = await store.webhooks.lease(NOW, 100, LEASE);
      expect(first.map((d) => JSON.parse(d.body).data.quantityAfter)).toEqual([1, 5]);
      expect(await store.webhooks.lease(NOW, 100, LEASE)).toEqual([]);
      await store.webhooks.settle(first[0] as LeasedDelivery, failed(NOW, NOW + 1_000));
      expect(await store.webhooks.lease(NOW + 999, 100, LEASE)).toEqual([]);
      const retried = await store.webhooks.lease(NOW + 1_000, 100, LEASE);
      expect(retried.map((d) => [d.id, d.attempts])).toEqual([[first[0]?.id, 1]]);
      await store.webhooks.settle(retried[0] as LeasedDelivery, delivered(NOW + 1_000));
      const next = await store.webhooks.lease(NOW + 1_000, 100, LEASE);
      expect(next.map((d) => JSON.parse(d.body).data.quantityAfter)).toEqual([2]);
      const attempts = await store.webhooks.attempts('whk_a', 10);
      expect(attempts?.map((a) => [a.deliveryId, a.attempt, a.status, a.error])).toEqual([
        [first[0]?.id, 2, 204, null],
        [first[0]?.id, 1, 500, 'answered 500'],
      ]);
    });

    it('forgets settled deliveries older than a time, with their attempts, and never a pending one', async () => {
      const DAY = 86_400_000;
      await store.webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'], lowStockThreshold: null }));
      await store.inventory.write(aCommand([setTo(1n, 1)], { atMs: NOW - 10 * DAY }));
      await store.inventory.write(aCommand([setTo(2n, 2)], { atMs: NOW - 10 * DAY }));
      await store.inventory.write(aCommand([setTo(1n, 3)], { atMs: NOW - 10 * DAY }));
      await store.inventory.write(aCommand([setTo(2n, 4)], { atMs: NOW }));
      expect(await store.webhooks.route(100)).toBe(4);
      const old = await store.webhooks.lease(NOW, 100, LEASE);
      expect(old.map((d) => JSON.parse(d.body).data.quantityAfter)).toEqual([1, 2]);
      // Pet 1's first event delivered, pet 2's old one given up; pet 1's second stays pending, untried.
      await store.webhooks.settle(old[0] as LeasedDelivery, delivered(NOW));
      await store.webhooks.settle(old[1] as LeasedDelivery, failed(NOW, null));
      const recent = await store.webhooks.lease(NOW, 100, LEASE);
      expect(recent.map((d) => JSON.parse(d.body).data.quantityAfter)).toEqual([3, 4]);
      await store.webhooks.settle(recent[1] as LeasedDelivery, delivered(NOW));

      expect(await store.webhooks.forgetSettled(NOW - 7 * DAY, 1)).toBe(1);
      expect(await store.webhooks.forgetSettled(NOW - 7 * DAY, 100)).toBe(1);
      expect(await store.webhooks.forgetSettled(NOW - 7 * DAY, 100)).toBe(0);
      // Left: the recent delivery's attempt, and the old pending one, which is still leased to its instance.
      const attempts = await store.webhooks.attempts('whk_a', 10);
      expect(attempts?.map((a) => a.deliveryId)).toEqual([recent[1]?.id]);
      expect(await store.webhooks.stats()).toEqual({ depth: 1, oldestAtMs: NOW - 10 * DAY });
      expect(await store.webhooks.lease(NOW + LEASE, 100, LEASE)).toMatchObject([{ id: recent[0]?.id }]);
    });

    it('hands an expired lease to the next lease, and ignores the settlement of the lease it lost', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      await store.inventory.write(aCommand([setTo(1n, 1)]));
      await store.webhooks.route(100);
      const [lost] = await store.webhooks.lease(NOW, 100, LEASE);
      const [taken] = await store.webhooks.lease(NOW + LEASE, 100, LEASE);
      expect(taken?.id).toBe(lost?.id);
      await store.webhooks.settle(lost as LeasedDelivery, failed(NOW + LEASE, NOW + LEASE + 1));
      expect(await store.webhooks.attempts('whk_a', 10)).toEqual([]);
      await store.webhooks.settle(taken as LeasedDelivery, delivered(NOW + LEASE));
      expect(await store.webhooks.stats()).toEqual({ depth: 0, oldestAtMs: null });
    });

    it('gives a delivery up, disables a failing endpoint, and resumes it once enabled', async () => {
      await store.webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      for (const q of [1, 2]) await store.inventory.write(aCommand([setTo(1n, q)]));
      await store.webhooks.route(100);
      const [first] = await store.webhooks.lease(NOW, 100, LEASE);
      await store.webhooks.settle(first as LeasedDelivery, failed(NOW, null));
      const [second] = await store.webhooks.lease(NOW, 100, LEASE);
      expect(JSON.parse(second?.body as string).data.quantityAfter).toBe(2);
      expect(second?.failingSinceMs).toBe(NOW);
      await store.webhooks.settle(second as LeasedDelivery, failed(NOW + 5, NOW + 10, true));
      expect((await store.webhooks.endpoints())[0]).toMatchObject({ enabled: false, failingSinceMs: NOW });
      expect(await store.webhooks.lease(NOW + 10, 100, LEASE)).toEqual([]);
      expect(await store.webhooks.stats()).toMatchObject({ depth: 1 });
      await store.webhooks.enableEndpoint('whk_a');
      expect((await store.webhooks.lease(NOW + 10, 100, LEASE)).map((d) => d.id)).toEqual([second?.id]);
    });
  });
}
