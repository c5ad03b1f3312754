import { AsyncResource } from 'node:async_hooks';
import type { StockCommand } from '../../domain/stock-command.js';
import type { StockWriteResult } from '../../domain/stock-outcome.js';
import { type PostgresDatabase, PostgresUnavailableError } from './postgres-database.js';
import { type GroupOutcome, writeGroup } from './stock-group-write.js';

interface Waiting {
  readonly command: StockCommand;
  /** The context the command was submitted in (a request's trace): its group's statements run in the first's. */
  readonly context: AsyncResource;
  resolve(result: StockWriteResult): void;
  reject(error: unknown): void;
}

/** How group commit runs: how many groups may be under way at once, and the most commands in one. */
export interface StockGroupOptions {
  /** Groups under way at once, each on a connection of its own; default 2. */
  readonly lanes?: number;
  /** The most commands one group takes; default 500. */
  readonly maxGroup?: number;
}

const claimKeyOf = (command: StockCommand): string | undefined =>
  command.idempotency === undefined ? undefined : `${command.idempotency.scope} ${command.idempotency.key}`;

/**
 * Stock writes over PostgreSQL, committed in groups: the commands that arrive while the groups under
 * way are busy go together in the next one, one transaction of two round trips and one commit (see
 * writeGroup). With synchronous commit each commit waits for the disk, and each transaction costs the
 * server its own work: a group pays both once for all of its commands. Each command is still decided
 * alone by the core and written all or nothing alone.
 *
 * When a group fails (a statement threw: nothing of it was written), its commands are written again
 * each alone by `alone`, so that none fails for another's sake; only when PostgreSQL cannot be reached
 * do they all fail with that.
 */
export class StockGroupCommit {
  private queue: Waiting[] = [];
  private busy = 0;
  private scheduled = false;
  private readonly lanes: number;
  private readonly maxGroup: number;
  private readonly idle: (() => void)[] = [];

  constructor(
    private readonly db: PostgresDatabase,
    private readonly alone: (command: StockCommand) => Promise<StockWriteResult>,
    options: StockGroupOptions = {},
  ) {
    this.lanes = options.lanes ?? 2;
    this.maxGroup = options.maxGroup ?? 500;
  }

  /** Queues a command; it goes with the others queued by the time a lane is free. */
  submit(command: StockCommand): Promise<StockWriteResult> {
    return new Promise<StockWriteResult>((resolve, reject) => {
      this.queue.push({ command, context: new AsyncResource('StockGroupCommit'), resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once nothing is queued or under way. */
  drained(): Promise<void> {
    if (this.queue.length === 0 && this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Starts a group at the end of this turn of the event loop, so that the commands of the turn go together. */
  private schedule(): void {
    if (this.scheduled || this.busy >= this.lanes || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.busy < this.lanes && this.queue.length > 0) {
      const group = this.take();
      this.busy += 1;
      const first = group[0] as Waiting;
      void first.context
        .runInAsyncScope(() => this.run(group))
        .finally(() => {
          this.busy -= 1;
          if (this.queue.length > 0) this.schedule();
          else if (this.busy === 0) for (const done of this.idle.splice(0)) done();
        });
    }
  }

  /**
   * The next group, in arrival order. A command whose claim is already in the group waits for the next
   * one: a claim is written once per transaction, and the second must see what the first stored.
   */
  private take(): Waiting[] {
    const group: Waiting[] = [];
    const later: Waiting[] = [];
    const claims = new Set<string>();
    let index = 0;
    for (; index < this.queue.length && group.length < this.maxGroup; index += 1) {
      const waiting = this.queue[index] as Waiting;
      const key = claimKeyOf(waiting.command);
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

  private async run(group: readonly Waiting[]): Promise<void> {
    let outcomes: GroupOutcome[];
    try {
      outcomes = await this.db.transaction((tx) =>
        writeGroup(
          tx,
          group.map((waiting) => waiting.command),
        ),
      );
    } catch (error) {
      if (error instanceof PostgresUnavailableError) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      await Promise.all(group.map((waiting) => this.alone(waiting.command).then(waiting.resolve, waiting.reject)));
      return;
    }
    group.forEach((waiting, index) => {
      const outcome = outcomes[index] as GroupOutcome;
      if (outcome.ok) waiting.resolve(outcome.result);
      else waiting.reject(outcome.error);
    });
  }
}
