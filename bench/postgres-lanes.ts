/**
 * The store's stock writes over PostgreSQL without HTTP, by how many groups may be under way at once
 * (`writeLanes`): 50 writers at once, each setting one pet, spread over 100 pets and then all on one.
 * Prints writes a second. Usage: node --import tsx bench/postgres-lanes.ts [seconds=4] [lanes=1,2,4]
 */
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startPostgresServer } from '../support/postgres-server.js';
import { benchPet } from './petstore.js';
import { count, table } from './stats.js';

const seconds = Number(process.argv[2] ?? '4');
const laneCounts = (process.argv[3] ?? '1,2,4').split(',').map(Number);
const WRITERS = 50;

const server = await startPostgresServer();
try {
  const rows: string[][] = [];
  for (const pets of [100, 1]) {
    for (const writeLanes of laneCounts) {
      const storage = await openPostgresStorage({ url: await server.createDatabase(), writeLanes });
      try {
        await storage.pets.addAll(Array.from({ length: 100 }, (_, i) => benchPet(i)));
        let n = 0;
        const until = performance.now() + seconds * 1000;
        await Promise.all(
          Array.from({ length: WRITERS }, async () => {
            while (performance.now() < until) {
              const at = n++;
              await storage.inventory.write({
                orders: [{ kind: 'set', petId: petId(BigInt(1 + (at % pets))), quantity: quantity(at % 7) }],
                actor: 'key_bench',
                atMs: Date.now(),
              });
            }
          }),
        );
        rows.push([String(pets), String(writeLanes), count(n / seconds)]);
      } finally {
        await storage.close();
      }
    }
  }
  process.stdout.write(`${table(['pets', 'lanes', 'writes a second'], rows)}\n`);
} finally {
  await server.stop();
}
