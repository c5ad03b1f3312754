import type { CommandQueue } from './command-queue.js';
import type { OperationName, ReplyOf, RequestOf } from './store-operations.js';

/**
 * SQLite's result codes (primary and extended: SQLITE_IOERR_WRITE is an IOERR) that say the file cannot
 * be written now, not that the statement is wrong: the disk or its quota is full, the system failed a
 * read or write, the file or its folder turned read-only or unreachable, or another process held its
 * lock past the busy timeout. A client's retry may succeed once an operator has made room.
 */
const UNAVAILABLE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|LOCKED|PERM|NOMEM)(_|$)/;

const isUnavailable = (error: unknown): error is Error =>
  error instanceof Error && UNAVAILABLE_CODES.test(String((error as { code?: unknown }).code));

/** Thrown when the SQLite file cannot be written now: the HTTP edge answers 503 `unavailable`. */
export class SqliteUnavailableError extends Error {
  readonly code = 'unavailable';

  /** `file` names the database as the operator configured it (see fileNamed). */
  constructor(file: string, cause: Error) {
    super(`${file}: ${cause.message}`, { cause });
    this.name = 'SqliteUnavailableError';
  }
}

/** Told when writes start failing for want of the file (with the failure) and when one succeeds again. */
export type WriteHealthListener = (healthy: boolean, cause?: SqliteUnavailableError) => void;

/**
 * The queue of stock writes, watched: a write that fails because the file cannot be written (see
 * UNAVAILABLE_CODES) fails with a SqliteUnavailableError naming the file, and the store reports itself
 * unhealthy until a write succeeds again. Each change is told once, not each failing write.
 */
export class WatchedCommandQueue implements CommandQueue {
  private failing = false;

  constructor(
    private readonly queue: CommandQueue,
    private readonly file: string,
    private readonly onChange?: WriteHealthListener | undefined,
  ) {}

  /** False from a write that failed for want of the file until one succeeds. */
  healthy(): boolean {
    return !this.failing;
  }

  run<N extends OperationName>(name: N, request: RequestOf<N>): Promise<ReplyOf<N>> {
    return this.queue.run(name, request).then(this.succeeded, this.failed);
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  // Made once: every write passes through one reaction, with no closure or async frame of its own.
  private readonly succeeded = <T>(result: T): T => {
    if (this.failing) {
      this.failing = false;
      this.onChange?.(true);
    }
    return result;
  };

  private readonly failed = (error: unknown): never => {
    if (!isUnavailable(error)) throw error;
    const unavailable = new SqliteUnavailableError(this.file, error);
    if (!this.failing) {
      this.failing = true;
      this.onChange?.(false, unavailable);
    }
    throw unavailable;
  };
}
