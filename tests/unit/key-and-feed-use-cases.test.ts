import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { AdjustStock } from '../../src/application/use-cases/adjust-stock.js';
import { GetApiKey } from '../../src/application/use-cases/get-api-key.js';
import { ListAllStockChanges } from '../../src/application/use-cases/list-all-stock-changes.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aKeyRecord, aPet, ManualClock } from '../../src/testing/index.js';

describe('the key and feed use cases over the in-memory store', () => {
  let clock: ManualClock;
  let storage: ReturnType<typeof createMemoryStorage>;
  beforeEach(async () => {
    clock = new ManualClock();
    storage = createMemoryStorage(clock);
    await storage.pets.addAll([aPet(1, { quantity: quantity(5) })]);
  });
  const adjust = (delta: number) =>
    new AdjustStock(new StockCommandRunner(storage.inventory, clock)).execute({
      petId: petId(1n),
      delta,
      actor: 'key_a',
    });

  it('AdjustStock moves the stock by the delta, and refuses one below 0', async () => {
    expect(await adjust(-2)).toMatchObject({ ok: true, value: { entry: { item: { quantity: 3 } } } });
    expect((await storage.inventory.get(petId(1n)))?.item.quantity).toBe(3);
    expect(await adjust(-4)).toMatchObject({ ok: false, error: { code: 'insufficient_stock' } });
  });

  it('GetApiKey answers a key by its id, and key_not_found for an unknown one', async () => {
    const key = aKeyRecord('key_1');
    await storage.keys.add({ ...key, hash: 'h' }, 'admin');
    expect(await new GetApiKey(storage.keys).execute({ id: 'key_1' })).toEqual({ ok: true, value: key });
    expect(await new GetApiKey(storage.keys).execute({ id: 'key_2' })).toEqual({
      ok: false,
      error: { code: 'key_not_found', message: 'no API key has that id' },
    });
  });

  it('ListAllStockChanges reads the feed from its start unless given a position, and refuses an unknown cursor', async () => {
    await adjust(1);
    await adjust(1);
    const feed = new ListAllStockChanges(storage.feed);
    const all = await feed.execute({ limit: 10 });
    if (!all.ok) throw new Error(all.error);
    expect(all.value.map((entry) => entry.change.after.quantity)).toEqual([6, 7]);
    const rest = await feed.execute({ after: all.value[0]?.position, limit: 10 });
    expect(rest.ok && rest.value.map((entry) => entry.change.after.quantity)).toEqual([7]);
    expect(await feed.execute({ after: { txn: 0n, id: 99n }, limit: 10 })).toEqual({
      ok: false,
      error: 'unknown_cursor',
    });
  });
});
