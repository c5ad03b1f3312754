import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';

/**
 * A revision of some tables as one connection sees them, cheap enough to read on every request.
 * `PRAGMA data_version` moves whenever ANOTHER connection (of this process or another process) commits
 * to the file, but never for this connection's own commits; those are counted here, by every write of
 * this connection to the tables this revision covers calling `bump`. Together the two cover every
 * writer. A commit elsewhere to any other table moves the revision too: a needless change only costs a
 * reader a fresh read, while a missed one would serve stale data. Both counters start again with every
 * connection, so a random epoch of the connection goes in front: a revision never repeats one handed out
 * before a restart, which a client may still hold as an entity tag.
 */
export class StoreRevision {
  private readonly dataVersion: Statement<[], bigint>;
  private localWrites = 0;
  private readonly epoch = randomUUID();

  constructor(db: Database) {
    // Prepared once: reading it is a step of a cached statement, no parsing.
    this.dataVersion = db.prepare<[], bigint>('PRAGMA data_version').pluck();
  }

  /**
   * Counts a write of this connection. better-sqlite3 runs a transaction synchronously, so no read of
   * this process can fall between the write and this call, wherever in the transaction it is made.
   */
  bump(): void {
    this.localWrites += 1;
  }

  /** Changes whenever a covered table may have changed since the last call; equal values mean it did not. */
  current(): string {
    return `${this.epoch}.${this.dataVersion.get()}.${this.localWrites}`;
  }
}
