import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import type { DuplicatePet, NewPet, PetCatalog, StockedPet } from '../../application/ports/pet-catalog.js';
import { domainError } from '../../domain/errors.js';
import { checkPetFields, type Pet } from '../../domain/pet.js';
import { type PetId, petId } from '../../domain/pet-id.js';
import { isPetStatus } from '../../domain/pet-status.js';
import { quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
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

type InsertParams = [bigint, string, string, number, string | null, string | null, string, string];

/** Tags as stored: the id as decimal text, since a JSON number past 2^53 is rounded by most readers. */
interface StoredTag {
  readonly id: string;
  readonly name: string;
}

const NONE = '[]';
const COLUMNS = 'id, name, status, quantity, category_id, category_name, photo_urls, tags';
/** As many pets a chunk of an export holds as a chunk of the inventory list. */
const EXPORT_CHUNK = 1_000;

const tagsText = (tags: NewPet['tags']): string =>
  tags === undefined || tags.length === 0
    ? NONE
    : JSON.stringify(tags.map((t): StoredTag => ({ id: t.id.toString(), name: t.name })));

const photosText = (urls: NewPet['photoUrls']): string =>
  urls === undefined || urls.length === 0 ? NONE : JSON.stringify(urls);

/** The row of a pet to insert, once the domain has checked its fields. */
function rowOf(p: NewPet): InsertParams {
  checkPetFields(p);
  return [
    p.id,
    p.name,
    p.status,
    p.quantity,
    p.category?.id.toString() ?? null,
    p.category?.name ?? null,
    photosText(p.photoUrls),
    tagsText(p.tags),
  ];
}

function petOfRow(row: PetRow): Pet {
  if (!isPetStatus(row.status)) throw new Error(`pet ${row.id} has the unknown status ${row.status}`);
  // Most pets have no tags and no photos: '[]' needs no parse.
  const tags =
    row.tags === NONE ? [] : (JSON.parse(row.tags) as StoredTag[]).map((t) => ({ id: BigInt(t.id), name: t.name }));
  return {
    id: petId(row.id),
    name: row.name,
    ...(row.category_id === null || row.category_name === null
      ? {}
      : { category: { id: BigInt(row.category_id), name: row.category_name } }),
    photoUrls: row.photo_urls === NONE ? [] : (JSON.parse(row.photo_urls) as string[]),
    tags,
    status: row.status,
  };
}

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
    const insert = db.prepare<InsertParams>(
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
