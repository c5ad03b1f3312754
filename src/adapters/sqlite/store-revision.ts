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
  /** `PRAGMA data_version` as read in this turn of the event loop; undefined once the turn ends. */
  private versionThisTurn: bigint | undefined;
  private readonly endTurn = (): void => {
    this.versionThisTurn = undefined;
  };
  /** The last revision handed out, and the two counters it was made of: made again only when one moves. */
  private last = '';
  private lastVersion: bigint | undefined;
  private lastWrites = -1;

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

  /**
   * Says that another connection of this process (the writer thread's) has just committed: the next
   * read of the revision asks SQLite again instead of reusing this turn's answer.
   */
  sawCommit(): void {
    this.versionThisTurn = undefined;
  }

  /**
   * Changes whenever a covered table may have changed since the last call; equal values mean it did not.
   * `PRAGMA data_version` opens a read transaction (two lock calls and an fstat), so it is read once per
   * turn of the event loop and shared by the requests of that turn. This connection's writes and the
   * writer thread's (`sawCommit`) still show at once; a commit by another process shows from the next
   * turn on.
   */
  current(): string {
    let version = this.versionThisTurn;
    if (version === undefined) {
      version = this.dataVersion.get() as bigint;
      this.versionThisTurn = version;
      setImmediate(this.endTurn);
    }
    if (version !== this.lastVersion || this.localWrites !== this.lastWrites) {
      this.lastVersion = version;
      this.lastWrites = this.localWrites;
      this.last = `${this.epoch}.${version}.${this.localWrites}`;
    }
    return this.last;
  }
}
