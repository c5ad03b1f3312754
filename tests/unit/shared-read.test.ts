import { describe, expect, it } from 'vitest';
import { SharedRead } from '../../src/adapters/postgres/shared-read.js';

/** A read that answers when the test says so, counting how many were started. */
function controlledReads() {
  const pending: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const read = new SharedRead<number>(
    () =>
      new Promise<number>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  );
  const settle = async (index: number, value: number | Error): Promise<void> => {
    const started = pending[index];
    if (started === undefined) throw new Error(`read ${index} was not started`);
    if (value instanceof Error) started.reject(value);
    else started.resolve(value);
    // Lets the continuations run: the shared read starts the next read when one ends.
    for (let i = 0; i < 5; i += 1) await Promise.resolve();
  };
  return { read, started: () => pending.length, settle };
}

describe('a read shared by the callers of one moment', () => {
  it('starts a read of its own for a caller when none is under way', async () => {
    const { read, started, settle } = controlledReads();
    const answer = read.read();
    expect(started()).toBe(1);
    await settle(0, 7);
    expect(await answer).toBe(7);
    const again = read.read();
    expect(started()).toBe(2);
    await settle(1, 8);
    expect(await again).toBe(8);
  });

  it('gives the callers that arrive during a read one next read, started only when that read ends', async () => {
    const { read, started, settle } = controlledReads();
    const first = read.read();
    const late = [read.read(), read.read(), read.read()];
    expect(started()).toBe(1);
    await settle(0, 1);
    expect(await first).toBe(1);
    expect(started()).toBe(2);
    await settle(1, 2);
    expect(await Promise.all(late)).toEqual([2, 2, 2]);
  });

  it('passes a failed read to its callers alone, and the next callers read afresh', async () => {
    const { read, started, settle } = controlledReads();
    const first = read.read();
    const late = read.read();
    await settle(0, new Error('the server is down'));
    await expect(first).rejects.toThrow('the server is down');
    await settle(1, 3);
    expect(await late).toBe(3);
    const after = read.read();
    expect(started()).toBe(3);
    await settle(2, 4);
    expect(await after).toBe(4);
  });
});
