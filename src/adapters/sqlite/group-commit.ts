import type { Database } from 'better-sqlite3';

/**
 * One write queued: its work, run inside the batch's transaction, and its settlement (a promise's, or
 * the writer thread's answer).
 */
export interface Job {
  /** Runs the work and keeps what it answered; it may run twice (see GroupCommit's constructor). */
  run(): void;
  /** Settles the promise with what the last run answered, once the batch is committed. */
  resolve(): void;
  reject(error: unknown): void;
}

const NONE_FAILED: ReadonlyMap<Job, unknown> = new Map();

/**
 * Runs write jobs in shared transactions. With synchronous=FULL every commit waits for the disk, so a
 * transaction per job caps a process at one job per fsync. Jobs submitted while a batch is pending
 * (the same turn of the event loop) run together in ONE transaction; a job that throws is rolled back
 * alone and fails alone (the batch then runs again with a savepoint a job). The batch is committed
 * once, and only after the commit does any job's promise settle, so a resolved job is as durable as if
 * it had committed alone. Each job is its own work, so each promise has the type of its own answer.
 */
export class GroupCommit {
  private pending: Job[] = [];
  /** Runs a batch and commits it; answers the jobs that failed alone, with their errors. */
  private readonly runBatch: (jobs: readonly Job[]) => ReadonlyMap<Job, unknown>;

  /** `onCommit` is told the size of each batch once it is committed (for metrics). */
  constructor(
    db: Database,
    private readonly onCommit?: (jobs: number) => void,
  ) {
    // A better-sqlite3 transaction called inside another one becomes a savepoint.
    const runOne = db.transaction((job: Job) => job.run());
    // First without savepoints (two statements a job): a job that throws rolls the whole transaction
    // back, and the batch runs again below, each job in its own savepoint, so that it fails alone.
    // Jobs throw only on a bug or a failing disk, so nearly every batch commits the fast way.
    let jobThrew = false;
    const fast = db.transaction((jobs: readonly Job[]): void => {
      for (const job of jobs) {
        try {
          job.run();
        } catch (error) {
          jobThrew = true;
          throw error;
        }
      }
    });
    const careful = db.transaction((jobs: readonly Job[]): ReadonlyMap<Job, unknown> => {
      const failed = new Map<Job, unknown>();
      for (const job of jobs) {
        try {
          runOne(job);
        } catch (error) {
          // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction. Going
          // on would run the next jobs outside any transaction, so the whole batch fails instead.
          if (!db.inTransaction) throw error;
          failed.set(job, error);
        }
      }
      return failed;
    });
    // IMMEDIATE takes the write lock at BEGIN: a read-then-write transaction that started as a reader
    // could fail with SQLITE_BUSY when another process writes first, and busy_timeout cannot retry it.
    this.runBatch = (jobs) => {
      jobThrew = false;
      try {
        fast.immediate(jobs);
        return NONE_FAILED;
      } catch (error) {
        // BEGIN or COMMIT failing (the lock not had in time, the disk) fails the batch, as before.
        if (!jobThrew) throw error;
        return careful.immediate(jobs);
      }
    };
  }

  /**
   * Queues a job; it runs with the others queued in this turn of the event loop. `work` does the job's
   * reads and writes inside the batch's transaction (and inside a savepoint of it when the batch runs
   * again after a job threw): it may run twice, so what it does besides its SQL must be harmless to
   * repeat (the inline store's revision bump is).
   */
  submit<O>(work: () => O): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let output: O;
      this.enqueue({
        run: () => {
          output = work();
        },
        resolve: () => resolve(output),
        reject,
      });
    });
  }

  /**
   * Queues a job as `submit` does, settled through its own `resolve` and `reject` rather than a promise:
   * the writer thread answers each write from one object, with no promise, closure or reaction of its own.
   */
  enqueue(job: Job): void {
    this.pending.push(job);
    if (this.pending.length === 1) setImmediate(() => this.flush());
  }

  /** Runs the pending jobs now, in one transaction. Closing the store calls it, so no job is dropped. */
  flush(): void {
    const jobs = this.pending;
    this.pending = [];
    if (jobs.length === 0) return;
    let failed: ReadonlyMap<Job, unknown>;
    try {
      failed = this.runBatch(jobs);
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    this.onCommit?.(jobs.length);
    for (const job of jobs) {
      if (failed.has(job)) job.reject(failed.get(job));
      else job.resolve();
    }
  }
}
