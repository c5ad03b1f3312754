import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/** How to open the file, as `openSqliteStorage` takes it. */
export interface OpenDatabaseOptions {
  readonly path: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly busyTimeoutMs: number;
  /** The setting the path came from (e.g. PETSTORE_DB), named in every error about the file. */
  readonly setting?: string;
}

/**
 * Creates the missing folders of `dir`, one at a time from the top. `mkdirSync(..., { recursive: true })`
 * loops forever where a parent exists but refuses children without saying EEXIST or EACCES (/proc).
 */
function createFolders(dir: string): void {
  const missing: string[] = [];
  for (let folder = resolve(dir); !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder)) {
    missing.push(folder);
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Another process starting on the same file may have made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Names the file in an error from the system or SQLite ("unable to open database file", "file is not a
 * database", "attempt to write a readonly database"), whose own message does not say which file.
 */
function described(error: unknown, options: OpenDatabaseOptions): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  return new Error(`${fileNamed(options)}: ${error.message}`, { cause: error });
}

/** The file as errors and logs name it: `PETSTORE_DB=./data/petstore.db`, or the path alone. */
export const fileNamed = (options: Pick<OpenDatabaseOptions, 'path' | 'setting'>): string =>
  options.setting === undefined ? options.path : `${options.setting}=${options.path}`;

/**
 * Writes the schema version the file already holds: the cheapest write there is. Read and written in
 * one write transaction, so a newer release migrating the file at the same moment is never undone.
 */
function proveWritable(db: Database.Database): void {
  db.transaction(() => {
    db.pragma(`user_version = ${Number(db.pragma('user_version', { simple: true }))}`);
  }).immediate();
}

/**
 * Opens (or creates) the file with the service's pragmas: WAL, so readers never wait for the writer and
 * several connections, threads and processes can share the file; `synchronous` as told, set after WAL
 * (switching to WAL resets it); a busy timeout, so a write waits for another connection's transaction
 * instead of failing; foreign keys enforced. Every connection to the file is opened here (the store's
 * and the writer thread's), so none can differ on any of it. Errors name the file.
 */
export function openConnection(options: OpenDatabaseOptions): Database.Database {
  let db: Database.Database | undefined;
  try {
    createFolders(dirname(options.path));
    db = new Database(options.path);
    // Every integer is read as a bigint: a pet id past 2^53 is never rounded on its way out.
    db.defaultSafeIntegers(true);
    // First, so that the pragmas below (and the migration of openDatabase) wait for a busy file too.
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`the database ${options.path} cannot use WAL (journal mode ${String(mode)})`);
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db?.close();
    throw described(error, options);
  }
}

/**
 * Opens the file as openConnection does and brings its schema up to date. Fails at once, naming the
 * file, when it cannot be created, read or written: a file the process may read but not write would
 * otherwise open without complaint and fail at the first update.
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const db = openConnection(options);
  try {
    migrate(db, options.path);
    proveWritable(db);
    return db;
  } catch (error) {
    db.close();
    throw described(error, options);
  }
}
