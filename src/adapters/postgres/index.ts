/**
 * Every storage port over PostgreSQL: `petstore-inventory/postgres`. Needs `pg` (`npm install pg`);
 * without it, importing this subpath throws a MissingPeerError that says so.
 *
 * @packageDocumentation
 */
import { requirePeers } from '../shared/peer-packages.js';

export type { PostgresOptions } from './postgres-database.js';
export type { PostgresStorage } from './postgres-storage.js';

await requirePeers('petstore-inventory/postgres', ['pg']);
const postgresStorage = await import('./postgres-storage.js');

/**
 * Connects to the database at `options.url`, brings its schema up to date (under an advisory lock) and
 * gives every storage port over it, and `close()`.
 */
export const openPostgresStorage = postgresStorage.openPostgresStorage;
/** The URL without its password, for messages and logs. */
export const describeUrl = postgresStorage.describeUrl;
