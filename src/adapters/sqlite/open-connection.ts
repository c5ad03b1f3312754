import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** What every connection to the file is opened with, whichever thread opens it. */
export interface SqliteConnectionSettings {
  readonly path: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly busyTimeoutMs: number;
}

/**
 * Opens a connection to `settings.path` (creating the file and its folders): WAL, so readers never wait
 * for the writer and several connections, threads and processes can share the file; `synchronous` as
 * told; a busy timeout, so a write waits for another connection's transaction instead of failing;
 * foreign keys enforced. The store's connection and the writer thread's both open through here, so they
 * cannot differ on any of it.
 */
export function openConnection(settings: SqliteConnectionSettings): Database.Database {
  mkdirSync(dirname(settings.path), { recursive: true });
  const db = new Database(settings.path);
  try {
    // Every integer is read as a bigint: a pet id past 2^53 is never rounded on its way out.
    db.defaultSafeIntegers(true);
    // First, so that the pragmas below (and the caller's migration) wait for a busy file too.
    db.pragma(`busy_timeout = ${settings.busyTimeoutMs}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`the database ${settings.path} cannot use WAL (journal mode ${String(mode)})`);
    db.pragma(`synchronous = ${settings.synchronous}`);
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
