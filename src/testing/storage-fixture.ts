import type { ApiKeyStore } from '../application/ports/api-key-store.js';
import type { InventoryRepository } from '../application/ports/inventory-repository.js';
import type { OrderBook } from '../application/ports/order-book.js';
import type { PetCatalog } from '../application/ports/pet-catalog.js';
import type { StockChangeFeed } from '../application/ports/stock-change-feed.js';
import type { StockChangeLog } from '../application/ports/stock-change-log.js';
import type { WebhookStore } from '../application/ports/webhook-store.js';
import type { InventoryItem } from '../domain/inventory-item.js';
import type { ManualClock } from './manual-clock.js';
import type { TestRunner } from './test-runner.js';

/**
 * The storage ports of one adapter, sharing one store, as the composition root wires them: what the
 * storage suites run over. A write through `inventory` must show in `changes`, `feed` and `webhooks`.
 */
export interface StorageFixture {
  /** Each pet's stock, its writes and reservations. */
  readonly inventory: InventoryRepository;
  /** The history of each pet's stock (often the same object as `inventory`). */
  readonly changes: StockChangeLog;
  /** Every pet's changes in the order they were made, from a position on. */
  readonly feed: StockChangeFeed;
  /** The endpoints, the outbox of stock events and their deliveries. */
  readonly webhooks: WebhookStore;
  /** The pets, added all at once or by a stream. */
  readonly pets: PetCatalog;
  /** The orders, added all at once or by a stream. */
  readonly orders: OrderBook;
  /** The API keys, by hash, with their audit trail. */
  readonly keys: ApiKeyStore;
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
