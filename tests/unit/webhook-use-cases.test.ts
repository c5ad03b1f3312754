import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import type { WebhookAnswer, WebhookMessage, WebhookUrlCheck } from '../../src/application/ports/webhook-delivery.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { AddWebhook } from '../../src/application/use-cases/add-webhook.js';
import {
  type AttemptOutcome,
  DEFAULT_DELIVERY_OPTIONS,
  DeliverStockEvents,
} from '../../src/application/use-cases/deliver-stock-events.js';
import { KEY_AUDIT_LIMIT_MAX, ListKeyAudit } from '../../src/application/use-cases/list-key-audit.js';
import { UpdateStock } from '../../src/application/use-cases/update-stock.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { deliveryIdOf } from '../../src/domain/webhook-endpoint.js';
import { aKeyRecord, aPet, ManualClock } from '../../src/testing/index.js';

const SECRET = `whsec_${'A'.repeat(32)}`;
const secrets = { newEndpointId: () => 'whk_0000000000000001', newSecret: () => SECRET };
const anyUrl: WebhookUrlCheck = async () => undefined;

describe('the webhook use cases over the in-memory store', () => {
  let clock: ManualClock;
  let storage: ReturnType<typeof createMemoryStorage>;
  beforeEach(async () => {
    clock = new ManualClock();
    storage = createMemoryStorage(clock);
    await storage.pets.addAll([aPet(1, { quantity: quantity(10) })]);
  });
  const addWebhook = (checkUrl = anyUrl) =>
    new AddWebhook(storage.webhooks, secrets, checkUrl, clock).execute({
      url: 'https://hooks.example.com/stock',
      events: ['inventory.updated'],
      lowStockThreshold: 3,
    });

  describe('AddWebhook', () => {
    it('registers an enabled endpoint, at the clock’s time, and answers its secret this once', async () => {
      const endpoint = {
        id: 'whk_0000000000000001',
        url: 'https://hooks.example.com/stock',
        events: ['inventory.updated'],
        lowStockThreshold: 3,
        createdAtMs: clock.ms,
        enabled: true,
        failingSinceMs: null,
      };
      expect(await addWebhook()).toEqual({ ok: true, value: { endpoint, secret: SECRET } });
      expect(await storage.webhooks.endpoints()).toEqual([endpoint]);
    });

    it('refuses a URL its check refuses, with the check’s reason, registering nothing', async () => {
      const refused = await addWebhook(async (url) => `${url} is not https`);
      expect(refused).toEqual({ ok: false, error: 'https://hooks.example.com/stock is not https' });
      expect(await storage.webhooks.endpoints()).toEqual([]);
    });
  });

  describe('DeliverStockEvents', () => {
    const sent: WebhookMessage[] = [];
    const outcomes: [string, AttemptOutcome][] = [];
    let answer: WebhookAnswer;
    beforeEach(async () => {
      sent.length = 0;
      outcomes.length = 0;
      answer = { status: 204, error: null };
      await addWebhook();
    });
    const change = () =>
      new UpdateStock(new StockCommandRunner(storage.inventory, clock)).execute({
        petId: petId(1n),
        quantity: quantity(4),
        actor: 'key_a',
      });
    const schedule = { firstDelayMs: 1_000, maxDelayMs: 8_000, windowMs: 60_000 };
    const round = async (max = 10) => {
      const deliver = new DeliverStockEvents(
        storage.webhooks,
        {
          send: async (message) => {
            sent.push(message);
            return answer;
          },
        },
        clock,
        () => 1,
        { ...DEFAULT_DELIVERY_OPTIONS, schedule },
        (type, outcome) => outcomes.push([type, outcome]),
      );
      const { routed, attempts } = await deliver.execute(max);
      await Promise.all(attempts);
      return { routed, attempted: attempts.length };
    };
    const attempts = () => storage.webhooks.attempts('whk_0000000000000001', 10);

    it('routes the changes and sends each event, signed with the endpoint’s secret, at the clock’s time', async () => {
      await change();
      expect(await round()).toEqual({ routed: 1, attempted: 1 });
      expect(sent).toMatchObject([{ url: 'https://hooks.example.com/stock', secret: SECRET, atMs: clock.ms }]);
      expect(JSON.parse(sent[0]?.body ?? '')).toMatchObject({ type: 'inventory.updated' });
      expect(outcomes).toEqual([['inventory.updated', 'delivered']]);
      expect(await attempts()).toMatchObject([{ attempt: 1, status: 204, error: null }]);
    });

    it.each([199, 300, 500])('takes an answer of %s as a failure to try again', async (status) => {
      answer = { status, error: null };
      await change();
      await round();
      expect(outcomes).toEqual([['inventory.updated', 'retrying']]);
      expect(await attempts()).toMatchObject([{ status, error: `answered ${status}` }]);
    });

    it('keeps the sender’s reason when no answer came', async () => {
      answer = { status: null, error: 'connection refused' };
      await change();
      await round();
      expect(await attempts()).toMatchObject([{ status: null, error: 'connection refused' }]);
    });

    it('tries again once the wait after the failure has passed, doubling it with each failure', async () => {
      answer = { status: 500, error: null };
      await change();
      await round();
      clock.advance(999);
      expect(await round()).toEqual({ routed: 0, attempted: 0 });
      clock.advance(1);
      expect(await round()).toEqual({ routed: 0, attempted: 1 });
      clock.advance(1_999);
      expect((await round()).attempted).toBe(0);
      clock.advance(1);
      expect((await round()).attempted).toBe(1);
      expect(((await attempts()) ?? []).map((a) => a.attempt).sort()).toEqual([1, 2, 3]);
    });

    it('gives up a delivery whose next attempt would fall past the window', async () => {
      answer = { status: 500, error: null };
      await change();
      clock.advance(59_500);
      await round();
      expect(outcomes).toEqual([['inventory.updated', 'given_up']]);
    });

    it('routes but attempts nothing when it may lease none', async () => {
      await change();
      expect(await round(0)).toEqual({ routed: 1, attempted: 0 });
      expect(sent).toEqual([]);
    });

    it('by default leases for 15 s, routes 500 entries a round, 4 attempts an endpoint at once', () => {
      expect(DEFAULT_DELIVERY_OPTIONS).toMatchObject({ leaseMs: 15_000, routeBatch: 500, perEndpoint: 4 });
    });
  });

  describe('ListKeyAudit', () => {
    it.each([0, -1, 1.5, KEY_AUDIT_LIMIT_MAX + 1, Number.NaN])('refuses a limit of %s', (limit) => {
      expect(() => new ListKeyAudit(storage.keys).execute({ limit })).toThrow(
        `the audit limit ${limit} is not a whole number from 1 to ${KEY_AUDIT_LIMIT_MAX}`,
      );
    });

    it('answers the newest entries, at most the limit, which may be from 1 to 10,000', async () => {
      for (const id of ['key_1', 'key_2', 'key_3']) await storage.keys.add({ ...aKeyRecord(id), hash: id }, 'admin');
      const list = new ListKeyAudit(storage.keys);
      expect((await list.execute({ limit: 1 })).map((entry) => entry.keyId)).toEqual(['key_3']);
      expect((await list.execute({ limit: KEY_AUDIT_LIMIT_MAX })).map((entry) => entry.keyId)).toEqual([
        'key_3',
        'key_2',
        'key_1',
      ]);
      expect(KEY_AUDIT_LIMIT_MAX).toBe(10_000);
    });
  });
});

describe('the webhook-id of a delivery', () => {
  it('is msg_, the endpoint id without whk_, the change id and the event without inventory.', () => {
    expect(deliveryIdOf('whk_0000000000000001', 42n, 'inventory.low_stock')).toBe('msg_0000000000000001_42_low_stock');
    expect(deliveryIdOf('xwhk_1', 7n, 'inventory.updated')).toBe('msg_xwhk_1_7_updated');
  });
});
