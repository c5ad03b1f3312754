/**
 * Every storage port over one SQLite file: `petstore-inventory/sqlite`. Needs `better-sqlite3`
 * (`npm install better-sqlite3`); without it, importing this subpath throws a MissingPeerError that says so.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../shared/peer-packages.js';

export type { SqliteStorage, SqliteStorageOptions } from './sqlite-storage.js';
export type { WriterThreadLogger } from './writer-thread-queue.js';

await requirePeers('petstore-inventory/sqlite', ['better-sqlite3']);
const storage = await import('./sqlite-storage.js');

/**
 * Opens (or creates) the database at `options.path` and brings its schema up to date; gives every
 * storage port over it, and `close()`. With `writer: 'worker'` stock writes commit in a worker thread.
 */
export const openSqliteStorage = storage.openSqliteStorage;
