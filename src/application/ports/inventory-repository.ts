import type { InventoryItem } from '../../domain/inventory-item.js';
import type { PetId } from '../../domain/pet-id.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { KeyedReservation, Reservation } from '../../domain/reservation.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import type { InventoryEntry } from '../../domain/stock-write.js';

export interface InventoryQuery {
  /** Only entries whose petId is greater than this one (keyset paging). */
  readonly after?: PetId;
  /** At most this many entries in all; every entry when absent. */
  readonly limit?: number;
  /** Only entries whose pet has one of these statuses (at least one); every status when absent. */
  readonly statuses?: readonly PetStatus[];
  /**
   * Only entries whose available (quantity less what is reserved at the store's clock) is at or below
   * this (0 to 2^31 - 1). A store answers it without reading every entry when few match.
   */
  readonly maxAvailable?: number;
}

/** What a page of named entries asks for: a list's filters, a page's size, and part of a name. */
export interface NamedInventoryQuery extends InventoryQuery {
  readonly limit: number;
  /**
   * Only pets whose name holds this text, letter case aside (as JavaScript's toLowerCase folds it), at
   * least one character; every pet when absent. A store answers a page of it without reading every pet
   * when the text is three characters or more.
   */
  readonly nameContains?: string;
}

/** An entry with what a person knows its pet by: its name, and its category when it has one. */
export interface NamedInventoryItem extends InventoryItem {
  readonly name: string;
  readonly category?: { readonly id: bigint; readonly name: string };
}

/**
 * A chunk of a list as columns: entry i of the chunk is `petIds[i]`, `quantities[i]`, `reserved[i]` and
 * `statuses[i]`, values as an InventoryItem holds them. It is what a store whose rows are cheapest to
 * read a column at a time answers for a long list, so that no value is made a pet (see `listColumns`).
 */
export interface InventoryColumns {
  /** Each entry's petId as the exact decimal digits of its int64, as the store read it. */
  readonly petIds: readonly string[];
  readonly quantities: readonly number[];
  /** What each has reserved at the store's clock, as InventoryItem.reserved. */
  readonly reserved: readonly number[];
  readonly statuses: readonly PetStatus[];
}

/** A store that lists by columns as well as by items (see InventoryRepository.listColumns). */
export type InventoryColumnsSource = Required<Pick<InventoryRepository, 'listColumns'>>;

/** Whether the store declares `listColumns`; the HTTP adapter then writes long lists from its columns. */
export const listsColumns = (store: InventoryRepository): store is InventoryRepository & InventoryColumnsSource =>
  store.listColumns !== undefined;

/** Which reservations still held to list: of one pet, of one key, of both, or all of them. */
export interface HoldQuery {
  readonly petId?: PetId;
  readonly keyId?: string;
  /** The time they are held at: a hold whose time is up by then is not listed. */
  readonly nowMs: number;
  /** Only the holds after this place in their order, of expiry then id (keyset paging). */
  readonly after?: { readonly expiresAtMs: number; readonly id: string };
  /** At most this many. */
  readonly limit: number;
}

/**
 * Where stock levels and their reservations live. What an entry has `reserved` is the sum of its holds
 * still held at the store's clock (a hold stops counting the moment it expires, marked or not); the
 * entry's version counts its writes and the expiries of its holds alike, so an ETag changes whenever
 * the item it tags does.
 */
export interface InventoryRepository {
  /**
   * Every entry matching `query`, ordered by petId ascending, in chunks. A store is never held between
   * two chunks, so a slow reader of a long list does not block writers.
   */
  list(query?: InventoryQuery): AsyncIterable<readonly InventoryItem[]>;

  /**
   * Optional, the fast path of long lists: the entries `list` gives, in its order and its chunks, each
   * chunk as columns instead of items. A store has it when its rows read faster so (SQLite: a chunk is
   * one row of SQLite's aggregates); the HTTP adapter writes the list's JSON from it when the store
   * has it, from `list` otherwise. A stored entry that is no valid InventoryItem fails the listing.
   */
  listColumns?(query?: InventoryQuery): AsyncIterable<InventoryColumns>;

  /**
   * One page of the entries `query` matches (its filters, and part of the name), ordered by petId
   * ascending, each with its pet's name and category: what a person browsing the stock reads.
   */
  listNamed(query: NamedInventoryQuery): Promise<readonly NamedInventoryItem[]>;

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
   * Does one stock command in one transaction: reads the entries it names and its claim, asks the
   * core's decision (`decideStockWrite`), and applies what it answers: the entries at their next
   * versions, their changes recorded and, with a claim, the outcome stored. So no concurrent write is
   * lost, no change goes unrecorded, no retry writes twice, and a command of several pets is applied
   * whole or not at all.
   */
  write(command: StockCommand): Promise<StockWriteResult>;

  /**
   * Forgets at most `max` stored outcomes that expired at `nowMs` or before; resolves to how many. Kept
   * small per call so that purging never holds the store for long.
   */
  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number>;

  /**
   * Does one reservation write in one transaction, as `write` does a stock command: marks the lapsed
   * holds of the pet it touches expired, reads the entry, the reservation, the claim and (for a reserve)
   * how many reservations its actor holds, asks the core (`decideReservationWrite`) and applies what it
   * answers. Two reserves of one key never both pass its limit. Only the holds whose time is up are
   * read: a write costs the same however many holds its pet or its key has that are still held.
   */
  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult>;

  /** One reservation as stored (a held one may have expired since: see `reservationAt`), or undefined. */
  getReservation(id: string): Promise<Reservation | undefined>;

  /**
   * The reservations still held at the query's time that it names, soonest to lapse first (then by id);
   * what it reads grows with what it answers, not with every hold of the store.
   */
  listHolds(query: HoldQuery): Promise<readonly KeyedReservation[]>;

  /**
   * The first key id after `after` (all of them when undefined), in the order of their text, that has
   * a reservation stored as held (its time up or not); undefined when none has. Walks the holders a
   * key at a time, without reading their holds.
   */
  nextHolder(after: string | undefined): Promise<string | undefined>;

  /**
   * At most `max` pets, in any order, with a hold stored as held whose time was up at `nowMs`: those
   * the expiry of holds (ExpireReservations) marks next, a pet at a time.
   */
  petsWithLapsedHolds(nowMs: number, max: number): Promise<readonly PetId[]>;

  /**
   * Marks the lapse of one pet's holds at `nowMs`, in one transaction: reads its holds whose time is up
   * and its entry as stored, asks the core (`decideLapse`) and applies what it answers. Resolves to how
   * many holds it marked expired (0 when none lapsed, or no such pet). It changes nothing a reader
   * sees, and what is reserved never waits for it: it only keeps the held rows few.
   */
  markLapse(petId: PetId, nowMs: number): Promise<number>;
}
