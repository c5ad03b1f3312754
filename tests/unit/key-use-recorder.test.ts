import { describe, expect, it, vi } from 'vitest';
import { KeyUseRecorder } from '../../src/adapters/api-keys/key-use-recorder.js';
import { MemoryApiKeyStore } from '../../src/adapters/memory/memory-api-key-store.js';
import { MemoryStore } from '../../src/adapters/memory/memory-store.js';
import type { KeyUse } from '../../src/application/ports/api-key-store.js';
import { aKeyRecord, ManualClock } from '../../src/testing/index.js';

async function keysWith(...ids: string[]): Promise<MemoryApiKeyStore> {
  const keys = new MemoryApiKeyStore(new MemoryStore());
  for (const [i, id] of ids.entries()) await keys.add({ ...aKeyRecord(id), hash: String(i).padStart(64, '0') }, 'test');
  return keys;
}

const lastUse = async (keys: MemoryApiKeyStore, id: string) => (await keys.findById(id))?.lastUsedAtMs;

describe('KeyUseRecorder', () => {
  it('writes a key’s use at the next flush, and notes it again only a minute later', async () => {
    const clock = new ManualClock();
    const keys = await keysWith('key_a', 'key_b');
    const batches: (readonly KeyUse[])[] = [];
    const recording = {
      recordUses: (uses: readonly KeyUse[]) => {
        batches.push(uses);
        return keys.recordUses(uses);
      },
    };
    const recorder = new KeyUseRecorder(recording, clock);
    const first = clock.nowMs();
    recorder.noted('key_a');
    recorder.noted('key_b');
    expect(await lastUse(keys, 'key_a')).toBeNull();
    await recorder.flush();
    expect(await lastUse(keys, 'key_a')).toBe(first);
    clock.advance(59_999);
    recorder.noted('key_a');
    await recorder.flush();
    expect(await lastUse(keys, 'key_a')).toBe(first);
    clock.advance(1);
    recorder.noted('key_a');
    await recorder.flush();
    expect(await lastUse(keys, 'key_a')).toBe(first + 60_000);
    // One batch a flush with anything in it: two keys together, then key_a alone.
    expect(batches.map((b) => b.map((u) => u.keyId))).toEqual([['key_a', 'key_b'], ['key_a']]);
  });

  it('never makes a request wait: noting returns while the store is still writing', async () => {
    const clock = new ManualClock();
    const keys = await keysWith('key_a', 'key_b');
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const recorder = new KeyUseRecorder({ recordUses: (uses) => held.then(() => keys.recordUses(uses)) }, clock);
    recorder.noted('key_a');
    const flushing = recorder.flush();
    expect(recorder.noted('key_b')).toBeUndefined();
    release();
    await flushing;
    await recorder.close();
    expect(await lastUse(keys, 'key_b')).toBe(clock.nowMs());
  });

  it('keeps a batch the store refused, and writes it with the next one', async () => {
    const clock = new ManualClock();
    const keys = await keysWith('key_a');
    const errors: unknown[] = [];
    let failing = true;
    const recorder = new KeyUseRecorder(
      { recordUses: (uses) => (failing ? Promise.reject(new Error('down')) : keys.recordUses(uses)) },
      clock,
      { onError: (error) => errors.push(error) },
    );
    recorder.noted('key_a');
    await recorder.flush();
    expect(errors).toHaveLength(1);
    failing = false;
    await recorder.flush();
    expect(await lastUse(keys, 'key_a')).toBe(clock.nowMs());
  });

  it('writes on its own timer once started, and what is left when closed', async () => {
    const clock = new ManualClock();
    const keys = await keysWith('key_a', 'key_b');
    const recorder = new KeyUseRecorder(keys, clock, { flushEveryMs: 10 });
    recorder.start();
    recorder.noted('key_a');
    await vi.waitFor(async () => expect(await lastUse(keys, 'key_a')).toBe(clock.nowMs()), { timeout: 2_000 });
    recorder.noted('key_b');
    await recorder.close();
    expect(await lastUse(keys, 'key_b')).toBe(clock.nowMs());
  });
});
