import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/adapters/memory/memory-adapters.js';
import { StockCommandRunner } from '../../src/application/stock-command-runner.js';
import { ListStockChanges } from '../../src/application/use-cases/list-stock-changes.js';
import { NameKeys } from '../../src/application/use-cases/name-keys.js';
import { SetKeyExpiry } from '../../src/application/use-cases/set-key-expiry.js';
import { UpdateStockBatch } from '../../src/application/use-cases/update-stock-batch.js';
import { petId } from '../../src/domain/pet-id.js';
import { aKeyRecord, aPet, ManualClock, setTo } from '../../src/testing/index.js';

describe('SetKeyExpiry over the in-memory store', () => {
  let clock: ManualClock;
  let storage: ReturnType<typeof createMemoryStorage>;
  let setExpiry: SetKeyExpiry;
  beforeEach(async () => {
    clock = new ManualClock();
    storage = createMemoryStorage(clock);
    setExpiry = new SetKeyExpiry(storage.keys, clock);
    await storage.keys.add({ ...aKeyRecord('key_1'), hash: 'h1' }, 'admin');
  });

  it('accepts an expiry at the present instant, and records who set it and when', async () => {
    clock.advance(5_000);
    const atNow = await setExpiry.execute({ id: 'key_1', expires: { atMs: clock.nowMs() }, actor: 'bob' });
    expect(atNow).toEqual({ ok: true, value: aKeyRecord('key_1', { expiresAtMs: clock.nowMs() }) });
    const last = (await storage.keys.auditTrail(10)).find((entry) => entry.action === 'expire');
    expect(last).toMatchObject({ action: 'expire', keyId: 'key_1', actor: 'bob', atMs: clock.nowMs() });
  });

  it('refuses a time one millisecond in the past, changing nothing', async () => {
    expect(await setExpiry.execute({ id: 'key_1', expires: { atMs: clock.nowMs() - 1 }, actor: 'bob' })).toEqual({
      ok: false,
      error: { code: 'invalid_expiry', message: 'the expiry must not be in the past' },
    });
    expect((await storage.keys.findById('key_1'))?.expiresAtMs).toBeNull();
  });

  it('answers key_not_found for an id no key has', async () => {
    expect(await setExpiry.execute({ id: 'key_9', expires: { inMs: 1 }, actor: 'bob' })).toEqual({
      ok: false,
      error: { code: 'key_not_found', message: 'no API key has that id' },
    });
  });

  it('answers key_inactive for a revoked key, leaving its expiry alone', async () => {
    await storage.keys.revoke('key_1', { actor: 'admin', atMs: clock.nowMs() });
    expect(await setExpiry.execute({ id: 'key_1', expires: { inMs: 1_000 }, actor: 'bob' })).toEqual({
      ok: false,
      error: { code: 'key_inactive', message: 'the key is revoked; its expiry no longer matters' },
    });
    expect((await storage.keys.findById('key_1'))?.expiresAtMs).toBeNull();
  });
});

describe('ListStockChanges over the in-memory store', () => {
  let storage: ReturnType<typeof createMemoryStorage>;
  let list: ListStockChanges;
  beforeEach(async () => {
    const clock = new ManualClock();
    storage = createMemoryStorage(clock);
    list = new ListStockChanges(storage.changes);
    await storage.pets.addAll([aPet(1)]);
    const batch = new UpdateStockBatch(new StockCommandRunner(storage.inventory, clock));
    for (const q of [1, 2, 3]) await batch.execute({ orders: [setTo(1n, q)], actor: 'key_a' });
  });

  it('answers the changes older than `before` only, newest first, within the limit', async () => {
    const first = await list.execute({ petId: petId(1n), limit: 2 });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.map((change) => change.after.quantity)).toEqual([3, 2]);
    const next = await list.execute({ petId: petId(1n), limit: 2, before: first.value[1]?.id });
    expect(next.ok && next.value.map((change) => change.after.quantity)).toEqual([1]);
  });

  it('answers pet_not_found naming the id of a pet that does not exist', async () => {
    expect(await list.execute({ petId: petId(9n), limit: 2 })).toEqual({
      ok: false,
      error: { code: 'pet_not_found', message: 'no pet has id 9' },
    });
  });
});

describe('NameKeys over the in-memory store', () => {
  it('names each key once, as it is named now: null for a key without a name or no longer stored', async () => {
    const { keys } = createMemoryStorage(new ManualClock());
    await keys.add({ ...aKeyRecord('key_1', { name: 'ops' }), hash: 'h1' }, 'admin');
    await keys.add({ ...aKeyRecord('key_2'), hash: 'h2' }, 'admin');
    const names = await new NameKeys(keys).execute(['key_1', 'key_2', 'key_1', 'key_gone']);
    expect([...names]).toEqual([
      ['key_1', 'ops'],
      ['key_2', null],
      ['key_gone', null],
    ]);
  });
});
