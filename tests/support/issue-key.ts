import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';

/** Issues a free-plan key in the database file at `path`, as the admin CLI would, and answers it. */
export async function issueFreeKey(path: string): Promise<string> {
  const storage = openSqliteStorage({ path });
  try {
    const crypto = new NodeKeyCrypto();
    return (await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({ plan: 'free' })).key;
  } finally {
    await storage.close();
  }
}
