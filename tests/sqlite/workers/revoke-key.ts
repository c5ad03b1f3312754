/**
 * A separate process that revokes one API key, as `keys revoke` of the admin CLI does from its own
 * process: opens the database, revokes the key `id`, closes and prints `revoked`. Any error goes to
 * stderr and the exit code is 1.
 *
 * Usage: node --import tsx revoke-key.ts <database> <id>
 */
import { openSqliteStorage } from '../../../src/adapters/sqlite/sqlite-storage.js';

const [path, id] = process.argv.slice(2);
if (path === undefined || id === undefined) throw new Error('usage: revoke-key.ts <database> <id>');

try {
  const storage = openSqliteStorage({ path });
  const revoked = await storage.keys.revoke(id, { actor: 'worker', atMs: Date.now() });
  await storage.close();
  if (revoked === undefined) throw new Error(`no key has id ${id}`);
  process.stdout.write('revoked\n');
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
