/**
 * What one stock write costs over PostgreSQL without HTTP: `InventoryRepository.write` called `count`
 * times, `inFlight` at a time, on 100 pets, in 5 rounds (the first warms up), with the CPU time this
 * process used (user and system, `process.cpuUsage`) and the CPU time of the PostgreSQL server's
 * processes (/proc), each a write. Prints only.
 * Usage: node --import tsx bench/postgres-write-cost.ts [count] [inFlight]   (default 4000, 10)
 */
import { cpuUsage } from 'node:process';
import pg from 'pg';
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startPostgresServer } from '../support/postgres-server.js';
import { benchPet } from './petstore.js';
import { postmasterOf, serverCpuSeconds } from './postgres-cpu.js';

const count = Number(process.argv[2] ?? '4000');
const inFlight = Number(process.argv[3] ?? '10');
const ROUNDS = 5;
const PETS = 100;

const server = await startPostgresServer();
try {
  const url = await server.createDatabase();
  const storage = await openPostgresStorage({ url });
  await storage.pets.addAll(Array.from({ length: PETS }, (_, i) => benchPet(i)));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const postmaster = await postmasterOf(client);
  await client.end();
  for (let round = 1; round <= ROUNDS; round += 1) {
    let next = 0;
    const serverBefore = serverCpuSeconds(postmaster);
    const started = performance.now();
    const before = cpuUsage();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          const n = next++;
          await storage.inventory.write({
            orders: [{ kind: 'set', petId: petId(BigInt(1 + (n % PETS))), quantity: quantity(n % 7) }],
            actor: 'key_bench',
            atMs: Date.now(),
          });
        }
      }),
    );
    const used = cpuUsage(before);
    const seconds = (performance.now() - started) / 1000;
    const serverUs = ((serverCpuSeconds(postmaster) - serverBefore) * 1e6) / count;
    process.stdout.write(
      `round ${round}: ${Math.round(count / seconds)} writes/s; this process ${Math.round(used.user / count)} µs user + ` +
        `${Math.round(used.system / count)} µs system a write; PostgreSQL ${Math.round(serverUs)} µs a write\n`,
    );
  }
  await storage.close();
} finally {
  await server.stop();
}
