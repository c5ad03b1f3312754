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
 * (the same turn of the event loop) run together in ONE transaction; a job that throws is rolled back
 * alone and fails alone (the batch then runs again with a savepoint a job). The batch is committed
 * once, and only after the commit does any job's promise settle, so a resolved job is as durable as if
 * it had committed alone.
 */
export class GroupCommit<I, O> {
  private pending: Job<I, O>[] = [];
  private readonly runBatch: (jobs: readonly Job<I, O>[]) => Outcome<O>[];

  /**
   * `run` does one job's reads and writes, inside the batch's transaction (and inside a savepoint of it
   * when the batch runs again after a job threw): it may run twice, so what it does besides its SQL
   * must be harmless to repeat (the inline store's revision bump is).
   * `onCommit` is told the size of each batch once it is committed (for metrics).
   */
  constructor(
    db: Database,
    run: (input: I) => O,
    private readonly onCommit?: (jobs: number) => void,
  ) {
    // A better-sqlite3 transaction called inside another one becomes a savepoint.
    const runOne = db.transaction(run);
    // First without savepoints (two statements a job): a job that throws rolls the whole transaction
    // back, and the batch runs again below, each job in its own savepoint, so that it fails alone.
    // Jobs throw only on a bug or a failing disk, so nearly every batch commits the fast way.
    let jobThrew = false;
    const fast = db.transaction((jobs: readonly Job<I, O>[]): Outcome<O>[] =>
      jobs.map((job) => {
        try {
          return { ok: true, output: run(job.input) };
        } catch (error) {
          jobThrew = true;
          throw error;
        }
      }),
    );
    const careful = db.transaction((jobs: readonly Job<I, O>[]): Outcome<O>[] =>
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
    this.runBatch = (jobs) => {
      jobThrew = false;
      try {
        return fast.immediate(jobs);
      } catch (error) {
        // BEGIN or COMMIT failing (the lock not had in time, the disk) fails the batch, as before.
        if (!jobThrew) throw error;
        return careful.immediate(jobs);
      }
    };
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
