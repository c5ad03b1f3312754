import type { Database } from 'better-sqlite3';
import type { PetId } from '../../domain/pet-id.js';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { GroupCommit } from './group-commit.js';
import { StockCommandStatements } from './stock-command-statements.js';

/**
 * Where SqliteInventoryRepository sends its writes: a group commit on the store's own connection
 * (InlineCommandQueue), or one on a connection of a worker thread (WriterThreadQueue). Either way a
 * write settles only once the transaction that holds it is committed.
 */
export interface CommandQueue {
  write(command: StockCommand): Promise<StockWriteResult>;
  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult>;
  forgetExpiredOutcomes(nowMs: number, max: number): Promise<number>;
  markLapse(petId: PetId, nowMs: number): Promise<number>;
  /** Commits the writes still pending, then stops; later writes are refused. */
  close(): Promise<void>;
}

/**
 * The writes on the store's connection, on this thread: each batch's commit (and its fsync) holds this
 * thread's event loop, which is what a CLI or a test wants and a busy server does not.
 */
export class InlineCommandQueue implements CommandQueue {
  private readonly writer: StockCommandStatements;
  private readonly batches: GroupCommit;

  /**
   * `onWrite` is told of every stock row changed, as StockCommandStatements says; `onGroupCommit` of the number of
   * writes each group commit carried, once committed.
   */
  constructor(
    db: Database,
    hooks: { readonly onWrite: () => void; readonly onGroupCommit?: ((writes: number) => void) | undefined },
  ) {
    this.writer = new StockCommandStatements(db, hooks.onWrite);
    this.batches = new GroupCommit(db, hooks.onGroupCommit);
  }

  write(command: StockCommand): Promise<StockWriteResult> {
    return this.batches.submit(() => this.writer.write(command));
  }

  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult> {
    return this.batches.submit(() => this.writer.writeReservation(command));
  }

  async forgetExpiredOutcomes(nowMs: number, max: number): Promise<number> {
    return this.writer.forgetExpiredOutcomes(nowMs, max);
  }

  async markLapse(petId: PetId, nowMs: number): Promise<number> {
    return this.writer.markLapse(petId, nowMs);
  }

  async close(): Promise<void> {
    this.batches.flush();
  }
}
