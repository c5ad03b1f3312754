/**
 * The search by name and the CSV export at scale (DESIGN 6.3), on SQLite, in process through the
 * InventoryRepository as the HTTP adapter calls it: a page of 100 by part of a name (common and rare
 * texts, of three characters and of two), beside a page of 100 without a search, measured in the same
 * rounds; the unnamed page (`list`, what the list served before names) beside the named one
 * (`listNamed`), with the trigram index in place and after it is dropped, so that the index's cost to
 * the list without a search shows in one run; and the whole CSV's store reads (every page of 1,000,
 * names included) beside the whole list by columns (the JSON's fast path).
 *
 * The pets: ids 1..N, named from 20 words and the id ("Maple 123456"); so "maple" matches one pet in
 * 20, "123456" one pet, "ap" (two letters) one in 10, "qz" none.
 *
 * Run alone: `node --import tsx bench/name-search.ts [pets] [rounds]` (1,000,000 and 5 by default).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import type { NamedInventoryQuery } from '../src/application/ports/inventory-repository.js';
import type { NewPet } from '../src/application/ports/pet-catalog.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { count, median, ms, ratio, table } from './stats.js';

const PETS = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const WORDS = ['Maple', 'Oscar', 'Bella', 'Rex', 'Luna', 'Max', 'Coco', 'Daisy', 'Milo', 'Nala'];
const MORE = ['Ziggy', 'Hazel', 'Pepper', 'Shadow', 'Clover', 'Biscuit', 'Rocky', 'Toby', 'Ruby', 'Olive'];
const nameOf = (id: number): string => `${[...WORDS, ...MORE][id % 20]} ${id}`;

const elapsedMs = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6;

const dir = await mkdtemp(join(tmpdir(), 'petstore-name-search-'));
const path = join(dir, 'pets.db');
try {
  let storage = openSqliteStorage({ path });
  const fillStarted = process.hrtime.bigint();
  for (let start = 1; start <= PETS; start += 10_000) {
    const chunk: NewPet[] = [];
    for (let id = start; id < start + 10_000 && id <= PETS; id += 1) {
      chunk.push({ id: petId(BigInt(id)), name: nameOf(id), quantity: quantity(20 + (id % 80)), status: 'available' });
    }
    const added = await storage.pets.addAll(chunk);
    if (!added.ok) throw new Error('the pets could not be added');
  }
  const fillSeconds = elapsedMs(fillStarted) / 1000;
  // Closed and opened again, as after the drop below: both measurements read a checkpointed file, not
  // one whose fill is still in the write-ahead log.
  await storage.close();
  storage = openSqliteStorage({ path });
  const middle = petId(BigInt(Math.floor(PETS / 2)));

  const cases: [string, Omit<NamedInventoryQuery, 'limit'>][] = [
    ['no search (listNamed)', {}],
    ['"maple" (1 in 20)', { nameContains: 'maple' }],
    ['"maple" after the middle', { nameContains: 'maple', after: middle }],
    [`"${Math.floor(PETS * 0.9)}" (one pet)`, { nameContains: String(Math.floor(PETS * 0.9)) }],
    ['"ap" (2 letters, 1 in 10)', { nameContains: 'ap' }],
    ['"qz" (2 letters, none: reads every pet)', { nameContains: 'qz' }],
    ['"maple", low stock (none)', { nameContains: 'maple', maxAvailable: 5 }],
  ];

  /** Each round: the unnamed page, then each of the first `measured` cases. */
  async function pageTimes(measured = cases.length): Promise<{ plain: number[]; named: number[][] }> {
    const plain: number[] = [];
    const named: number[][] = cases.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = process.hrtime.bigint();
      for await (const _ of storage.inventory.list({ limit: 100, after: middle })) {
        // Read through, as the page does.
      }
      plain.push(elapsedMs(started));
      for (const [i, [, query]] of cases.slice(0, measured).entries()) {
        const began = process.hrtime.bigint();
        await storage.inventory.listNamed({ ...query, limit: 100 });
        named[i]?.push(elapsedMs(began));
      }
    }
    return { plain, named };
  }

  async function wholeTimes(): Promise<{ columns: number; csv: number; rows: number }> {
    const source = storage.inventory as typeof storage.inventory &
      Required<Pick<typeof storage.inventory, 'listColumns'>>;
    let started = process.hrtime.bigint();
    for await (const _ of source.listColumns({})) {
      // The whole list's JSON is written from these chunks.
    }
    const columns = elapsedMs(started);
    started = process.hrtime.bigint();
    let rows = 0;
    let after: bigint | undefined;
    for (;;) {
      const page = await storage.inventory.listNamed({
        limit: 1_000,
        ...(after === undefined ? {} : { after: petId(after) }),
      });
      rows += page.length;
      if (page.length < 1_000) break;
      after = page[page.length - 1]?.petId;
    }
    return { columns, csv: elapsedMs(started), rows };
  }

  // A round first, unmeasured, each time: both files are then read from a warm cache alike.
  await pageTimes(1);
  // The pages without a search first, alone, as measured without the index below: the searches that
  // read every pet would leave a colder cache behind them.
  const withIndexAlone = await pageTimes(1);
  const withIndex = await pageTimes();
  const whole: { columns: number[]; csv: number[]; rows: number } = { columns: [], csv: [], rows: 0 };
  for (let round = 0; round < Math.min(3, ROUNDS); round += 1) {
    const { columns, csv, rows } = await wholeTimes();
    whole.columns.push(columns);
    whole.csv.push(csv);
    whole.rows = rows;
  }
  await storage.close();
  const db = new Database(path);
  const indexBytes = Number(
    db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'pet_names%'").pluck().get() ?? 0,
  );
  // The same file without the index (its triggers and table): the list's speed beside it.
  db.exec(
    'DROP TRIGGER pet_names_added; DROP TRIGGER pet_names_renamed; DROP TRIGGER pet_names_removed; DROP TABLE pet_names;',
  );
  db.close();
  storage = openSqliteStorage({ path });
  await pageTimes(1);
  const withoutIndex = await pageTimes(1);
  await storage.close();

  const plainWith = median(withIndex.plain);
  const aloneWith = median(withIndexAlone.plain);
  const plainWithout = median(withoutIndex.plain);
  process.stdout.write(
    `${count(PETS)} pets, SQLite, ${ROUNDS} rounds (medians), filled in ${fillSeconds.toFixed(1)} s; ` +
      `trigram index ${count(indexBytes / 2 ** 20)} MiB\n\n`,
  );
  process.stdout.write(
    table(
      ['page of 100', 'ms', 'ratio to an unnamed page'],
      [
        ['unnamed page after the middle (list)', ms(plainWith), '1.00'],
        ...cases.map(([label], i) => {
          const t = median(withIndex.named[i] ?? []);
          return [label, ms(t), ratio(t / plainWith)];
        }),
      ],
    ),
  );
  process.stdout.write(
    `\nmeasured alone (no search in the rounds): unnamed page with the trigram index ${ms(aloneWith)} ms, ` +
      `without it ${ms(plainWithout)} ms (ratio ${ratio(aloneWith / plainWithout)}); named page without a ` +
      `search ${ms(median(withIndexAlone.named[0] ?? []))} ms with it, ${ms(median(withoutIndex.named[0] ?? []))} ms without\n`,
  );
  process.stdout.write(
    `whole list, ${count(whole.rows)} entries: by columns (the JSON's reads) ${count(median(whole.columns))} ms; ` +
      `named pages of 1,000 (the CSV's reads) ${count(median(whole.csv))} ms ` +
      `(ratio ${ratio(median(whole.csv) / median(whole.columns))})\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
