import type { Database, Statement } from 'better-sqlite3';

/** One subject of the in-process limiter's snapshot; `state` is text the limiter wrote. */
export interface LimiterSnapshotRecord {
  readonly subject: string;
  readonly state: string;
}

/**
 * The in-process rate limiter's state, kept in the database file between a graceful stop and the next
 * start, so a restart does not lift bans or give back a day's spent requests. Only the last snapshot
 * is kept: every save replaces it whole.
 */
export class SqliteLimiterSnapshot {
  private readonly insert: Statement<[string, string]>;
  private readonly select: Statement<[], LimiterSnapshotRecord>;

  constructor(private readonly db: Database) {
    this.insert = db.prepare('INSERT INTO limiter_subjects (subject, state) VALUES (?, ?)');
    this.select = db.prepare('SELECT subject, state FROM limiter_subjects');
  }

  /** Replaces the stored snapshot with `records`, in one transaction; answers how many were stored. */
  save(records: readonly LimiterSnapshotRecord[]): number {
    this.db
      .transaction(() => {
        this.db.exec('DELETE FROM limiter_subjects');
        for (const { subject, state } of records) this.insert.run(subject, state);
      })
      .immediate();
    return records.length;
  }

  /** The stored snapshot; empty when none was ever saved. */
  load(): LimiterSnapshotRecord[] {
    return this.select.all();
  }
}
