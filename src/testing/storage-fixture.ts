import type { StoragePorts } from '../application/ports/storage-ports.js';
import type { InventoryItem } from '../domain/inventory-item.js';
import type { ManualClock } from './manual-clock.js';
import type { TestRunner } from './test-runner.js';

/**
 * The storage ports of one adapter, sharing one store, as the composition root wires them: what the
 * storage suites run over, with the clock the store reads.
 */
export interface StorageFixture extends StoragePorts {
  /** The time the store reads reservations at: a test moves it instead of sleeping. */
  readonly clock: ManualClock;
  /** Releases the store (connections, files); called after each test. */
  close(): Promise<void>;
}

/** Makes a fresh, empty store for each test; two calls must give two stores that share nothing. */
export type MakeStorage = () => Promise<StorageFixture>;

/**
 * Registers, in the group it is called in, a fresh store from `make` before each test (then `fill`s it)
 * and its close after; answers the store of the running test.
 */
export function freshStorePerTest(
  make: MakeStorage,
  runner: TestRunner,
  fill: (store: StorageFixture) => Promise<unknown> = async () => {},
): () => StorageFixture {
  let current: StorageFixture | undefined;
  runner.beforeEach(async () => {
    current = await make();
    await fill(current);
  });
  runner.afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  return () => {
    if (current === undefined) throw new Error('no store is open: a suite reads it only inside a test');
    return current;
  };
}

/** Drains a chunked list into one array, keeping the chunks' sizes for the checks that need them. */
export async function drain(
  chunks: AsyncIterable<readonly InventoryItem[]>,
): Promise<{ items: InventoryItem[]; chunkSizes: number[] }> {
  const items: InventoryItem[] = [];
  const chunkSizes: number[] = [];
  for await (const chunk of chunks) {
    chunkSizes.push(chunk.length);
    items.push(...chunk);
  }
  return { items, chunkSizes };
}

/** A stream of the batches given, as an import hands them to `addStream`. */
export async function* streamOf<T>(...batches: readonly T[][]): AsyncIterable<readonly T[]> {
  for (const batch of batches) yield batch;
}

/**
 * A stream that hands out `first`, then waits until `release` is called before it goes on with `rest`:
 * lets a test look at the store while an import is half read.
 */
export function pausedStream<T>(
  first: readonly T[],
  ...rest: readonly T[][]
): { readonly batches: AsyncIterable<readonly T[]>; readonly firstTaken: Promise<void>; release(): void } {
  let release = (): void => {};
  let taken = (): void => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const firstTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  async function* batches(): AsyncIterable<readonly T[]> {
    yield first;
    taken();
    await released;
    yield* rest;
  }
  return { batches: batches(), firstTaken, release };
}

/** A stream that hands out `batches`, then throws `error`, as a file that turns out bad at its end does. */
export async function* failingStream<T>(error: Error, ...batches: readonly T[][]): AsyncIterable<readonly T[]> {
  yield* batches;
  throw error;
}
