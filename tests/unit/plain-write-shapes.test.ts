import { describe, expect, it } from 'vitest';
import { createInventoryCore } from '../../src/application/inventory-core.js';
import { petId } from '../../src/domain/pet-id.js';
import { createMemoryAdapters, WebCryptoKeyCrypto } from '../../src/index.js';
import { aPet, ManualClock } from '../../src/testing/index.js';

async function coreWithRex() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const crypto = new WebCryptoKeyCrypto();
  const core = createInventoryCore({ ...createMemoryAdapters(clock), clock, keyGenerator: crypto, keyHasher: crypto });
  await core.addPets.execute([aPet(1)]);
  return core;
}

describe('the plain shapes of a single write, beside the 1.0 ones', () => {
  it('answers a refused single write with its refusal, and the deprecated refusals list holding it', async () => {
    const core = await coreWithRex();
    const result = await core.adjustStock.execute({ petId: petId(1n), delta: -9, actor: 'k' });
    if (result.ok || !('refusal' in result.error)) throw new Error(`not refused: ${JSON.stringify(result.ok)}`);
    expect(result.error.refusal).toMatchObject({ code: 'insufficient_stock', petId: 1n });
    expect(result.error.refusals).toEqual([result.error.refusal]);
  });

  it('takes expectedVersion as one version or several, as ifVersion did, and refuses both at once', async () => {
    const core = await coreWithRex();
    const stale = await core.updateStock.execute({ petId: petId(1n), quantity: 2, actor: 'k', expectedVersion: 7 });
    expect(stale).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
    const listed = await core.updateStock.execute({
      petId: petId(1n),
      quantity: 2,
      actor: 'k',
      expectedVersion: [7, 1],
    });
    expect(listed).toMatchObject({ ok: true, value: { entry: { version: 2 } } });
    const old = await core.updateStock.execute({ petId: petId(1n), quantity: 3, actor: 'k', ifVersion: [2] });
    expect(old).toMatchObject({ ok: true, value: { entry: { version: 3 } } });
    await expect(
      core.updateStock.execute({ petId: petId(1n), quantity: 3, actor: 'k', ifVersion: [3], expectedVersion: 3 }),
    ).rejects.toThrow(RangeError);
  });

  it('reserves a plain number, and refuses one that is no stock count as quantity() does', async () => {
    const core = await coreWithRex();
    const held = await core.reserveStock.execute({ petId: petId(1n), quantity: 2, actor: 'k', expectedVersion: 1 });
    expect(held).toMatchObject({ ok: true, value: { reservation: { quantity: 2, state: 'held' } } });
    await expect(core.reserveStock.execute({ petId: petId(1n), quantity: 1.5, actor: 'k' })).rejects.toThrow(
      RangeError,
    );
    await expect(core.updateStock.execute({ petId: petId(1n), quantity: -1, actor: 'k' })).rejects.toThrow(RangeError);
  });
});
