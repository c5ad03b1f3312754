import type { Database } from 'better-sqlite3';

interface Job<I, O> {
  readonly input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

type Outcome<O> = { readonly ok: true; readonly output: O } | { readonly ok: false; readonly error: unknown };

/**
 * Runs write jobs in shared transactions. With synchronous=FULL every commit waits for the disk, so a
 * transaction per job caps a process at one job per fsync. Jobs submitted while a batch is pending
 * (the same turn of the event loop) run together in ONE transaction, each inside its own savepoint: a
 * job that throws is rolled back alone and fails alone. The batch is committed once, and only after the
 * commit does any job's promise settle, so a resolved job is as durable as if it had committed alone.
 */
export class GroupCommit<I, O> {
  private pending: Job<I, O>[] = [];
  private readonly runBatch: (jobs: readonly Job<I, O>[]) => Outcome<O>[];

  /**
   * `run` does one job's reads and writes; it runs inside a savepoint of the batch's transaction.
   * `onCommit` is told the size of each batch once it is committed (for metrics).
   */
  constructor(
    db: Database,
    run: (input: I) => O,
    private readonly onCommit?: (jobs: number) => void,
  ) {
    // A better-sqlite3 transaction called inside another one becomes a savepoint.
    const runOne = db.transaction(run);
    const batch = db.transaction((jobs: readonly Job<I, O>[]): Outcome<O>[] =>
      jobs.map((job) => {
        try {
          return { ok: true, output: runOne(job.input) };
        } catch (error) {
          // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction. Going
          // on would run the next jobs outside any transaction, so the whole batch fails instead.
          if (!db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
    // IMMEDIATE takes the write lock at BEGIN: a read-then-write transaction that started as a reader
    // could fail with SQLITE_BUSY when another process writes first, and busy_timeout cannot retry it.
    this.runBatch = (jobs) => batch.immediate(jobs);
  }

  /** Queues a job; it runs with the others queued in this turn of the event loop. */
  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Runs the pending jobs now, in one transaction. Closing the store calls it, so no job is dropped. */
  flush(): void {
    const jobs = this.pending;
    this.pending = [];
    if (jobs.length === 0) return;
    let outcomes: Outcome<O>[];
    try {
      outcomes = this.runBatch(jobs);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    this.onCommit?.(jobs.length);
    jobs.forEach((job, i) => {
      const outcome = outcomes[i] as Outcome<O>;
      if (outcome.ok) job.resolve(outcome.output);
      else job.reject(outcome.error);
    });
  }
}
