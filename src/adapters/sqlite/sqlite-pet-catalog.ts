import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import type { DuplicatePet, NewPet, PetCatalog, StockedPet } from '../../application/ports/pet-catalog.js';
import { domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { columnsOf, type NewPetColumns, petOfColumns } from '../sql/pet-columns.js';
import { allOrNothing } from './all-or-nothing.js';
import { importThroughStaging, type Staging } from './staged-import.js';
import type { StoreRevision } from './store-revision.js';

interface PetRow {
  readonly id: bigint;
  readonly name: string;
  readonly status: string;
  readonly quantity: bigint;
  readonly category_id: string | null;
  readonly category_name: string | null;
  readonly photo_urls: string;
  readonly tags: string;
}

const COLUMNS = 'id, name, status, quantity, category_id, category_name, photo_urls, tags';
/** As many pets a chunk of an export holds as a chunk of the inventory list. */
const EXPORT_CHUNK = 1_000;

const rowOf = columnsOf;

const petOfRow = (row: PetRow): Pet =>
  petOfColumns({
    id: row.id,
    name: row.name,
    status: row.status,
    categoryId: row.category_id,
    categoryName: row.category_name,
    photoUrls: row.photo_urls,
    tags: row.tags,
  });

const stockedPetOfRow = (row: PetRow): StockedPet => ({ ...petOfRow(row), quantity: quantity(Number(row.quantity)) });

const duplicate = (id: bigint, twice: boolean): DuplicatePet =>
  domainError('duplicate_pet', twice ? `pet id ${id} is given twice` : `a pet with id ${id} already exists`);

/** The `pets` table. A pet's stock lives in its row, so adding a pet starts its inventory entry. */
export class SqlitePetCatalog implements PetCatalog {
  private readonly byId: Statement<[bigint], PetRow>;
  private readonly firstChunk: Statement<[number], PetRow>;
  private readonly nextChunk: Statement<[bigint, number], PetRow>;
  private readonly insertAll: (pets: readonly NewPet[]) => DuplicatePet | undefined;
  private readonly staging: Staging<NewPet, DuplicatePet>;

  /** `revision` is the revision of the `pets` table, which the inventory lists: an import moves it. */
  constructor(
    private readonly db: Database,
    private readonly revision: StoreRevision,
  ) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id = ?`);
    this.firstChunk = db.prepare(`SELECT ${COLUMNS} FROM pets ORDER BY id LIMIT ?`);
    this.nextChunk = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`);
    // DO NOTHING instead of a failure: `changes` then tells a duplicate from any other error, which
    // still throws (a broken constraint there is a bug, not bad input).
    const insert = db.prepare<NewPetColumns>(
      `INSERT INTO pets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.insertAll = allOrNothing(db, (pets: readonly NewPet[]): DuplicatePet | undefined => {
      for (const [index, p] of pets.entries()) {
        if (insert.run(...rowOf(p)).changes === 0) {
          return duplicate(
            p.id,
            pets.slice(0, index).some((earlier) => earlier.id === p.id),
          );
        }
      }
      return undefined;
    });
    // The staging table is made from the live definition of `pets`, so that the final move is a plain
    // `INSERT ... SELECT *` between tables of one shape, which SQLite copies record by record without
    // decoding them (its transfer optimisation): about half the time of an insert column by column.
    const petsDefinition = db
      .prepare<[], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'pets'")
      .pluck()
      .get();
    if (petsDefinition === undefined || !/^CREATE TABLE pets\b/.test(petsDefinition)) {
      throw new Error(`the pets table's definition is not the one expected: ${petsDefinition}`);
    }
    this.staging = {
      definition: (staged) => petsDefinition.replace(/^CREATE TABLE pets\b/, `CREATE TABLE ${staged}`),
      columns: COLUMNS,
      row: rowOf,
      givenTwice: (p) => duplicate(p.id, true),
      commit: (staged) => {
        const clash = db
          .prepare<[], { readonly id: bigint }>(
            `SELECT s.id FROM ${staged} s WHERE EXISTS (SELECT 1 FROM main.pets p WHERE p.id = s.id) ORDER BY s.id LIMIT 1`,
          )
          .get();
        if (clash !== undefined) return duplicate(clash.id, false);
        db.prepare(`INSERT INTO main.pets SELECT * FROM ${staged}`).run();
        return undefined;
      },
    };
  }

  async get(id: PetId): Promise<Pet | undefined> {
    const row = this.byId.get(id);
    return row === undefined ? undefined : petOfRow(row);
  }

  async addAll(pets: readonly NewPet[]): Promise<Result<number, DuplicatePet>> {
    const refusal = this.insertAll(pets);
    if (refusal !== undefined) return fail(refusal);
    this.revision.bump();
    return ok(pets.length);
  }

  async addStream(batches: AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>> {
    const added = await importThroughStaging(this.db, this.staging, batches);
    if (added.ok) this.revision.bump();
    return added;
  }

  /**
   * Each chunk is one short query after the last id handed out, as the inventory list reads, so no
   * statement or read transaction spans an await; the event loop gets a turn between chunks.
   */
  async *listWithStock(): AsyncIterable<readonly StockedPet[]> {
    let after: bigint | undefined;
    for (;;) {
      const rows = after === undefined ? this.firstChunk.all(EXPORT_CHUNK) : this.nextChunk.all(after, EXPORT_CHUNK);
      if (rows.length === 0) return;
      yield rows.map(stockedPetOfRow);
      if (rows.length < EXPORT_CHUNK) return;
      after = (rows[rows.length - 1] as PetRow).id;
      await nextTurn();
    }
  }
}
