import Database from 'better-sqlite3';
import { columnsJson, itemsJson } from '../src/adapters/http/json-writer.js';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { median, runs, table } from './stats.js';

/**
 * What each step of listing the pets costs the CPU, a pet, in this process (no HTTP), over the same
 * database the service lists: the evidence for what the list's time to last byte is made of.
 */
export interface ListPieces {
  readonly pets: number;
  /** CPU µs a pet of each step, one figure a repetition. */
  readonly rowsUs: number[];
  readonly itemsUs: number[];
  readonly jsonUs: number[];
  readonly sqlJsonUs: number[];
}

// The repository's own page query, read by better-sqlite3 as it reads it (arrays, integers as bigints).
const PAGE = 'SELECT id, quantity, status FROM pets WHERE id > ? ORDER BY id LIMIT ?';
const PAGE_SIZE = 1_000;

/** CPU µs a pet of `run`, which goes over `pets` pets. */
function cpuUsPerPet(pets: number, run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / pets;
}

/** CPU µs a pet of `run`, awaited. */
async function cpuUsPerPetAsync(pets: number, run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / pets;
}

/**
 * Lists the `pets` pets of the database at `path` `repetitions` times in four ways, each timed by the
 * CPU it took: the bare rows of the repository's query; SqliteInventoryRepository.list (the rows made
 * InventoryItems, as the service does); that and the JSON text of each chunk (json-writer, as the service
 * did before 1.1); the same text written from the store's columns (SqliteInventoryRepository.listColumns
 * and `columnsJson`, as the service lists now).
 */
export async function measureListPieces(path: string, pets: number, repetitions: number): Promise<ListPieces> {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  const storage = openSqliteStorage({ path });
  try {
    const page = db.prepare<[bigint, number], [bigint, bigint, string]>(PAGE).raw();
    const walk = (next: (after: bigint) => bigint | undefined): void => {
      for (let after: bigint | undefined = -(2n ** 63n); after !== undefined; ) after = next(after);
    };
    const pieces: ListPieces = { pets, rowsUs: [], itemsUs: [], jsonUs: [], sqlJsonUs: [] };
    for (let i = 0; i < repetitions; i += 1) {
      pieces.rowsUs.push(cpuUsPerPet(pets, () => walk((after) => page.all(after, PAGE_SIZE).at(-1)?.[0])));
      let listed = 0;
      pieces.itemsUs.push(
        await cpuUsPerPetAsync(pets, async () => {
          for await (const chunk of storage.inventory.list()) listed += chunk.length;
        }),
      );
      let written = 0;
      pieces.jsonUs.push(
        await cpuUsPerPetAsync(pets, async () => {
          for await (const chunk of storage.inventory.list()) written += itemsJson(chunk).length;
        }),
      );
      if (listed !== pets || written === 0) throw new Error(`listed ${listed} pets of ${pets}`);
      let fromSqlite = 0;
      pieces.sqlJsonUs.push(
        await cpuUsPerPetAsync(pets, async () => {
          for await (const chunk of storage.inventory.listColumns()) fromSqlite += columnsJson(chunk).length;
        }),
      );
      if (fromSqlite !== written) throw new Error(`the columns wrote ${fromSqlite} characters, the items ${written}`);
    }
    return pieces;
  } finally {
    await storage.close();
    db.close();
  }
}

/** The table of the pieces, medians of the repetitions. */
export function listPiecesTable(pieces: ListPieces): string {
  const us = (n: number): string => n.toFixed(2);
  const steps: [string, readonly number[]][] = [
    ['rows of the repository’s page query (better-sqlite3 arrays, integers as bigints)', pieces.rowsUs],
    ['`SqliteInventoryRepository.list`: those rows made InventoryItems', pieces.itemsUs],
    ['that, and the JSON text of every chunk (`itemsJson`, as the service writes it)', pieces.jsonUs],
    [
      'the same JSON text written from the columns of each chunk (`listColumns`, `columnsJson`, as the service lists)',
      pieces.sqlJsonUs,
    ],
  ];
  return table(
    ['step, in the benchmark process, no HTTP', 'CPU µs a pet', 'runs'],
    steps.map(([step, values]) => [step, us(median(values)), runs(values, us)]),
  );
}
