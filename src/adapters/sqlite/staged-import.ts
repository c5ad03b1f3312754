import type { Database } from 'better-sqlite3';
import { fail, ok, type Result } from '../../domain/result.js';
import { allOrNothing } from './all-or-nothing.js';

/** How one table is imported through a staging table. */
export interface Staging<T, E> {
  /**
   * The CREATE TABLE statement of the staging table named `staged`. Its id is the `INTEGER PRIMARY KEY`,
   * so a repeated id shows at once.
   */
  definition(staged: string): string;
  /** The columns `row` fills, comma-separated. */
  readonly columns: string;
  /** One item's values, in the order of `columns`. */
  row(item: T): unknown[];
  /** The refusal of an item whose id is already staged. */
  givenTwice(item: T): E;
  /**
   * Moves every row of `staged` into the real table, inside an IMMEDIATE transaction; or answers a
   * refusal, and the transaction is rolled back.
   */
  commit(staged: string): E | undefined;
}

/** Makes every staging table's name unique on its connection, so that imports never share one. */
let serial = 0;

/**
 * Pages of the staging table SQLite keeps in memory, in KiB: the table spills to its temporary file
 * beyond them, so a large import does not grow the process by the default 16 MB of cache.
 */
const STAGING_CACHE_KIB = 2_048;

/**
 * The database's page cache while the staged rows are moved, in KiB: the move reads each staged page
 * once and writes each page of the table once, so the default 16 MB of cache would only grow the
 * process. The connection's own size comes back once the move is done.
 */
const MOVE_CACHE_KIB = 2_048;

/**
 * Imports a stream all-or-nothing without holding the database's write lock while the stream is read:
 * each batch goes into a TEMP table (in SQLite's temporary file, not the database and not process
 * memory), in a deferred transaction that touches only the temporary database, so other writers of
 * the file, in this process or another, go on meanwhile. Once the stream has ended, one IMMEDIATE
 * transaction checks the staged rows against the real table and moves them over, or refuses and writes
 * nothing. A refusal while staging, or an error thrown by `batches`, leaves the real table untouched.
 * The staging table is dropped in every case.
 */
export async function importThroughStaging<T, E>(
  db: Database,
  staging: Staging<T, E>,
  batches: AsyncIterable<readonly T[]>,
): Promise<Result<number, E>> {
  serial += 1;
  const staged = `temp.import_${serial}`;
  db.pragma(`temp.cache_size = -${STAGING_CACHE_KIB}`);
  db.exec(staging.definition(staged));
  try {
    const columns = staging.columns.split(',').length;
    const insert = db.prepare(
      `INSERT INTO ${staged} (${staging.columns}) VALUES (${Array(columns).fill('?').join(', ')}) ON CONFLICT DO NOTHING`,
    );
    const stage = db.transaction((batch: readonly T[]): E | undefined => {
      for (const item of batch) {
        if (insert.run(staging.row(item)).changes === 0) return staging.givenTwice(item);
      }
      return undefined;
    });
    let count = 0;
    for await (const batch of batches) {
      const refusal = stage.deferred(batch);
      if (refusal !== undefined) return fail(refusal);
      count += batch.length;
    }
    const cacheSize = db.pragma('main.cache_size', { simple: true });
    db.pragma(`main.cache_size = -${MOVE_CACHE_KIB}`);
    try {
      const refusal = allOrNothing(db, () => staging.commit(staged))(undefined);
      return refusal === undefined ? ok(count) : fail(refusal);
    } finally {
      db.pragma(`main.cache_size = ${String(cacheSize)}`);
    }
  } finally {
    db.exec(`DROP TABLE ${staged}`);
  }
}
