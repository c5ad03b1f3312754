import { AsyncResource } from 'node:async_hooks';
import type { ReservationCommand, ReservationWriteResult } from '../../domain/reservation-outcome.js';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { CommitAnswerLost, type GroupOutcome, type GroupWrite, writeGroup } from './group-write.js';
import {
  type Chained,
  failedOnAbortedTransaction,
  OutcomeUnknownError,
  type PostgresDatabase,
  PostgresUnavailableError,
  type TransactionChain,
} from './postgres-database.js';

interface QueuedWrite {
  readonly write: GroupWrite;
  /** The context the write was submitted in (a request's trace): its group's statements run in the first's. */
  readonly context: AsyncResource;
  settle(outcome: GroupOutcome): void;
  reject(error: unknown): void;
}

/** How group commit runs: how many groups may be under way at once, and the most writes in one. */
export interface GroupOptions {
  /**
   * Lanes of groups, each on a connection of its own; default 1. A lane sends its next group as soon as
   * its group has sent COMMIT (see TransactionChain).
   */
  readonly lanes?: number;
  /** The most commands one group takes; default 500. */
  readonly maxGroup?: number;
  /** Told the number of writes of each group committed (a group written again a write at a time: each). */
  readonly onCommitted?: ((writes: number) => void) | undefined;
}

const claimKeyOf = ({ command }: GroupWrite): string | undefined =>
  command.idempotency === undefined ? undefined : `${command.idempotency.scope} ${command.idempotency.key}`;

/** The outcome as the promise of its kind of write settles it: a result, or the error it threw. */
function settleAs<K extends GroupWrite['kind'], R>(
  kind: K,
  resolve: (result: R) => void,
  reject: (error: unknown) => void,
): (outcome: GroupOutcome) => void {
  return (outcome) => {
    if (!outcome.ok) reject(outcome.error);
    else if (outcome.kind !== kind) reject(new Error(`a ${kind} write was answered as a ${outcome.kind} write`));
    else resolve(outcome.result as R);
  };
}

/**
 * Writes over PostgreSQL (stock and reservation writes alike), committed in groups: the writes that
 * arrive while the groups under way are busy go together in the next one, one transaction of two round
 * trips and one commit (see writeGroup). With synchronous commit each commit waits for the disk, and
 * each transaction costs the server its own work: a group pays both once for all of its writes. Each
 * write is still decided alone by the core and written all or nothing alone.
 *
 * A lane keeps its connection from one group to the next (a TransactionChain): the next group's locks
 * and reads are sent right behind the COMMIT of the one before, which the server runs at once instead
 * of waiting for this process to hear the commit and send again. The writes of a lane are decided in
 * the order they came, and each group reads what the ones before it committed.
 *
 * When a group fails (a statement threw: nothing of it was written), its writes are written again each
 * alone, as a group of one, so that none fails for another's sake; only when PostgreSQL cannot be
 * reached do they all fail with that.
 *
 * When the connection is lost after COMMIT was sent, the group may have been saved: its writes are
 * answered as the commit log says, asked on another connection (saved: each its result; rolled back:
 * `unavailable`, as any write PostgreSQL did not take), and `outcome_unknown` when it cannot be asked,
 * never "not done" for a write that may be done.
 */
export class GroupedWriter {
  private queue: QueuedWrite[] = [];
  /** Groups started and not yet ended (some may have sent their COMMIT and wait for its answer). */
  private running = 0;
  private scheduled = false;
  /** One chain a lane (see TransactionChain): a lane is free again once its group has sent its COMMIT. */
  private readonly free: TransactionChain[];
  private readonly maxGroup: number;
  private readonly idle: (() => void)[] = [];
  private readonly onCommitted: (writes: number) => void;

  constructor(
    private readonly db: PostgresDatabase,
    options: GroupOptions = {},
  ) {
    this.maxGroup = options.maxGroup ?? 500;
    this.onCommitted = options.onCommitted ?? (() => {});
    this.free = Array.from({ length: options.lanes ?? 1 }, () => db.chain());
  }

  /** Queues a stock write; it goes with the others queued by the time a lane is free. */
  writeStock(command: StockCommand): Promise<StockWriteResult> {
    return new Promise<StockWriteResult>((resolve, reject) => {
      this.submit({ kind: 'stock', command }, settleAs('stock', resolve, reject), reject);
    });
  }

  /** Queues a reservation write, as `writeStock`. */
  writeReservation(command: ReservationCommand): Promise<ReservationWriteResult> {
    return new Promise<ReservationWriteResult>((resolve, reject) => {
      this.submit({ kind: 'reservation', command }, settleAs('reservation', resolve, reject), reject);
    });
  }

  private submit(write: GroupWrite, settle: (outcome: GroupOutcome) => void, reject: (error: unknown) => void): void {
    this.queue.push({ write, context: new AsyncResource('GroupedWriter'), settle, reject });
    this.schedule();
  }

  /** Resolves once nothing is queued or under way. */
  drained(): Promise<void> {
    if (this.queue.length === 0 && this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Starts a group at the end of this turn of the event loop, so that the commands of the turn go together. */
  private schedule(): void {
    if (this.scheduled || this.free.length === 0 || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    for (let chain = this.free.pop(); chain !== undefined; chain = this.free.pop()) {
      if (this.queue.length === 0) {
        this.free.push(chain);
        return;
      }
      const group = this.take();
      this.running += 1;
      let lane: TransactionChain | undefined = chain;
      // The lane takes its next group once this one's COMMIT is sent, or once it ended without one.
      const freeLane = (): void => {
        if (lane === undefined) return;
        this.free.push(lane);
        lane = undefined;
        if (this.queue.length > 0) this.schedule();
      };
      const first = group[0] as QueuedWrite;
      void first.context
        .runInAsyncScope(() => this.run(group, { chain, onCommitSent: freeLane }))
        .finally(() => {
          this.running -= 1;
          freeLane();
          if (this.queue.length === 0 && this.running === 0) for (const done of this.idle.splice(0)) done();
        });
    }
  }

  /**
   * The next group, in arrival order. A command whose claim is already in the group waits for the next
   * one: a claim is written once per transaction, and the second must see what the first stored.
   */
  private take(): QueuedWrite[] {
    const group: QueuedWrite[] = [];
    const later: QueuedWrite[] = [];
    const claims = new Set<string>();
    let index = 0;
    for (; index < this.queue.length && group.length < this.maxGroup; index += 1) {
      const waiting = this.queue[index] as QueuedWrite;
      const key = claimKeyOf(waiting.write);
      if (key !== undefined && claims.has(key)) {
        later.push(waiting);
        continue;
      }
      if (key !== undefined) claims.add(key);
      group.push(waiting);
    }
    this.queue = [...later, ...this.queue.slice(index)];
    return group;
  }

  /** Writes `group` in one transaction: on a lane's chain, or (a failed group's writes again, each alone) on a connection of its own. */
  private async run(group: readonly QueuedWrite[], lane?: Chained): Promise<void> {
    let outcomes: GroupOutcome[];
    try {
      outcomes = await this.db.transaction(
        (tx) =>
          writeGroup(
            tx,
            group.map((waiting) => waiting.write),
          ),
        lane,
      );
    } catch (error) {
      // Sent on the lane behind a group whose statement failed, and so whose COMMIT PostgreSQL skipped:
      // this group failed on that aborted transaction, not for anything of its own.
      if (lane !== undefined && failedOnAbortedTransaction(error)) {
        await this.run(group);
        return;
      }
      if (error instanceof CommitAnswerLost) {
        await this.answerLost(group, error);
        return;
      }
      if (error instanceof PostgresUnavailableError || group.length === 1) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      await Promise.all(group.map((waiting) => this.run([waiting])));
      return;
    }
    this.onCommitted(group.length);
    group.forEach((waiting, index) => {
      waiting.settle(outcomes[index] as GroupOutcome);
    });
  }

  private async answerLost(group: readonly QueuedWrite[], lost: CommitAnswerLost): Promise<void> {
    const end = await this.db.transactionEnd(lost.xact);
    group.forEach((waiting, index) => {
      if (end === 'committed') waiting.settle(lost.outcomes[index] as GroupOutcome);
      else if (end === 'aborted') waiting.reject(lost);
      else waiting.reject(new OutcomeUnknownError({ cause: lost.cause }));
    });
  }
}
