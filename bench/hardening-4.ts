/**
 * What two of the attacks of issue 40 cost, on the checkout it runs from (docs/operations.md keeps the
 * figures, "What the attacks cost, 4"):
 * - a key revoked while another store's key cache (500 ms, PETSTORE_KEY_CACHE_MS's default) still takes
 *   it for active: one reserve every 20 ms for 1 s after `keys revoke` returned, over one SQLite file,
 *   and how many holds the key keeps;
 * - 70 webhook endpoints on one receiver that never answers and a healthy endpoint on another host:
 *   how long after each of 10 changes, 300 ms apart, the healthy endpoint gets its event.
 * Usage: node --import tsx bench/hardening-4.ts (about 40 s).
 */

import { CachedApiKeyStore } from '../src/adapters/api-keys/cached-api-key-store.js';
import { MemoryRateLimiter } from '../src/adapters/memory/memory-rate-limiter.js';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { createInventoryCore } from '../src/application/inventory-core.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { aPet } from '../src/testing/index.js';
import { healthyEndpointLatency } from '../support/dead-webhooks.js';
import { tempDatabase } from '../support/temp-database.js';

async function reservesAfterRevoke(): Promise<{ answers: Record<string, number>; holdsLeft: number }> {
  const temp = await tempDatabase();
  const instance = openSqliteStorage({ path: temp.path });
  const admin = openSqliteStorage({ path: temp.path });
  try {
    const crypto = new NodeKeyCrypto();
    const ports = { limiter: new MemoryRateLimiter(systemClock), keyGenerator: crypto, keyHasher: crypto };
    const cached = new CachedApiKeyStore(instance.keys, systemClock, { ttlMs: 500 });
    const holdLimits = { perKey: 100, ttlMs: 600_000 };
    const service = createInventoryCore({ ...instance, ...ports, keys: cached, clock: systemClock }, { holdLimits });
    const ops = createInventoryCore({ ...admin, ...ports, clock: systemClock });
    await admin.pets.addAll([aPet(1, { quantity: quantity(1_000) })]);
    const { key, record } = await ops.issueApiKey.execute({ plan: 'pro' });
    const reserve = async (): Promise<string> => {
      const principal = await service.authenticate.execute({ apiKey: key });
      if (!principal.ok) return `authenticate: ${principal.error.code}`;
      const input = { petId: petId(1n), quantity: quantity(1), ttlSeconds: 600, actor: record.id };
      const written = await service.reserveStock.execute(input);
      return written.ok ? 'reserve: held' : `reserve: ${written.error.code}`;
    };
    await reserve();
    await ops.revokeApiKey.execute({ idOrKey: record.id });
    const answers: Record<string, number> = {};
    for (const end = performance.now() + 1_000; performance.now() < end; ) {
      const answer = await reserve();
      answers[answer] = (answers[answer] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const left = await admin.inventory.listHolds({ keyId: record.id, nowMs: Date.now(), limit: 1_000 });
    return { answers, holdsLeft: left.length };
  } finally {
    await instance.close();
    await admin.close();
    await temp.remove();
  }
}

console.log(
  'revoked key, reserves within 1 s after keys revoke returned:',
  JSON.stringify(await reservesAfterRevoke()),
);
const { latenciesMs } = await healthyEndpointLatency({
  dead: 1,
  endpointsPerDead: 70,
  events: 10,
  gapMs: 300,
  waitMs: 15_000,
});
console.log(
  '70 dead endpoints on one host, healthy endpoint latencies, ms:',
  JSON.stringify(latenciesMs.map(Math.round)),
);
