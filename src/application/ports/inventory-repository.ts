import type { InventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { Quantity } from '../../domain/quantity.js';
import type { Result } from '../../domain/result.js';
import type { StockChange } from '../../domain/stock-change.js';
import type { InventoryEntry } from '../../domain/stock-write.js';

export interface InventoryQuery {
  /** Only entries whose petId is greater than this one (keyset paging). */
  readonly after?: PetId;
  /** At most this many entries in all; every entry when absent. */
  readonly limit?: number;
}

/**
 * A claim on an idempotency key: the first write that carries it stores its outcome, and a retry with
 * the same scope and key gets that outcome back instead of writing again.
 */
export interface IdempotencyClaim {
  /** Whose key it is (the API key id): the same key sent by another principal is another claim. */
  readonly scope: string;
  /** The client's Idempotency-Key. */
  readonly key: string;
  /** Names the request (method, path, body bytes); the same key on another request is refused. */
  readonly fingerprint: string;
  /** Unix milliseconds after which the stored outcome may be forgotten and the key used afresh. */
  readonly expiresAtMs: number;
}

/**
 * A stock write as plain data, so that it can cross a thread or a network: set the stock of `petId` to
 * `quantity`, as `actor`, at `atMs`. The store applies the domain's rule (`planStockWrite`) inside its
 * own transaction.
 */
export interface StockWrite {
  readonly petId: PetId;
  readonly quantity: Quantity;
  readonly actor: string;
  readonly atMs: number;
  /** Write only when the entry's version is one of these (If-Match); any version when absent. */
  readonly ifVersion?: readonly number[];
  readonly idempotency?: IdempotencyClaim;
}

/** A write that was done: the change recorded and the entry's new version. */
export interface StockWritten {
  readonly change: StockChange;
  readonly version: number;
  /** True when this is the stored outcome of an earlier write with the same idempotency claim. */
  readonly replayed: boolean;
}

/**
 * Why a write did not happen. `pet_not_found` and `version_mismatch` are outcomes, stored with an
 * idempotency claim and replayed like a change; the two refusals of a claim are not.
 */
export type StockWriteFailure =
  | { readonly code: 'pet_not_found'; readonly replayed: boolean }
  | { readonly code: 'version_mismatch'; readonly currentVersion: number; readonly replayed: boolean }
  /** The claim's key was used before on another request (another fingerprint). */
  | { readonly code: 'idempotency_key_reused' }
  /** The claim's key is held by a write still under way (another instance's transaction). */
  | { readonly code: 'idempotency_key_in_use' };

export type StockWriteResult = Result<StockWritten, StockWriteFailure>;

/** Where stock levels live. */
export interface InventoryRepository {
  /**
   * Every entry matching `query`, ordered by petId ascending, in chunks. A store is never held between
   * two chunks, so a slow reader of a long list does not block writers.
   */
  list(query?: InventoryQuery): AsyncIterable<readonly InventoryItem[]>;

  /** One entry with its version, or `undefined` when no pet has that id. */
  get(petId: PetId): Promise<InventoryEntry | undefined>;

  /**
   * A token of the stored entries: it changes whenever any entry may have changed, here or in another
   * process, and never repeats across restarts; two equal stamps mean the same list. It may change when
   * nothing did (a reader then only redoes work), never the other way round. Read it before listing: a
   * list read after it is at least as new as it.
   */
  stamp(): Promise<string>;

  /**
   * Does one stock write in one transaction: reads the entry, applies the domain's rule, stores the
   * entry with its next version, records the change and, with a claim, stores the outcome, so that no
   * concurrent write is lost, no change goes unrecorded and no retry writes twice.
   */
  write(command: StockWrite): Promise<StockWriteResult>;

  /**
   * Forgets at most `max` stored outcomes that expired at `nowMs` or before; resolves to how many. Kept
   * small per call so that purging never holds the store for long.
   */
  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number>;
}
