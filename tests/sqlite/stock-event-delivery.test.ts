import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { StandardWebhookSender } from '../../src/adapters/webhooks/standard-webhook-sender.js';
import { DEFAULT_DELIVERY_OPTIONS, DeliverStockEvents } from '../../src/application/use-cases/deliver-stock-events.js';
import { quantity } from '../../src/domain/quantity.js';
import { STOCK_EVENT_TYPES, type StockEventType } from '../../src/domain/stock-event.js';
import { aCommand, aPet, ManualClock, setTo } from '../../src/testing/index.js';
import { type TempDatabase, tempDatabase } from '../../support/temp-database.js';
import { webhookAdminOf } from '../../support/webhook-admin.js';
import { type Received, startWebhookReceiver, verify, type WebhookReceiver } from '../support/webhook-receiver.js';

const FIRST_DELAY_MS = 1_000;

const dataOf = (r: Received): { type: string; data: { changeId: number; quantityAfter: number } } => JSON.parse(r.body);

describe('stock events delivered from a SQLite file to a local receiver', () => {
  let temp: TempDatabase;
  let storage: SqliteStorage;
  let receiver: WebhookReceiver;
  // Near the real time: a receiver checks webhook-timestamp against its own clock.
  const clock = new ManualClock(Date.now());
  let deliver: DeliverStockEvents;

  beforeEach(async () => {
    temp = await tempDatabase();
    storage = openSqliteStorage({ path: temp.path, writer: 'worker' });
    receiver = await startWebhookReceiver();
    clock.ms = Date.now();
    deliver = new DeliverStockEvents(
      storage.webhooks,
      new StandardWebhookSender({ allowPrivate: true }),
      clock,
      () => 0.5,
      {
        ...DEFAULT_DELIVERY_OPTIONS,
        schedule: { ...DEFAULT_DELIVERY_OPTIONS.schedule, firstDelayMs: FIRST_DELAY_MS },
      },
    );
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) }), aPet(2, { quantity: quantity(10) })]);
  });
  afterEach(async () => {
    await receiver.close();
    await storage.close();
    await temp.remove();
  });

  const register = async (
    events: readonly StockEventType[] = STOCK_EVENT_TYPES,
    lowStockThreshold: number | null = 5,
  ) => {
    const added = await webhookAdminOf(storage.webhooks, clock, true).addWebhook.execute({
      url: receiver.url,
      events,
      lowStockThreshold,
    });
    if (!added.ok) throw new Error(added.error);
    return added.value;
  };
  /** Rounds of the dispatcher, each attempt awaited, the clock moved on by `stepMs` after each. */
  const rounds = async (count: number, stepMs = 0) => {
    for (let i = 0; i < count; i += 1) {
      const round = await deliver.execute(16);
      await Promise.all(round.attempts);
      clock.advance(stepMs);
    }
  };

  it('signs every delivery so that standardwebhooks verifies it, and a changed body fails verification', async () => {
    const { secret } = await register();
    for (const q of [6, 4, 0]) await storage.inventory.write(aCommand([setTo(1n, q)], { atMs: clock.ms }));
    await rounds(5);
    expect(receiver.received.map((r) => dataOf(r).type)).toEqual([
      'inventory.updated',
      'inventory.updated',
      'inventory.low_stock',
      'inventory.updated',
      'inventory.out_of_stock',
    ]);
    for (const delivery of receiver.received) {
      expect(verify(secret, delivery)).toMatchObject({ data: { petId: 1 } });
      expect(() => verify(secret, { ...delivery, body: delivery.body.replace('"petId":1', '"petId":2') })).toThrow();
    }
    expect(() => verify('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', receiver.received[0] as Received)).toThrow();
  });

  it('retries a delivery answered 500 three times with one webhook-id, and holds the pet’s later events behind it', async () => {
    await register(['inventory.updated'], null);
    for (const q of [9, 8, 7]) await storage.inventory.write(aCommand([setTo(1n, q)], { atMs: clock.ms }));
    await storage.inventory.write(aCommand([setTo(2n, 1)], { atMs: clock.ms }));
    let first: string | undefined;
    receiver.answer = (id, earlier) => {
      first ??= id;
      return id === first && earlier < 3 ? 500 : 200;
    };
    // Each wait is at most the step doubled (1 s, 2 s, 4 s), so a round 5 s later finds it due.
    await rounds(10, 5_000);
    const ofPet1 = receiver.received.filter((r) => JSON.parse(r.body).data.petId === 1);
    expect(ofPet1.map((r) => [dataOf(r).data.quantityAfter, r.status])).toEqual([
      [9, 500],
      [9, 500],
      [9, 500],
      [9, 200],
      [8, 200],
      [7, 200],
    ]);
    expect(new Set(ofPet1.slice(0, 4).map((r) => r.id)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(4);
    // Another pet's event is not held behind pet 1's failures.
    expect(receiver.received.findIndex((r) => JSON.parse(r.body).data.petId === 2)).toBeLessThan(3);
    const attempts = await storage.webhooks.attempts((await storage.webhooks.endpoints())[0]?.id as string, 50);
    expect(attempts?.filter((a) => a.status === 500).every((a) => a.error === 'answered 500')).toBe(true);
  });

  it('disables an endpoint that fails for 24 hours, and gives its delivery up; enable turns it on again', async () => {
    const { endpoint } = await register(['inventory.updated'], null);
    await storage.inventory.write(aCommand([setTo(1n, 3)], { atMs: clock.ms }));
    receiver.answer = () => 503;
    // An hour a round: the waits grow to the hour's cap, and the window closes after a day.
    await rounds(30, 3_600_000);
    const [after] = await storage.webhooks.endpoints();
    expect(after).toMatchObject({ id: endpoint.id, enabled: false });
    expect(await storage.webhooks.stats()).toEqual({ depth: 0, oldestAtMs: null });
    const tried = receiver.received.length;
    expect(tried).toBeGreaterThan(10);
    await storage.inventory.write(aCommand([setTo(1n, 4)], { atMs: clock.ms }));
    await rounds(2);
    expect(receiver.received).toHaveLength(tried);
    expect(await storage.webhooks.enableEndpoint(endpoint.id)).toMatchObject({ enabled: true, failingSinceMs: null });
  });
});
