import assert from 'node:assert/strict';
import type { LeasedDelivery, NewWebhookEndpoint, Settlement } from '../application/ports/webhook-store.js';
import { quantity } from '../domain/quantity.js';
import { STOCK_EVENT_TYPES } from '../domain/stock-event.js';
import { assertMatches } from './assert-match.js';
import { aCommand, adjustBy, aPet, setTo } from './mothers.js';
import { freshStorePerTest, type MakeStorage } from './storage-fixture.js';
import { namingRules, type TestRunner } from './test-runner.js';

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

/**
 * The WebhookStore contract, run over every storage adapter: endpoints, the outbox of committed
 * changes, routing, one lease per pet's queue, retries, giving up, and forgetting settled deliveries.
 *
 * @param adapter - the name the suite is reported under
 * @param make - a fresh, empty store for each test
 * @param runner - the test runner's `{ describe, it, beforeEach, afterEach }` (node:test's or vitest's)
 */
export function describeWebhookStoreContract(adapter: string, make: MakeStorage, runner: TestRunner): void {
  const { describe, it } = namingRules(runner);
  describe(`WebhookStore contract: ${adapter}`, () => {
    const store = freshStorePerTest(make, runner, (s) =>
      s.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]),
    );

    /** Every delivery due now, leased and settled as delivered, round after round: their types, in order. */
    const deliverAll = async (): Promise<LeasedDelivery[]> => {
      const all: LeasedDelivery[] = [];
      for (;;) {
        const leased = await store().webhooks.lease(NOW, 100, LEASE);
        if (leased.length === 0) return all;
        for (const d of leased) await store().webhooks.settle(d, delivered(NOW));
        all.push(...leased);
      }
    };

    it('registers, lists, enables and removes endpoints', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a'));
      await store().webhooks.addEndpoint(
        anEndpoint('whk_b', { events: ['inventory.updated'], lowStockThreshold: null }),
      );
      const listed = await store().webhooks.endpoints();
      assert.deepEqual(
        listed.map((e) => [e.id, e.events.length, e.lowStockThreshold, e.enabled]),
        [
          ['whk_a', 4, 5, true],
          ['whk_b', 1, null, true],
        ],
      );
      assertMatches(await store().webhooks.enableEndpoint('whk_b'), { id: 'whk_b', enabled: true });
      assert.equal(await store().webhooks.enableEndpoint('whk_none'), undefined);
      assert.equal(await store().webhooks.removeEndpoint('whk_a'), true);
      assert.equal(await store().webhooks.removeEndpoint('whk_a'), false);
      assert.deepEqual(
        (await store().webhooks.endpoints()).map((e) => e.id),
        ['whk_b'],
      );
      assert.equal(await store().webhooks.attempts('whk_a', 10), undefined);
    });

    it('keeps an outbox entry for each committed change and none for a refused write', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a'));
      await store().inventory.write(aCommand([setTo(1n, 7)]));
      await store().inventory.write(aCommand([adjustBy(2n, -11)]));
      await store().inventory.write(aCommand([setTo(1n, 3), setTo(99n, 1)]));
      const stats = await store().webhooks.stats();
      assert.equal(typeof stats.oldestAtMs, 'number');
      assert.deepEqual(stats, { depth: 1, oldestAtMs: stats.oldestAtMs });
      assert.equal(await store().webhooks.route(100), 1);
      assert.equal(await store().webhooks.route(100), 0);
      const sent = await deliverAll();
      assert.deepEqual(
        sent.map((d) => d.type),
        ['inventory.updated'],
      );
      assertMatches(JSON.parse(sent[0]?.body as string), {
        type: 'inventory.updated',
        data: { petId: 1, kind: 'set', quantityBefore: 10, quantityAfter: 7, statusAfter: 'available', reason: null },
      });
      assert.deepEqual(await store().webhooks.stats(), { depth: 0, oldestAtMs: null });
    });

    it('keeps no outbox entry for a change made while no endpoint is registered', async () => {
      await store().inventory.write(aCommand([setTo(1n, 7)]));
      assert.deepEqual(await store().webhooks.stats(), { depth: 0, oldestAtMs: null });
      await store().webhooks.addEndpoint(anEndpoint('whk_a'));
      await store().inventory.write(aCommand([setTo(2n, 8)]));
      const stats = await store().webhooks.stats();
      assert.equal(typeof stats.oldestAtMs, 'number');
      assert.deepEqual(stats, { depth: 1, oldestAtMs: stats.oldestAtMs });
      assert.equal(await store().webhooks.route(100), 1);
      const sent = await deliverAll();
      // The endpoint hears of the change made once it was registered, not of the one before.
      assert.deepEqual(
        sent.map((d) => JSON.parse(d.body).data.petId),
        [2],
      );
      assert.equal(await store().webhooks.removeEndpoint('whk_a'), true);
      await store().inventory.write(aCommand([setTo(1n, 9)]));
      assert.deepEqual(await store().webhooks.stats(), { depth: 0, oldestAtMs: null });
    });

    it('raises low_stock, out_of_stock and back_in_stock once per crossing', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a'));
      for (const q of [6, 4, 3, 8, 0, 0, 2, 9]) await store().inventory.write(aCommand([setTo(1n, q)]));
      await store().webhooks.route(100);
      const crossings = (await deliverAll())
        .filter((d) => d.type !== 'inventory.updated')
        .map((d) => [d.type, JSON.parse(d.body).data.quantityAfter]);
      assert.deepEqual(crossings, [
        ['inventory.low_stock', 4],
        ['inventory.low_stock', 0],
        ['inventory.out_of_stock', 0],
        ['inventory.back_in_stock', 2],
      ]);
    });

    it('leases one delivery of a pet at a time, in the order of its changes, each to one lease', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      for (const q of [1, 2, 3]) await store().inventory.write(aCommand([setTo(1n, q)]));
      await store().inventory.write(aCommand([setTo(2n, 5)]));
      await store().webhooks.route(100);
      const first = await store().webhooks.lease(NOW, 100, LEASE);
      assert.deepEqual(
        first.map((d) => JSON.parse(d.body).data.quantityAfter),
        [1, 5],
      );
      assert.deepEqual(await store().webhooks.lease(NOW, 100, LEASE), []);
      await store().webhooks.settle(first[0] as LeasedDelivery, failed(NOW, NOW + 1_000));
      assert.deepEqual(await store().webhooks.lease(NOW + 999, 100, LEASE), []);
      const retried = await store().webhooks.lease(NOW + 1_000, 100, LEASE);
      assert.deepEqual(
        retried.map((d) => [d.id, d.attempts]),
        [[first[0]?.id, 1]],
      );
      await store().webhooks.settle(retried[0] as LeasedDelivery, delivered(NOW + 1_000));
      const next = await store().webhooks.lease(NOW + 1_000, 100, LEASE);
      assert.deepEqual(
        next.map((d) => JSON.parse(d.body).data.quantityAfter),
        [2],
      );
      const attempts = await store().webhooks.attempts('whk_a', 10);
      assert.deepEqual(
        attempts?.map((a) => [a.deliveryId, a.attempt, a.status, a.error]),
        [
          [first[0]?.id, 2, 204, null],
          [first[0]?.id, 1, 500, 'answered 500'],
        ],
      );
    });

    it('leases at most perEndpoint deliveries of an endpoint at once, counting its earlier leases, the endpoints taking turns', async () => {
      await store().pets.addAll([aPet(3, { quantity: quantity(10) }), aPet(4, { quantity: quantity(10) })]);
      await store().webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      await store().webhooks.addEndpoint(anEndpoint('whk_b', { events: ['inventory.updated'] }));
      for (const pet of [1n, 2n, 3n, 4n]) await store().inventory.write(aCommand([setTo(pet, 7)]));
      await store().webhooks.route(100);
      const pets = (leased: readonly LeasedDelivery[]) =>
        leased.map((d) => `${d.endpointId} ${JSON.parse(d.body).data.petId}`);
      const first = await store().webhooks.lease(NOW, 3, LEASE, 2);
      assert.deepEqual(pets(first), ['whk_a 1', 'whk_b 1', 'whk_a 2']);
      assert.deepEqual(pets(await store().webhooks.lease(NOW, 100, LEASE, 2)), ['whk_b 2']);
      assert.deepEqual(await store().webhooks.lease(NOW, 100, LEASE, 2), []);
      await store().webhooks.settle(first[0] as LeasedDelivery, delivered(NOW));
      assert.deepEqual(pets(await store().webhooks.lease(NOW, 100, LEASE, 2)), ['whk_a 3']);
    });

    it('leases at most perHost deliveries to one host at once over all of its endpoints, counting earlier leases, whatever the port', async () => {
      for (const [id, url] of [
        ['whk_a', 'https://slow.example/a'],
        ['whk_b', 'https://slow.example:8443/b'],
        ['whk_c', 'https://SLOW.example/c'],
        ['whk_d', 'https://fast.example/d'],
      ]) {
        await store().webhooks.addEndpoint(
          anEndpoint(id as string, { url: url as string, events: ['inventory.updated'] }),
        );
      }
      for (const pet of [1n, 2n]) await store().inventory.write(aCommand([setTo(pet, 7)]));
      await store().webhooks.route(100);
      const first = await store().webhooks.lease(NOW, 100, LEASE, 4, 3);
      assert.equal(first.filter((d) => d.url.includes('fast.example')).length, 2);
      assert.equal(first.filter((d) => !d.url.includes('fast.example')).length, 3);
      // The slow host is at its cap: nothing more of it until one of its leases ends.
      assert.deepEqual(await store().webhooks.lease(NOW, 100, LEASE, 4, 3), []);
      const slow = first.find((d) => !d.url.includes('fast.example')) as LeasedDelivery;
      await store().webhooks.settle(slow, delivered(NOW));
      const next = await store().webhooks.lease(NOW, 100, LEASE, 4, 3);
      assert.equal(next.length, 1);
      assert.ok(!next[0]?.url.includes('fast.example'));
      // Without the bound, once the leases ended, every delivery still pending is leased: 8 less the one delivered.
      assert.equal((await store().webhooks.lease(NOW + LEASE, 100, LEASE, 4)).length, 7);
    });

    it('leases none of an endpoint while one of its deliveries waits for a retry, and goes on with the others', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      await store().webhooks.addEndpoint(anEndpoint('whk_b', { events: ['inventory.updated'] }));
      for (const pet of [1n, 2n]) await store().inventory.write(aCommand([setTo(pet, 7)]));
      await store().webhooks.route(100);
      const pets = (leased: readonly LeasedDelivery[]) =>
        leased.map((d) => `${d.endpointId} ${JSON.parse(d.body).data.petId}`).sort();
      const first = await store().webhooks.lease(NOW, 100, LEASE, 1);
      assert.deepEqual(pets(first), ['whk_a 1', 'whk_b 1']);
      const [a, b] = first.slice().sort((x, y) => x.endpointId.localeCompare(y.endpointId));
      await store().webhooks.settle(a as LeasedDelivery, failed(NOW, NOW + 1_000));
      await store().webhooks.settle(b as LeasedDelivery, delivered(NOW));
      // whk_a's delivery for pet 2 is due and its pet's first, but its endpoint backs off as one.
      assert.deepEqual(pets(await store().webhooks.lease(NOW + 10, 100, LEASE, 2)), ['whk_b 2']);
      assert.deepEqual(await store().webhooks.lease(NOW + 999, 100, LEASE, 2), []);
      assert.deepEqual(pets(await store().webhooks.lease(NOW + 1_000, 100, LEASE, 2)), ['whk_a 1', 'whk_a 2']);
    });

    it('forgets settled deliveries older than a time, with their attempts, and never a pending one', async () => {
      const DAY = 86_400_000;
      await store().webhooks.addEndpoint(
        anEndpoint('whk_a', { events: ['inventory.updated'], lowStockThreshold: null }),
      );
      await store().inventory.write(aCommand([setTo(1n, 1)], { atMs: NOW - 10 * DAY }));
      await store().inventory.write(aCommand([setTo(2n, 2)], { atMs: NOW - 10 * DAY }));
      await store().inventory.write(aCommand([setTo(1n, 3)], { atMs: NOW - 10 * DAY }));
      await store().inventory.write(aCommand([setTo(2n, 4)], { atMs: NOW }));
      assert.equal(await store().webhooks.route(100), 4);
      const old = await store().webhooks.lease(NOW, 100, LEASE);
      assert.deepEqual(
        old.map((d) => JSON.parse(d.body).data.quantityAfter),
        [1, 2],
      );
      // Pet 1's first event delivered, pet 2's old one given up; pet 1's second stays pending, untried.
      await store().webhooks.settle(old[0] as LeasedDelivery, delivered(NOW));
      await store().webhooks.settle(old[1] as LeasedDelivery, failed(NOW, null));
      const recent = await store().webhooks.lease(NOW, 100, LEASE);
      assert.deepEqual(
        recent.map((d) => JSON.parse(d.body).data.quantityAfter),
        [3, 4],
      );
      await store().webhooks.settle(recent[1] as LeasedDelivery, delivered(NOW));

      assert.equal(await store().webhooks.forgetSettled(NOW - 7 * DAY, 1), 1);
      assert.equal(await store().webhooks.forgetSettled(NOW - 7 * DAY, 100), 1);
      assert.equal(await store().webhooks.forgetSettled(NOW - 7 * DAY, 100), 0);
      // Left: the recent delivery's attempt, and the old pending one, which is still leased to its instance.
      const attempts = await store().webhooks.attempts('whk_a', 10);
      assert.deepEqual(
        attempts?.map((a) => a.deliveryId),
        [recent[1]?.id],
      );
      assert.deepEqual(await store().webhooks.stats(), { depth: 1, oldestAtMs: NOW - 10 * DAY });
      assertMatches(await store().webhooks.lease(NOW + LEASE, 100, LEASE), [{ id: recent[0]?.id }]);
    });

    it('hands an expired lease to the next lease, and ignores the settlement of the lease it lost', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      await store().inventory.write(aCommand([setTo(1n, 1)]));
      await store().webhooks.route(100);
      const [lost] = await store().webhooks.lease(NOW, 100, LEASE);
      const [taken] = await store().webhooks.lease(NOW + LEASE, 100, LEASE);
      assert.equal(taken?.id, lost?.id);
      await store().webhooks.settle(lost as LeasedDelivery, failed(NOW + LEASE, NOW + LEASE + 1));
      assert.deepEqual(await store().webhooks.attempts('whk_a', 10), []);
      await store().webhooks.settle(taken as LeasedDelivery, delivered(NOW + LEASE));
      assert.deepEqual(await store().webhooks.stats(), { depth: 0, oldestAtMs: null });
    });

    it('gives a delivery up, disables a failing endpoint, and resumes it once enabled', async () => {
      await store().webhooks.addEndpoint(anEndpoint('whk_a', { events: ['inventory.updated'] }));
      for (const q of [1, 2]) await store().inventory.write(aCommand([setTo(1n, q)]));
      await store().webhooks.route(100);
      const [first] = await store().webhooks.lease(NOW, 100, LEASE);
      await store().webhooks.settle(first as LeasedDelivery, failed(NOW, null));
      const [second] = await store().webhooks.lease(NOW, 100, LEASE);
      assert.equal(JSON.parse(second?.body as string).data.quantityAfter, 2);
      assert.equal(second?.failingSinceMs, NOW);
      await store().webhooks.settle(second as LeasedDelivery, failed(NOW + 5, NOW + 10, true));
      assertMatches((await store().webhooks.endpoints())[0], { enabled: false, failingSinceMs: NOW });
      assert.deepEqual(await store().webhooks.lease(NOW + 10, 100, LEASE), []);
      assertMatches(await store().webhooks.stats(), { depth: 1 });
      await store().webhooks.enableEndpoint('whk_a');
      assert.deepEqual(
        (await store().webhooks.lease(NOW + 10, 100, LEASE)).map((d) => d.id),
        [second?.id],
      );
    });
  });
}
